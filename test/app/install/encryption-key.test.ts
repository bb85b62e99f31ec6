import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack } from '../../../src/fake-slack/fake-slack.ts';
import { installApp } from '../../../src/workbench/workspaces.ts';
import { eventually } from '../../support/bot.ts';
import { KEYS } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';
import { newCredentials, type OAuthApp, startOAuthApp } from './oauth-app.ts';

const OLD_KEY = randomBytes(32).toString('base64');
const NEW_KEY = randomBytes(32).toString('base64');
const ADMIN = 'U0ADMIN';
const CHANNEL = 'C0BIDS';
const credentials = newCredentials();

let sandbox: TestSandbox;
let slack: FakeSlack;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  slack = await new FakeSlack({
    signingSecret: `signing-${randomBytes(8).toString('hex')}`,
    botToken: '',
  }).start();
});
afterAll(async () => {
  await slack?.stop();
  await sandbox?.stop();
});

/** A copy of the app on the shared database with these encryption keys. */
function startApp(encryptionKey: string, previousKey?: string): Promise<OAuthApp> {
  return startOAuthApp({
    slack,
    serviceUrl: sandbox.baseUrl,
    databaseUrl: `sqlite:${join(sandbox.dir, 'bot.db')}`,
    credentials,
    encryptionKey,
    ...(previousKey ? { previousKey } : {}),
  });
}

async function command(text: string): Promise<string> {
  const before = slack.messagesIn(CHANNEL, ADMIN).length;
  expect((await slack.slashCommand(ADMIN, CHANNEL, '/tender', text)).status).toBe(200);
  const message = await eventually(
    () => slack.messagesIn(CHANNEL, ADMIN)[before],
    `an answer to /tender ${text}`,
  );
  return `${message.text} ${JSON.stringify(message.blocks)}`;
}

describe('a new ENCRYPTION_KEY with the old one as ENCRYPTION_KEY_PREVIOUS', () => {
  it('reads the token and the key stored under the old key; without the old key, says it failed', async () => {
    const before = await startApp(OLD_KEY);
    await installApp(slack, before.base, slack.teamId);
    await slack.slashCommand(ADMIN, CHANNEL, '/tender', 'connect');
    const modal = await eventually(() => slack.openModals(ADMIN)[0], 'the connect window');
    await slack.submitView(ADMIN, modal.id, { 'connect/key': KEYS.bobAdminAcme });
    await before.stop();

    const during = await startApp(NEW_KEY, OLD_KEY);
    try {
      // The installation (its token) and the workspace's key were both written with the old key.
      expect(await command('search cleaning')).toContain('Tenders matching');
    } finally {
      await during.stop();
    }

    const without = await startApp(NEW_KEY);
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
