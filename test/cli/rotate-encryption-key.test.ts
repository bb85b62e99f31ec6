import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { KeyCipher } from '../../src/app/security/key-cipher.ts';
import type { BotStore, StoredSecret } from '../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../src/app/storage/open-bot-store.ts';
import { rotateEncryptionKey } from '../../src/cli/rotate-encryption-key.ts';
import { untaggedCiphertext } from '../app/security/untagged-ciphertext.ts';
import { createTestDatabase } from '../support/postgres.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-rotate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');
const at = new Date('2026-11-22T12:00:00Z');

const PLAIN = {
  connectionT1: 'pis_workspace_one_0123456789',
  connectionT2: 'pis_workspace_two_0123456789',
  installT1: '{"bot":{"token":"xoxb-one"}}',
  installE1: '{"bot":{"token":"xoxb-org"}}',
  alice: 'pis_alice_0123456789abcdef',
};

/** Every kind of secret, written with key A (one the way Tenderbot wrote them before rotation existed). */
async function fill(store: BotStore): Promise<void> {
  const a = new KeyCipher(keyA);
  const connection = { serviceUrl: null, connectedBy: 'U1', connectedAt: '2026-11-01T00:00:00Z' };
  await store.saveConnection({ ...connection, teamId: 'T1', encryptedApiKey: a.encrypt(PLAIN.connectionT1) });
  await store.saveConnection({
    ...connection,
    teamId: 'T2',
    encryptedApiKey: untaggedCiphertext(keyA, PLAIN.connectionT2),
  });
  await store.saveInstallation({
    teamId: 'T1',
    enterpriseId: null,
    isEnterpriseInstall: false,
    encryptedInstallation: a.encrypt(PLAIN.installT1),
    installedAt: at,
  });
  await store.saveInstallation({
    teamId: null,
    enterpriseId: 'E1',
    isEnterpriseInstall: true,
    encryptedInstallation: a.encrypt(PLAIN.installE1),
    installedAt: at,
  });
  await store.savePersonalKey({
    teamId: 'T1',
    userId: 'UALICE',
    encryptedApiKey: a.encrypt(PLAIN.alice),
    serviceUrl: null,
    connectedAt: at,
  });
}

/** Every secret read back with `cipher`, by what it is. */
async function readAll(store: BotStore, cipher: KeyCipher): Promise<Record<string, string>> {
  const connectionT1 = await store.getConnection('T1');
  const connectionT2 = await store.getConnection('T2');
  const installT1 = await store.findInstallation({
    teamId: 'T1',
    enterpriseId: null,
    isEnterpriseInstall: false,
  });
  const installE1 = await store.findInstallation({
    teamId: 'T7',
    enterpriseId: 'E1',
    isEnterpriseInstall: true,
  });
  const alice = await store.getPersonalKey('T1', 'UALICE');
  return {
    connectionT1: cipher.decrypt(connectionT1?.encryptedApiKey ?? ''),
    connectionT2: cipher.decrypt(connectionT2?.encryptedApiKey ?? ''),
    installT1: cipher.decrypt(installT1?.encryptedInstallation ?? ''),
    installE1: cipher.decrypt(installE1?.encryptedInstallation ?? ''),
    alice: cipher.decrypt(alice?.encryptedApiKey ?? ''),
  };
}

function command(env: Record<string, string>) {
  return run(process.execPath, ['--import', 'tsx', 'src/cli/rotate-encryption-key.ts'], {
    cwd: root,
    // Only what is given here (and a .env in the checkout, which has none).
    env: { PATH: process.env.PATH ?? '', ...env },
  });
}

