import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KeyCipher, UnreadableSecretError } from '../../../src/app/security/key-cipher.ts';
import { untaggedCiphertext } from './untagged-ciphertext.ts';

const key = randomBytes(32).toString('base64');
const other = randomBytes(32).toString('base64');

/** The same value with its last byte flipped. */
function altered(stored: string): string {
  const cut = stored.lastIndexOf(':') + 1;
  const bytes = Buffer.from(stored.slice(cut), 'base64');
  bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 1;
  return `${stored.slice(0, cut)}${bytes.toString('base64')}`;
}

describe('KeyCipher', () => {
  it('round-trips a key, never storing it in clear, with a new IV each time', () => {
    const cipher = new KeyCipher(key);
    const first = cipher.encrypt('pis_secret');
    const second = cipher.encrypt('pis_secret');
    expect(first).not.toContain('pis_secret');
    expect(first).not.toContain(key);
    expect(first).not.toBe(second);
    expect(cipher.decrypt(first)).toBe('pis_secret');
  });

  it('never repeats an IV, across the batches IVs are drawn in, and every value still opens', () => {
    const cipher = new KeyCipher(key);
    const ivs = new Set<string>();
    const count = 2000; // several draws of the IV pool
    for (let index = 0; index < count; index++) {
      const stored = cipher.encrypt(`value ${index}`);
      ivs.add(
        Buffer.from(stored.slice(stored.lastIndexOf(':') + 1), 'base64')
          .subarray(0, 12)
          .toString('hex'),
      );
      expect(cipher.decrypt(stored)).toBe(`value ${index}`);
    }
    expect(ivs.size).toBe(count);
  });

  it('refuses a tampered value and a wrong encryption key', () => {
    const stored = new KeyCipher(key).encrypt('pis_secret');
    expect(() => new KeyCipher(key).decrypt(altered(stored))).toThrow(UnreadableSecretError);
    expect(() => new KeyCipher(other).decrypt(stored)).toThrow(/neither ENCRYPTION_KEY nor/);
    expect(() => new KeyCipher(key).decrypt(altered(untaggedCiphertext(key, 'pis_old')))).toThrow(
      UnreadableSecretError,
    );
    expect(() => new KeyCipher(key).decrypt('v9:abc')).toThrow(/unknown format/);
  });

  it('insists on 32 bytes, for the previous key too', () => {
    expect(() => new KeyCipher(randomBytes(16).toString('base64'))).toThrow(
      /ENCRYPTION_KEY must be 32 bytes/,
    );
    expect(() => new KeyCipher(key, randomBytes(16).toString('base64'))).toThrow(
      /ENCRYPTION_KEY_PREVIOUS must be 32 bytes/,
    );
  });

  it('still reads what it wrote before values named their key', () => {
    expect(new KeyCipher(key).decrypt(untaggedCiphertext(key, 'pis_old'))).toBe('pis_old');
    expect(() => new KeyCipher(other).decrypt(untaggedCiphertext(key, 'pis_old'))).toThrow(
      UnreadableSecretError,
    );
  });

  it('reads what the previous key wrote, writes only with the new one, and says which values are current', () => {
    const before = new KeyCipher(key);
    const written = before.encrypt('pis_before');
    const legacy = untaggedCiphertext(key, 'pis_legacy');
    const rotating = new KeyCipher(other, key);
    expect(rotating.decrypt(written)).toBe('pis_before');
    expect(rotating.decrypt(legacy)).toBe('pis_legacy');
    const rewritten = rotating.encrypt('pis_before');
    expect(rotating.isCurrent(rewritten)).toBe(true);
    expect(rotating.isCurrent(written)).toBe(false);
    expect(rotating.isCurrent(legacy)).toBe(false);
    // Once rotated, the new key alone reads it, and the old one cannot.
    expect(new KeyCipher(other).decrypt(rewritten)).toBe('pis_before');
    expect(() => before.decrypt(rewritten)).toThrow(UnreadableSecretError);
    // A value tagged with the previous key is opened with that key, not guessed at.
    expect(new KeyCipher(key, other).decrypt(rewritten)).toBe('pis_before');
  });
});
