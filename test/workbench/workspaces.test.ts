import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BotApp, createBotApp } from '../../src/app/bot-app.ts';
import { loadBotConfig } from '../../src/app/config.ts';
import { type BotStore, openBotStore } from '../../src/app/storage/bot-store.ts';
import { FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import { installApp, SECOND_WORKSPACE } from '../../src/workbench/workspaces.ts';
import { eventually } from '../support/bot.ts';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.ts';

const CLIENT = { clientId: '9999.1111', clientSecret: `client-secret-${randomBytes(8).toString('hex')}` };
const SIGNING_SECRET = `signing-${randomBytes(8).toString('hex')}`;

let sandbox: TestSandbox;
let slack: FakeSlack;
let store: BotStore;
let bot: BotApp;
let appBase: string;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  slack = new FakeSlack({ signingSecret: SIGNING_SECRET, botToken: '' });
  slack.addWorkspace(SECOND_WORKSPACE);
  await slack.start();
  const config = loadBotConfig(
    {
      SLACK_CLIENT_ID: CLIENT.clientId,
      SLACK_CLIENT_SECRET: CLIENT.clientSecret,
      SLACK_STATE_SECRET: randomBytes(24).toString('hex'),
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      PROCUREMENT_API_URL: sandbox.baseUrl,
      DATABASE_URL: `sqlite:${join(sandbox.dir, 'bot.db')}`,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      PORT: '0',
    },
    '',
  );
  store = openBotStore(config.DATABASE_URL);
  bot = createBotApp({ config, store, logger: pino({ level: 'silent' }), scheduler: { pollMs: null } });
  appBase = `http://127.0.0.1:${await bot.start()}`;
  slack.appUrl = `${appBase}/slack/events`;
  slack.oauthApp = { ...CLIENT, redirectUrls: [`${appBase}/slack/oauth_redirect`] };
});
afterAll(async () => {
  await bot?.stop();
  await store?.close();
  await slack?.stop();
  await sandbox?.stop();
});

describe('the workbench’s workspaces', () => {
  it('installs the app into its first workspace at start, leaving the second to install by hand', async () => {
    expect(await installApp(slack, appBase, slack.teamId)).toContain('Tenderbot is installed');
    expect((await store.listInstallations()).map((installation) => installation.teamId)).toEqual([
      slack.teamId,
    ]);
    await slack.slashCommand('U0ADMIN', 'C0BIDS', '/tender', 'help');
    const answer = await eventually(() => slack.messagesIn('C0BIDS', 'U0ADMIN')[0], 'an answer');
    expect(JSON.stringify(answer.blocks)).toContain('/tender search');
    expect(slack.team(SECOND_WORKSPACE.teamId).botTokens).toEqual([]);
  });

  it('says when a step is refused', async () => {
    slack.oauthApp = {
      ...CLIENT,
      clientSecret: 'not-the-secret',
      redirectUrls: [`${appBase}/slack/oauth_redirect`],
    };
    await expect(installApp(slack, appBase, SECOND_WORKSPACE.teamId)).rejects.toThrow(/refused the install/);
    slack.oauthApp = { ...CLIENT, redirectUrls: [`${appBase}/slack/oauth_redirect`] };
  });
});