describe('rotating ENCRYPTION_KEY', () => {
  it('re-encrypts every stored secret with the new key, after which the new key alone reads them all', async () => {
    const path = join(dir, 'rotate.db');
    const before = openBotStore(`sqlite:${path}`);
    await fill(before);
    await before.close();

    const env = { ENCRYPTION_KEY: keyB, ENCRYPTION_KEY_PREVIOUS: keyA, DATABASE_URL: `sqlite:${path}` };
    const first = await command(env);
    expect(first.stdout).toContain(
      'Checked 5 stored secrets: 5 written again with the new ENCRYPTION_KEY, 0 already',
    );
    expect(first.stdout).toContain('ENCRYPTION_KEY_PREVIOUS is no longer needed');
    // Counts only: no secret, no key, in clear or encrypted.
    for (const secret of [...Object.values(PLAIN), keyA, keyB, 'v1:', 'v2:'])
      expect(`${first.stdout}${first.stderr}`).not.toContain(secret);

    const after = openBotStore(`sqlite:${path}`);
    expect(await readAll(after, new KeyCipher(keyB))).toEqual(PLAIN);
    await expect(readAll(after, new KeyCipher(keyA))).rejects.toThrow();
    await after.close();

    // A second run finds nothing to do.
    const second = await command(env);
    expect(second.stdout).toContain(
      'Checked 5 stored secrets: 0 written again with the new ENCRYPTION_KEY, 5 already',
    );
  }, 60_000);

  it('rotates a PostgreSQL database the same way, and ends when done', async () => {
    const database = await createTestDatabase('store_rotate');
    try {
      const before = openBotStore(database.url);
      await fill(before);
      await before.close();
      const env = { ENCRYPTION_KEY: keyB, ENCRYPTION_KEY_PREVIOUS: keyA, DATABASE_URL: database.url };
      const first = await command(env);
      expect(first.stdout).toContain(
        'Checked 5 stored secrets: 5 written again with the new ENCRYPTION_KEY, 0 already',
      );
      const after = openBotStore(database.url);
      expect(await readAll(after, new KeyCipher(keyB))).toEqual(PLAIN);
      await after.close();
    } finally {
      await database.drop();
    }
  }, 60_000);

  it('asks for both keys rather than guessing', async () => {
    await expect(
      command({ ENCRYPTION_KEY: keyB, DATABASE_URL: `sqlite:${join(dir, 'none.db')}` }),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Set ENCRYPTION_KEY to the new key and ENCRYPTION_KEY_PREVIOUS'),
    });
  }, 60_000);

  it('can be interrupted and run again', async () => {
    const store = openBotStore(`sqlite:${join(dir, 'interrupted.db')}`);
    await fill(store);
    const cipher = new KeyCipher(keyB, keyA);
    // The first run stops (the process killed) after two secrets.
    let writes = 0;
    const stopping = new Proxy(store, {
      get(target, name, receiver) {
        if (name === 'replaceSecret')
          return async (secret: StoredSecret, next: string) => {
            if (writes === 2) throw new Error('killed');
            writes += 1;
            return target.replaceSecret(secret, next);
          };
        return Reflect.get(target, name, receiver);
      },
    });
    await expect(rotateEncryptionKey(stopping, cipher)).rejects.toThrow('killed');
    // Half rotated: everything still reads with both keys set.
    expect(await readAll(store, cipher)).toEqual(PLAIN);
    const again = await rotateEncryptionKey(store, cipher);
    expect(again).toMatchObject({
      checked: 5,
      reencrypted: 3,
      alreadyCurrent: 2,
      unreadable: [],
      stillChanging: 0,
    });
    expect(await readAll(store, new KeyCipher(keyB))).toEqual(PLAIN);
    await store.close();
  });

  it('never overwrites a key saved meanwhile: it reads it again and rotates that one', async () => {
    const store = openBotStore(`sqlite:${join(dir, 'concurrent.db')}`);
    await fill(store);
    const cipher = new KeyCipher(keyB, keyA);
    // While the command runs, an admin reconnects T1 through a copy still on the old key.
    let reconnected = false;
    const busy = new Proxy(store, {
      get(target, name, receiver) {
        if (name === 'replaceSecret')
          return async (secret: StoredSecret, next: string) => {
            if (!reconnected && secret.kind === 'connection' && secret.ref === 'T1') {
              reconnected = true;
              await target.saveConnection({
                teamId: 'T1',
                encryptedApiKey: new KeyCipher(keyA).encrypt('pis_reconnected_0123456789'),
                serviceUrl: null,
                connectedBy: 'U2',
                connectedAt: '2026-11-23T00:00:00Z',
              });
            }
            return target.replaceSecret(secret, next);
          };
        return Reflect.get(target, name, receiver);
      },
    });
    const report = await rotateEncryptionKey(busy, cipher);
    expect(reconnected).toBe(true);
    expect(report).toMatchObject({ checked: 5, reencrypted: 5, unreadable: [], stillChanging: 0 });
    expect(await readAll(store, new KeyCipher(keyB))).toEqual({
      ...PLAIN,
      connectionT1: 'pis_reconnected_0123456789',
    });
    await store.close();
  });

  it('leaves what neither key reads, and names it so it can be connected again', async () => {
    const store = openBotStore(`sqlite:${join(dir, 'unreadable.db')}`);
    await fill(store);
    await store.savePersonalKey({
      teamId: 'T2',
      userId: 'UBOB',
      encryptedApiKey: new KeyCipher(randomBytes(32).toString('base64')).encrypt('pis_lost_0123456789'),
      serviceUrl: null,
      connectedAt: at,
    });
    const report = await rotateEncryptionKey(store, new KeyCipher(keyB, keyA));
    expect(report).toMatchObject({ checked: 6, reencrypted: 5, stillChanging: 0 });
    expect(report.unreadable).toEqual([{ kind: 'personal-key', ref: '["T2","UBOB"]' }]);
    await store.close();
  });
});
