import { createCipheriv, randomBytes } from 'node:crypto';

/** A value as Tenderbot wrote it before values named their key: `v1:` and no key id. */
export function untaggedCiphertext(keyBase64: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(keyBase64, 'base64'), iv);
  const encrypted = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), encrypted]).toString('base64')}`;
}
