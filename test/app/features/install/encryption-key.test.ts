import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../../../../src/fake-slack/fake-slack.ts';
import { installApp } from '../../../../src/workbench/workspaces.ts';
import { eventually } from '../../../support/bot.ts';
import { KEYS } from '../../../support/fixture.ts';
import { type InstallStack, type OAuthApp, startInstallStack, startOAuthApp } from './oauth-app.ts';

const OLD_KEY = randomBytes(32).toString('base64');
const NEW_KEY = randomBytes(32).toString('base64');
const ADMIN = 'U0ADMIN';
const CHANNEL = 'C0BIDS';
let stack: InstallStack;
let slack: FakeSlack;

beforeAll(async () => {
  // The stack's own copy (a random key) is not used: each step starts a copy with its keys.
  stack = await startInstallStack();
  await stack.app.stop();
  slack = stack.slack;
});
afterAll(async () => {
  await stack?.slack.stop();
  await stack?.sandbox.stop();
});

/** A copy of the app on the shared database with these encryption keys. */
function startApp(encryptionKey: string, previousKey?: string): Promise<OAuthApp> {
  return startOAuthApp({
    slack,
    serviceUrl: stack.sandbox.baseUrl,
    databaseUrl: stack.databaseUrl,
    credentials: stack.credentials,
    encryptionKey,
    ...(previousKey ? { previousKey } : {}),
  });
}

async function command(text: string): Promise<string> {
  const before = slack.messagesIn(CHANNEL, ADMIN).length;
  const sent = await slack.slashCommand(ADMIN, CHANNEL, '/tender', text);
  expect(sent.status).toBe(200);
  const message = await eventually(
    () => slack.answerTo(sent, CHANNEL, ADMIN, before),
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
