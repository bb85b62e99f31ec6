import { createCipheriv, createDecipheriv, createHmac, randomFillSync } from 'node:crypto';

/** Written before key rotation existed: no key id, so every key held is tried. */
const UNTAGGED = 'v1';
/** `v2:<key id>:<payload>`: the id says which key wrote it, so that key is the one tried. */
const TAGGED = 'v2';

/** A value this cipher holds no key for (ENCRYPTION_KEY changed), or altered since it was written. */
export class UnreadableSecretError extends Error {
  constructor(reason: string) {
    super(`a stored secret cannot be decrypted: ${reason}`);
  }
}

interface HeldKey {
  id: string;
  bytes: Buffer;
}

const IV_BYTES = 12;
/** IVs drawn from the system's random source in one call for this many values (as randomUUID does). */
const IVS_PER_DRAW = 256;
let ivPool = Buffer.alloc(0);
let ivOffset = 0;

/**
 * A fresh random IV. Drawn in batches: one draw per value cost the receiver more than the
 * encryption itself. Its bytes are used once, never again: the view is read at once (by the
 * cipher, and copied into the value written), never kept.
 */
function freshIv(): Buffer {
  if (ivOffset + IV_BYTES > ivPool.length) {
    ivPool = randomFillSync(Buffer.allocUnsafeSlow(IV_BYTES * IVS_PER_DRAW));
    ivOffset = 0;
  }
  const iv = ivPool.subarray(ivOffset, ivOffset + IV_BYTES);
  ivOffset += IV_BYTES;
  return iv;
}

function holdKey(base64: string, name: string): HeldKey {
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length !== 32) throw new Error(`${name} must be 32 bytes, base64-encoded`);
  // A short fingerprint, not the key: an HMAC under the key itself reveals nothing of it.
  const id = createHmac('sha256', bytes)
    .update('tenderbot key id')
    .digest()
    .subarray(0, 8)
    .toString('base64url');
  return { id, bytes };
}

/**
 * Encrypts secrets at rest (workspace and personal keys, Slack installations) with AES-256-GCM: a
 * random 12-byte IV per value, the 16-byte tag checked on decryption, so a tampered or wrongly
 * keyed value fails loudly. Writes with ENCRYPTION_KEY; also reads what ENCRYPTION_KEY_PREVIOUS
 * wrote, so a key can be rotated (src/cli/rotate-encryption-key.ts) while the app runs.
 */
export class KeyCipher {
  private readonly current: HeldKey;
  private readonly previous: HeldKey | null;

  constructor(encryptionKeyBase64: string, previousKeyBase64?: string) {
    this.current = holdKey(encryptionKeyBase64, 'ENCRYPTION_KEY');
    this.previous = previousKeyBase64 ? holdKey(previousKeyBase64, 'ENCRYPTION_KEY_PREVIOUS') : null;
  }

  encrypt(plain: string): string {
    const iv = freshIv();
    const cipher = createCipheriv('aes-256-gcm', this.current.bytes, iv);
    const encrypted = cipher.update(plain, 'utf8');
    const last = cipher.final();
    // One copy: IV, tag, then the ciphertext (every command the receiver stores is sealed here).
    const payload = Buffer.concat([iv, cipher.getAuthTag(), encrypted, last]).toString('base64');
    return `${TAGGED}:${this.current.id}:${payload}`;
  }

  decrypt(stored: string): string {
    const parts = stored.split(':');
    if (parts[0] === UNTAGGED && parts.length === 2 && parts[1]) {
      const payload = parts[1];
      // Untagged: the current key first, then the previous one.
      for (const key of this.keys()) {
        try {
          return open(key.bytes, payload);
        } catch {
          // Not this key (or altered): try the next.
        }
      }
      throw new UnreadableSecretError('no key held reads it');
    }
    if (parts[0] === TAGGED && parts.length === 3 && parts[2]) {
      const key = this.keys().find((each) => each.id === parts[1]);
      if (!key)
        throw new UnreadableSecretError(
          'it was written with a key that is neither ENCRYPTION_KEY nor ENCRYPTION_KEY_PREVIOUS',
        );
      try {
        return open(key.bytes, parts[2]);
      } catch {
        throw new UnreadableSecretError('it was altered');
      }
    }
    throw new UnreadableSecretError('unknown format');
  }

  /** Whether a stored value was written with ENCRYPTION_KEY (nothing to rotate). */
  isCurrent(stored: string): boolean {
    return stored.startsWith(`${TAGGED}:${this.current.id}:`);
  }

  private keys(): HeldKey[] {
    return this.previous ? [this.current, this.previous] : [this.current];
  }
}

function open(key: Buffer, payloadBase64: string): string {
  const bytes = Buffer.from(payloadBase64, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}
