import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KeyCipher } from '../../../src/app/security/key-cipher.ts';

const key = randomBytes(32).toString('base64');

describe('KeyCipher', () => {
  it('round-trips a key, never storing it in clear, with a new IV each time', () => {
    const cipher = new KeyCipher(key);
    const first = cipher.encrypt('pis_secret');
    const second = cipher.encrypt('pis_secret');
    expect(first).not.toContain('pis_secret');
    expect(first).not.toBe(second);
    expect(cipher.decrypt(first)).toBe('pis_secret');
  });

  it('refuses a tampered value and a wrong encryption key', () => {
    const stored = new KeyCipher(key).encrypt('pis_secret');
    const bytes = Buffer.from(stored.slice(3), 'base64');
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 1;
    expect(() => new KeyCipher(key).decrypt(`v1:${bytes.toString('base64')}`)).toThrow();
    expect(() => new KeyCipher(randomBytes(32).toString('base64')).decrypt(stored)).toThrow();
  });

  it('insists on 32 bytes', () => {
    expect(() => new KeyCipher(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
  });
});
