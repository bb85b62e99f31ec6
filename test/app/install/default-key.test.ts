import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack } from '../../../src/fake-slack/fake-slack.ts';
import { installApp } from '../../../src/workbench/workspaces.ts';
import { eventually } from '../../support/bot.ts';
import { KEYS } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';
import { newCredentials, type OAuthApp, startOAuthApp } from './oauth-app.ts';

let sandbox: TestSandbox;
let slack: FakeSlack;
let app: OAuthApp;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  slack = await new FakeSlack({
    signingSecret: `signing-${randomBytes(8).toString('hex')}`,
    botToken: '',
  }).start();
  app = await startOAuthApp({
    slack,
    serviceUrl: sandbox.baseUrl,
    databaseUrl: `sqlite:${join(sandbox.dir, 'bot.db')}`,
    credentials: newCredentials(),
    encryptionKey: randomBytes(32).toString('base64'),
    // Around loadBotConfig's check (which refuses this): the app itself must still not share the key.
    unchecked: { PROCUREMENT_API_KEY: KEYS.bobAdminAcme },
  });
  await installApp(slack, app.base, slack.teamId);
});
afterAll(async () => {
  await app?.stop();
  await slack?.stop();
  await sandbox?.stop();
});

describe('a workspace that installed Tenderbot from the public page', () => {
  it('has no key until its admin connects one, whatever key the app was started with', async () => {
    expect(app.config.PROCUREMENT_API_KEY).toBe(KEYS.bobAdminAcme);
    await slack.slashCommand('U0MEMBER', 'C0BIDS', '/tender', 'search cleaning');
    const answer = await eventually(() => slack.messagesIn('C0BIDS', 'U0MEMBER')[0], 'an answer');
    expect(JSON.stringify(answer)).toContain('/tender connect');
    expect(JSON.stringify(answer)).not.toContain('Tenders matching');
  });
});
