import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CACHE_LIMITS,
  isAllowedServiceUrl,
  parseAllowedServiceUrls,
  WorkspaceClients,
} from '../../../src/app/adapters/workspace-clients.ts';
import { KeyCipher } from '../../../src/app/security/key-cipher.ts';
import {
  KeyUnreadableError,
  madeWithOwnKey,
  NotConnectedError,
  PersonalKeyRequiredError,
  ServiceUrlRefusedError,
} from '../../../src/app/shared/errors.ts';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
import { ConnectionError } from '../../../src/client/errors.ts';
import { ProcurementClient } from '../../../src/client/procurement-client.ts';

const dispatcher = new Agent();
afterAll(() => dispatcher.close());

/** A cipher that counts decryptions, and a store holding `teams` connected workspaces. */
async function setUp(teams: number) {
  const store = openBotStore('sqlite::memory:');
  const cipher = new KeyCipher(randomBytes(32).toString('base64'));
  let decryptions = 0;
  const decrypt = cipher.decrypt.bind(cipher);
  cipher.decrypt = (stored: string) => {
    decryptions++;
    return decrypt(stored);
  };
  for (let index = 0; index < teams; index++) {
    await store.saveConnection({
      teamId: `T${index}`,
      encryptedApiKey: cipher.encrypt(`pis_key_${index}_0123456789abcdef`),
      serviceUrl: null,
      connectedBy: 'U0ADMIN',
      connectedAt: '2026-11-01T00:00:00Z',
    });
  }
  let now = 1_000_000;
  const clients = new WorkspaceClients(
    store,
    cipher,
    { serviceUrl: 'http://127.0.0.1:9', apiKey: null, timeoutMs: 1000 },
    dispatcher,
    () => now,
  );
  return {
    store,
    cipher,
    clients,
    decryptions: () => decryptions,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('the cache of decrypted keys and clients', () => {
  it('holds at most its bound, however many workspaces ask', async () => {
    const { clients } = await setUp(CACHE_LIMITS.decryptedKeys.max + 15);
    for (let index = 0; index < CACHE_LIMITS.decryptedKeys.max + 15; index++)
      await clients.forTeam(`T${index}`);
    expect(clients.sizes.decryptedKeys).toBe(CACHE_LIMITS.decryptedKeys.max);
    expect(clients.sizes.clients).toBeLessThanOrEqual(CACHE_LIMITS.clients.max);
  });

  it('forgets a decrypted key after its time limit (a fake clock), and decrypts again when asked', async () => {
    const { clients, decryptions, advance } = await setUp(1);
    await clients.forTeam('T0');
    await clients.forTeam('T0');
    expect(decryptions()).toBe(1);
    advance(CACHE_LIMITS.decryptedKeys.ttlMs - 1);
    expect(clients.sizes.decryptedKeys).toBe(1);
    advance(2);
    expect(clients.sizes.decryptedKeys).toBe(0);
    await clients.forTeam('T0');
    expect(decryptions()).toBe(2);
    advance(CACHE_LIMITS.clients.ttlMs + 1);
    expect(clients.sizes).toEqual({ decryptedKeys: 0, clients: 0 });
  });

  it('drops the key and its client on disconnect', async () => {
    const { clients, store } = await setUp(2);
    await clients.forTeam('T0');
    await clients.forTeam('T1');
    expect(clients.sizes).toEqual({ decryptedKeys: 2, clients: 2 });
    await clients.forget('T0');
    await store.removeConnection('T0');
    expect(clients.sizes).toEqual({ decryptedKeys: 1, clients: 1 });
    await expect(clients.forTeam('T0')).rejects.toThrow(NotConnectedError);
  });

  it('uses a newly connected key at once, not the cached one', async () => {
    const { clients, store, cipher } = await setUp(1);
    const before = (await clients.forTeam('T0')).client;
    await store.saveConnection({
      teamId: 'T0',
      encryptedApiKey: cipher.encrypt('pis_new_key_0123456789abcdef'),
      serviceUrl: null,
      connectedBy: 'U0ADMIN',
      connectedAt: '2026-11-02T00:00:00Z',
    });
    expect((await clients.forTeam('T0')).client).not.toBe(before);
  });
});

describe('a stored key this ENCRYPTION_KEY cannot read', () => {
  it('is named at start and is a KeyUnreadableError when used', async () => {
    const { clients, store } = await setUp(1);
    await store.saveConnection({
      teamId: 'TOLD',
      encryptedApiKey: new KeyCipher(randomBytes(32).toString('base64')).encrypt('pis_old_0123456789abcdef'),
      serviceUrl: null,
      connectedBy: 'U0ADMIN',
      connectedAt: '2026-11-01T00:00:00Z',
    });
    expect(await clients.unreadableKeys()).toEqual(['TOLD']);
    await expect(clients.forTeam('TOLD')).rejects.toThrow(KeyUnreadableError);
    await expect(clients.forTeam('T0')).resolves.toBeDefined();
  });
});

/** Stores `encrypted` as the own key of `userId` in workspace T0, as `/tender connect me` would. */
function linkOwnKey(store: BotStore, userId: string, encrypted: string): Promise<void> {
  return store.savePersonalKey({
    teamId: 'T0',
    userId,
    encryptedApiKey: encrypted,
    serviceUrl: null,
    connectedAt: new Date('2026-11-02T00:00:00Z'),
  });
}

describe('a person’s own key', () => {
  async function withPersonalKey() {
    const setup = await setUp(1);
    await linkOwnKey(setup.store, 'U0MAX', setup.cipher.encrypt('pis_max_own_0123456789abcdef'));
    return setup;
  }

  it('is what that person’s commands use; everyone else uses the workspace’s', async () => {
    const { clients } = await withPersonalKey();
    const max = await clients.forPerson('T0', 'U0MAX');
    const ada = await clients.forPerson('T0', 'U0ADA');
    expect(max.source).toBe('personal');
    expect(ada.source).toBe('workspace');
    expect(max.client).not.toBe(ada.client);
    expect(ada.client).toBe((await clients.forTeam('T0')).client);
  });

  it('is decrypted once while kept, and never used again once removed from the store (by any copy)', async () => {
    const { clients, store, decryptions } = await withPersonalKey();
    await clients.forPerson('T0', 'U0MAX');
    await clients.forPerson('T0', 'U0MAX');
    expect(decryptions()).toBe(1);
    // Removed as another copy of the app would: straight from the store, this copy not told.
    await store.removePersonalKey('T0', 'U0MAX');
    expect((await clients.forPerson('T0', 'U0MAX')).source).toBe('workspace');
  });

  it('a new key is a new ciphertext: used at once, not the one decrypted before', async () => {
    const { clients, store, cipher } = await withPersonalKey();
    const before = (await clients.forPerson('T0', 'U0MAX')).client;
    await linkOwnKey(store, 'U0MAX', cipher.encrypt('pis_max_newer_0123456789abcdef'));
    expect((await clients.forPerson('T0', 'U0MAX')).client).not.toBe(before);
  });

  it('forWrite refuses someone without their own key when the workspace requires one', async () => {
    const { clients, store } = await withPersonalKey();
    expect((await clients.forWrite('T0', 'U0ADA')).source).toBe('workspace');
    await store.saveWorkspaceSettings({ teamId: 'T0', personalKeysForWrites: true });
    await expect(clients.forWrite('T0', 'U0ADA')).rejects.toThrow(PersonalKeyRequiredError);
    expect((await clients.forWrite('T0', 'U0MAX')).source).toBe('personal');
    // Reading is not a change: it still works.
    expect((await clients.forPerson('T0', 'U0ADA')).source).toBe('workspace');
  });

  it('one this ENCRYPTION_KEY cannot read is a KeyUnreadableError naming the person, not the workspace’s key', async () => {
    const { clients, store } = await setUp(1);
    await linkOwnKey(
      store,
      'U0OLD',
      new KeyCipher(randomBytes(32).toString('base64')).encrypt('pis_old_0123456789abcdef'),
    );
    const failure = await clients.forPerson('T0', 'U0OLD').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(KeyUnreadableError);
    expect((failure as KeyUnreadableError).userId).toBe('U0OLD');
    // Counted at start (the workspace's own key is readable, so only the person's is named).
    expect(await clients.unreadablePersonalKeys()).toBe(1);
    expect(await clients.unreadableKeys()).toEqual([]);
  });
});

describe('failures of calls made with a person’s own key', () => {
  it('are marked as such (for the sentence about their key); the workspace’s are not', async () => {
    const { clients, store, cipher } = await setUp(1);
    await linkOwnKey(store, 'U0MAX', cipher.encrypt('pis_max_own_0123456789abcdef'));
    // Nothing listens at the service's address: every call fails with a connection error.
    const own = (await clients.forPerson('T0', 'U0MAX')).client;
    const shared = (await clients.forPerson('T0', 'U0ADA')).client;
    const ownFailure = await own.bookmarks.list({ limit: 1 }, { maxRetries: 0 }).catch((error) => error);
    expect(ownFailure).toBeInstanceOf(ConnectionError);
    expect(madeWithOwnKey(ownFailure)).toBe(true);
    const walk = async () => {
      for await (const _bookmark of own.bookmarks.all({ limit: 1 }, { maxRetries: 0 })) break;
    };
    expect(madeWithOwnKey(await walk().catch((error) => error))).toBe(true);
    const sharedFailure = await shared.bookmarks
      .list({ limit: 1 }, { maxRetries: 0 })
      .catch((error) => error);
    expect(sharedFailure).toBeInstanceOf(ConnectionError);
    expect(madeWithOwnKey(sharedFailure)).toBe(false);
    // The same client each time (cached), and still a ProcurementClient.
    expect((await clients.forPerson('T0', 'U0MAX')).client).toBe(own);
    expect(own).toBeInstanceOf(ProcurementClient);
  });
});

describe('which servers keys are sent to', () => {
  /** A loopback server that records the Authorization header of each request and answers 401. */
  async function recorder() {
    const seen: string[] = [];
    const server = createServer((request, response) => {
      seen.push(String(request.headers.authorization ?? ''));
      response.writeHead(401, { 'content-type': 'application/problem+json' });
      response.end(JSON.stringify({ status: 401, code: 'invalid_api_key', title: 'Unauthorized' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { url, seen, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  it('the operator’s service and the addresses it allows, compared as the client uses them', () => {
    const operator = 'https://service.example/api';
    expect(isAllowedServiceUrl('https://service.example/api/', operator)).toBe(true);
    expect(isAllowedServiceUrl('https://other.example', operator)).toBe(false);
    expect(isAllowedServiceUrl('https://other.example/', operator, ['https://other.example'])).toBe(true);
    expect(isAllowedServiceUrl('https://user:pw@service.example/api', operator)).toBe(false);
    expect(isAllowedServiceUrl('ftp://service.example/api', operator)).toBe(false);
    expect(isAllowedServiceUrl('not a url', operator)).toBe(false);
    expect(parseAllowedServiceUrls(' https://a.example , ,https://b.example')).toEqual([
      'https://a.example',
      'https://b.example',
    ]);
  });

  it('a person’s own key goes to the operator’s service only, never to the workspace key’s address', async () => {
    const operator = await recorder();
    const allowedOther = await recorder();
    const elsewhere = await recorder();
    try {
      const store = openBotStore('sqlite::memory:');
      const cipher = new KeyCipher(randomBytes(32).toString('base64'));
      const clients = new WorkspaceClients(
        store,
        cipher,
        { serviceUrl: operator.url, apiKey: null, timeoutMs: 2000, allowedServiceUrls: [allowedOther.url] },
        dispatcher,
      );
      await store.saveConnection({
        teamId: 'T0',
        encryptedApiKey: cipher.encrypt('pis_workspace_0123456789abcdef'),
        serviceUrl: allowedOther.url,
        connectedBy: 'U0ADMIN',
        connectedAt: '2026-11-01T00:00:00Z',
      });
      await linkOwnKey(store, 'U0MAX', cipher.encrypt('pis_max_own_0123456789abcdef'));
      const call = async (userId: string) =>
        (await clients.forPerson('T0', userId)).client.bookmarks
          .list({ limit: 1 }, { maxRetries: 0 })
          .catch(() => undefined);
      await call('U0MAX');
      await call('U0ADA');
      expect(operator.seen).toEqual(['Bearer pis_max_own_0123456789abcdef']);
      expect(allowedOther.seen).toEqual(['Bearer pis_workspace_0123456789abcdef']);

      // A workspace key stored with an address that is not allowed (say, from before the check):
      // refused at use, and still nobody's own key goes there.
      await store.saveConnection({
        teamId: 'T0',
        encryptedApiKey: cipher.encrypt('pis_workspace_0123456789abcdef'),
        serviceUrl: elsewhere.url,
        connectedBy: 'U0ADMIN',
        connectedAt: '2026-11-03T00:00:00Z',
      });
      await expect(clients.forPerson('T0', 'U0ADA')).rejects.toThrow(ServiceUrlRefusedError);
      await call('U0MAX');
      expect(elsewhere.seen).toEqual([]);
      expect(operator.seen).toHaveLength(2);
    } finally {
      await Promise.all([operator.close(), allowedOther.close(), elsewhere.close()]);
    }
  });
});
