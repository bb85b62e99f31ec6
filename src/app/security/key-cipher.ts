import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * Encrypts workspace API keys at rest with AES-256-GCM: a random 12-byte IV per key, the
 * 16-byte tag checked on decryption, so a tampered or wrongly keyed value fails loudly.
 */
export class KeyCipher {
  private readonly key: Buffer;

  constructor(encryptionKeyBase64: string) {
    this.key = Buffer.from(encryptionKeyBase64, 'base64');
    if (this.key.length !== 32) throw new Error('ENCRYPTION_KEY must be 32 bytes, base64-encoded');
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const encrypted = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), encrypted]).toString('base64')}`;
  }

  decrypt(stored: string): string {
    const [version, payload] = stored.split(':');
    if (version !== VERSION || !payload) throw new Error('unknown encrypted key format');
    const bytes = Buffer.from(payload, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  }
}
