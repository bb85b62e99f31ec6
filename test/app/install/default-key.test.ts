import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BotApp, createBotApp } from '../../../src/app/bot-app.ts';
import { BotConfig } from '../../../src/app/config.ts';
import { type BotStore, openBotStore } from '../../../src/app/storage/bot-store.ts';
import { FakeSlack } from '../../../src/fake-slack/fake-slack.ts';
import { installApp } from '../../../src/workbench/workspaces.ts';
import { eventually } from '../../support/bot.ts';
import { KEYS } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

const CLIENT = { clientId: '2222.3333', clientSecret: `client-secret-${randomBytes(8).toString('hex')}` };
const SIGNING_SECRET = `signing-${randomBytes(8).toString('hex')}`;

let sandbox: TestSandbox;
let slack: FakeSlack;
let store: BotStore;
let bot: BotApp;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  slack = await new FakeSlack({ signingSecret: SIGNING_SECRET, botToken: '' }).start();
  // Built around loadBotConfig's check (which refuses this): the app itself must still not share the key.
  const config = BotConfig.parse({
    SLACK_CLIENT_ID: CLIENT.clientId,
    SLACK_CLIENT_SECRET: CLIENT.clientSecret,
    SLACK_STATE_SECRET: randomBytes(24).toString('hex'),
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    PROCUREMENT_API_URL: sandbox.baseUrl,
    PROCUREMENT_API_KEY: KEYS.bobAdminAcme,
    DATABASE_URL: `sqlite:${join(sandbox.dir, 'bot.db')}`,
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PORT: '0',
  });
  store = openBotStore(config.DATABASE_URL);
  bot = createBotApp({ config, store, logger: pino({ level: 'silent' }), scheduler: { pollMs: null } });
  const appBase = `http://127.0.0.1:${await bot.start()}`;
  slack.appUrl = `${appBase}/slack/events`;
  slack.oauthApp = { ...CLIENT, redirectUrls: [`${appBase}/slack/oauth_redirect`] };
  await installApp(slack, appBase, slack.teamId);
});
afterAll(async () => {
  await bot?.stop();
  await store?.close();
  await slack?.stop();
  await sandbox?.stop();
});

describe('a workspace that installed Tenderbot from the public page', () => {
  it('has no key until its admin connects one, whatever key the app was started with', async () => {
    await slack.slashCommand('U0MEMBER', 'C0BIDS', '/tender', 'search cleaning');
    const answer = await eventually(() => slack.messagesIn('C0BIDS', 'U0MEMBER')[0], 'an answer');
    expect(JSON.stringify(answer)).toContain('/tender connect');
    expect(JSON.stringify(answer)).not.toContain('Tenders matching');
  });
});
