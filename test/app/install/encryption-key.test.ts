import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BotApp, createBotApp } from '../../../src/app/bot-app.ts';
import { loadBotConfig } from '../../../src/app/config.ts';
import { type BotStore, openBotStore } from '../../../src/app/storage/bot-store.ts';
import { type FakeMessage, FakeSlack } from '../../../src/fake-slack/fake-slack.ts';
import { eventually } from '../../support/bot.ts';
import { KEYS } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

const CLIENT_ID = '7777.8888';
const CLIENT_SECRET = `client-secret-${randomBytes(8).toString('hex')}`;
const SIGNING_SECRET = `signing-${randomBytes(8).toString('hex')}`;
const STATE_SECRET = randomBytes(24).toString('hex');
const OLD_KEY = randomBytes(32).toString('base64');
const NEW_KEY = randomBytes(32).toString('base64');
const ADMIN = 'U0ADMIN';
const CHANNEL = 'C0BIDS';

let sandbox: TestSandbox;
let slack: FakeSlack;
let databaseUrl: string;

interface Running {
  /** What this copy wrote in its log. */
  logged: string[];
  bot: BotApp;
  store: BotStore;
  base: string;
  stop(): Promise<void>;
}

/** A copy of the app in OAuth mode on the shared database, with the encryption keys given. */
async function startApp(keys: {
  ENCRYPTION_KEY: string;
  ENCRYPTION_KEY_PREVIOUS?: string;
}): Promise<Running> {
  const config = loadBotConfig(
    {
      SLACK_CLIENT_ID: CLIENT_ID,
      SLACK_CLIENT_SECRET: CLIENT_SECRET,
      SLACK_STATE_SECRET: STATE_SECRET,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      PROCUREMENT_API_URL: sandbox.baseUrl,
      DATABASE_URL: databaseUrl,
      PORT: '0',
      ...keys,
    },
    '',
  );
  const store = openBotStore(config.DATABASE_URL);
  const logged: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logged.push(String(chunk));
      done();
    },
  });
  const bot = createBotApp({
    config,
    store,
    logger: pino({ level: 'info' }, destination),
    scheduler: { pollMs: null },
  });
  const base = `http://127.0.0.1:${await bot.start()}`;
  slack.appUrl = `${base}/slack/events`;
  slack.oauthApp = {
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUrls: [`${base}/slack/oauth_redirect`],
  };
  return {
    logged,
    bot,
    store,
    base,
    stop: async () => {
      await bot.stop();
      await store.close();
    },
  };
}

beforeAll(async () => {
  sandbox = await startTestSandbox();
  databaseUrl = `sqlite:${join(sandbox.dir, 'bot.db')}`;
  slack = await new FakeSlack({ signingSecret: SIGNING_SECRET, botToken: '' }).start();
});
afterAll(async () => {
  await slack?.stop();
  await sandbox?.stop();
});

async function install(app: Running): Promise<void> {
  const start = await request(`${app.base}/slack/install`);
  const html = await start.body.text();
  const cookie = /slack-app-oauth-state=([^;]+)/.exec(String(start.headers['set-cookie']))?.[1] ?? '';
  const authorize = new URL(
    /id="add-to-slack" href="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&') ?? '',
  );
  const form = new URLSearchParams(authorize.searchParams);
  form.set('target', `team:${slack.teamId}`);
  form.set('decision', 'allow');
  const allowed = await request(slack.authorizeUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  await allowed.body.dump();
  const back = await request(String(allowed.headers.location), {
    headers: { cookie: `slack-app-oauth-state=${cookie}` },
  });
  expect(back.statusCode).toBe(200);
  await back.body.dump();
}

async function command(text: string): Promise<string> {
  const before = slack.messagesIn(CHANNEL, ADMIN).length;
  expect((await slack.slashCommand(ADMIN, CHANNEL, '/tender', text)).status).toBe(200);
  const message: FakeMessage = await eventually(
    () => slack.messagesIn(CHANNEL, ADMIN)[before],
    `an answer to /tender ${text}`,
  );
  return `${message.text} ${JSON.stringify(message.blocks)}`;
}

describe('a new ENCRYPTION_KEY with the old one as ENCRYPTION_KEY_PREVIOUS', () => {
  it('reads the token and the key stored under the old key; without the old key, says it failed', async () => {
    const before = await startApp({ ENCRYPTION_KEY: OLD_KEY });
    await install(before);
    await slack.slashCommand(ADMIN, CHANNEL, '/tender', 'connect');
    const modal = await eventually(() => slack.openModals(ADMIN)[0], 'the connect window');
    await slack.submitView(ADMIN, modal.id, { 'connect/key': KEYS.bobAdminAcme });
    await before.stop();

    const during = await startApp({ ENCRYPTION_KEY: NEW_KEY, ENCRYPTION_KEY_PREVIOUS: OLD_KEY });
    try {
      // The installation (its token) and the workspace's key were both written with the old key.
      expect(await command('search cleaning')).toContain('Tenders matching');
    } finally {
      await during.stop();
    }

    const without = await startApp({ ENCRYPTION_KEY: NEW_KEY });
    try {
      const answer = await command('help');
      // Said at start, once, for the operator.
      expect(without.logged.join('')).toContain('stored installation of this workspace cannot be decrypted');
      // Not "not installed": the installation is there, this copy cannot read it.
      expect(answer).not.toContain('not installed');
      expect(answer).toMatch(/went wrong|could not|failed/i);
    } finally {
      await without.stop();
    }
  });
});
