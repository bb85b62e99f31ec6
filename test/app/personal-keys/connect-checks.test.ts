import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkspaceClients } from '../../../src/app/adapters/workspace-clients.ts';
import { submitConnectModal } from '../../../src/app/features/connection/workspace-key.ts';
import { KeyCipher } from '../../../src/app/security/key-cipher.ts';
import type { FeatureContext } from '../../../src/app/shared/feature-context.ts';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';

// The connect window's checks of the service address (probe finding 1), on the feature itself with
// a real store and real loopback servers: the fake Slack sends no value for a field the window does
// not show, so the app's end-to-end tests cannot type a refused address.

/** Answers every request with a 400 problem whose words must never reach the person; counts keys. */
let talkative: Server;
let talkativeUrl: string;
const keysSent: string[] = [];
const dispatcher = new Agent();
let store: BotStore;
let context: FeatureContext;

beforeAll(async () => {
  talkative = createServer((request, response) => {
    keysSent.push(String(request.headers.authorization ?? ''));
    response.writeHead(400, { 'content-type': 'application/problem+json' });
    response.end(
      JSON.stringify({
        type: 'about:blank',
        title: 'Bad request',
        status: 400,
        code: 'invalid_request',
        detail: 'INTERNAL-ONLY: db=10.0.0.5 password=hunter2',
        requestId: 'r1',
      }),
    );
  });
  await new Promise<void>((resolve) => talkative.listen(0, '127.0.0.1', resolve));
  talkativeUrl = `http://127.0.0.1:${(talkative.address() as AddressInfo).port}`;
  store = openBotStore('sqlite::memory:');
  const cipher = new KeyCipher(randomBytes(32).toString('base64'));
  context = {
    config: { PROCUREMENT_API_URL: 'http://127.0.0.1:9', PROCUREMENT_API_KEY: undefined },
    clients: new WorkspaceClients(
      store,
      cipher,
      { serviceUrl: 'http://127.0.0.1:9', apiKey: null, timeoutMs: 2000, allowedServiceUrls: [talkativeUrl] },
      dispatcher,
    ),
    users: { facts: async () => ({ isAdmin: true, isGuest: false }) },
    store,
    cipher,
    logger: pino({ level: 'silent' }),
    clock: () => new Date('2026-11-23T00:00:00Z'),
    slowNoticeMs: 3000,
  } as unknown as FeatureContext;
});

afterAll(async () => {
  await store?.close();
  await new Promise((resolve) => talkative?.close(resolve));
  await dispatcher.close();
});

const submit = (serviceUrl: string, key = 'pis_admin_0123456789abcdefghijklmnop', forMe = false) =>
  submitConnectModal(context, {} as never, {
    teamId: 'T1',
    userId: 'U0ADMIN',
    key,
    serviceUrl,
    // The personal window's metadata starts with `me:` (connection.ts).
    privateMetadata: `${forMe ? 'me:' : ''}{"channelId":null}`,
  });

describe('the workspace connect window’s service address', () => {
  it('refuses an address the operator does not allow, before any request is sent there', async () => {
    const elsewhere = await submit('http://127.0.0.1:1/internal');
    expect(elsewhere?.errors['connect/url_block']).toContain(
      'Tenderbot connects only to the service it was set up with',
    );
    expect(await store.getConnection('T1')).toBeNull();
  });

  it('tries an allowed address, and never shows what that server answered in its own words', async () => {
    const refused = await submit(talkativeUrl);
    expect(keysSent).toEqual(['Bearer pis_admin_0123456789abcdefghijklmnop']);
    const sentence = Object.values(refused?.errors ?? {}).join(' ');
    expect(sentence).toContain('The service refused the key.');
    expect(sentence).not.toContain('INTERNAL-ONLY');
    expect(sentence).not.toContain('hunter2');
    expect(await store.getConnection('T1')).toBeNull();
  });
});

describe('a key with a character no key has', () => {
  it('is refused on the key field, saying it was not copied whole, before anything is sent', async () => {
    const sentBefore = keysSent.length;
    for (const key of ['pis_garbage_key 🧹', 'pis_it’s_curly', 'pis_two\nlines', 'pis_tab\there', 'pis_é']) {
      for (const forMe of [false, true]) {
        const refused = await submit(talkativeUrl, key, forMe);
        expect(Object.keys(refused?.errors ?? {}), key).toEqual(['connect/key_block']);
        expect(refused?.errors['connect/key_block'], key).toContain('not copied whole');
      }
    }
    expect(keysSent).toHaveLength(sentBefore);
    expect(await store.getConnection('T1')).toBeNull();
    expect(await store.getPersonalKey('T1', 'U0ADMIN')).toBeNull();
  });
});
