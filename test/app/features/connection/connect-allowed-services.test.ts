import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectIds } from '../../../../src/app/shared/ids.ts';
import { eventually, type RunningBot, startBot, tenderCommand } from '../../../support/bot.ts';
import { KEYS } from '../../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../../support/sandbox.ts';
import { type ServiceProxy, startServiceProxy } from '../../../support/service-proxy.ts';

/**
 * PROCUREMENT_API_URLS_ALLOWED, through the real bot process: the connect window then asks for a
 * service address, an allowed one is used for the workspace's commands, any other is refused on
 * the field before anything is sent there. (Without it the window asks for none: connect.test.ts.)
 */
const ADMIN = 'U0ADMIN';
const CHANNEL = 'C0BIDS';
let sandbox: TestSandbox;
let allowed: ServiceProxy;
let other: ServiceProxy;
let bot: RunningBot;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  // Two more addresses of the same service: one the operator allows, one it does not.
  allowed = await startServiceProxy(sandbox.baseUrl, () => true);
  other = await startServiceProxy(sandbox.baseUrl, () => true);
  bot = await startBot({
    serviceUrl: sandbox.baseUrl,
    databasePath: join(mkdtempSync(join(sandbox.dir, 'bot-')), 'bot.db'),
    more: { PROCUREMENT_API_URLS_ALLOWED: `${allowed.url}, https://procurement.example.com` },
  });
});
afterAll(async () => {
  await bot?.stop();
  await other?.stop();
  await allowed?.stop();
  await sandbox?.stop();
});

describe('the service addresses an operator allows', () => {
  it('asks for an address, refuses one not allowed without calling it, and uses an allowed one', async () => {
    await bot.slack.slashCommand(ADMIN, CHANNEL, '/tender', 'connect');
    const modal = await eventually(() => bot.slack.openModals(ADMIN)[0], 'the connect window');
    expect(JSON.stringify(modal.view.blocks)).toContain(ConnectIds.urlBlock);

    const refused = await bot.slack.submitView(ADMIN, modal.id, {
      [ConnectIds.keyInput]: KEYS.aliceAcme,
      [ConnectIds.urlInput]: other.url,
    });
    expect(refused.json?.response_action).toBe('errors');
    expect(Object.keys(refused.json?.errors ?? {})).toEqual([ConnectIds.urlBlock]);
    expect(other.seen).toBe(0);

    const right = await bot.slack.submitView(ADMIN, modal.id, {
      [ConnectIds.keyInput]: KEYS.aliceAcme,
      [ConnectIds.urlInput]: allowed.url,
    });
    expect(right.json?.response_action).toBeUndefined();
    const seenBefore = allowed.seen;
    expect(seenBefore).toBeGreaterThan(0);
    const answer = await tenderCommand(bot, ADMIN, CHANNEL, 'search cleaning');
    expect(JSON.stringify(answer.blocks)).toContain('cleaning');
    expect(allowed.seen).toBeGreaterThan(seenBefore);
    expect(other.seen).toBe(0);
  });
});
