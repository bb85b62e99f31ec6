import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyCipher } from '../../../src/app/security/key-cipher.ts';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
import { eventually, type RunningBot, startBot, tenderCommand } from '../../support/bot.ts';
import { KEYS } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';
import { ADMIN, CHANNEL, MEMBER, textOf } from './support.ts';

// The probe's finding 1: whoever sets the workspace key's service address must not receive the
// members' own keys. A person's key goes to the operator's service (PROCUREMENT_API_URL) only; the
// connect window does not ask for an address unless the operator allows others; and a workspace key
// stored with an address that is not allowed (from before the check) is refused at use.

let sandbox: TestSandbox;
let bot: RunningBot;
let store: BotStore;
let encryptionKey: string;
/** A server someone else controls: a transparent proxy to the real service that records every key sent to it. */
let elsewhere: Server;
let elsewhereUrl: string;
const keysSeenElsewhere: string[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox();
  const upstream = new URL(sandbox.baseUrl);
  elsewhere = createServer((request, response) => {
    keysSeenElsewhere.push(String(request.headers.authorization ?? ''));
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: request.url,
        method: request.method,
        headers: request.headers,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    request.pipe(forward);
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
  const databasePath = join(mkdtempSync(join(sandbox.dir, 'bot-')), 'bot.db');
  encryptionKey = randomBytes(32).toString('base64');
  bot = await startBot({ serviceUrl: sandbox.baseUrl, databasePath, encryptionKey });
  store = openBotStore(`sqlite:${databasePath}`);
}, 60_000);

afterAll(async () => {
  await store?.close();
  await bot?.stop();
  await new Promise((resolve) => elsewhere?.close(resolve));
  await sandbox?.stop();
});

const command = (user: string, text: string) => tenderCommand(bot, user, CHANNEL, text);

describe('where keys are sent', () => {
  it('the connect window asks for no service address when the operator allows none but its own', async () => {
    await bot.slack.slashCommand(ADMIN, CHANNEL, '/tender', 'connect');
    const modal = await eventually(() => bot.slack.openModals(ADMIN)[0], 'the connect modal');
    expect(textOf(modal.view.blocks)).not.toContain('connect/url_block');
    const answer = await bot.slack.submitView(ADMIN, modal.id, { 'connect/key': KEYS.carolMemberAcme });
    expect(answer.json?.response_action).toBeUndefined();
    expect((await store.getConnection(bot.slack.teamId))?.serviceUrl).toBeNull();

    await bot.slack.slashCommand(MEMBER, CHANNEL, '/tender', 'connect me');
    const own = await eventually(() => bot.slack.openModals(MEMBER)[0], 'the personal connect modal');
    await bot.slack.submitView(MEMBER, own.id, { 'connect/key': KEYS.aliceAcme });
    // Kept with the service it was checked against: the operator's.
    expect((await store.getPersonalKey(bot.slack.teamId, MEMBER))?.serviceUrl).toBe(sandbox.baseUrl);
  });

  it('a workspace key stored with another server’s address: no member’s own key ever goes there, and the workspace’s is refused', async () => {
    // As a row written before addresses were checked: the workspace's key, pointed at a server of someone's choosing.
    await store.saveConnection({
      teamId: bot.slack.teamId,
      encryptedApiKey: new KeyCipher(encryptionKey).encrypt(KEYS.carolMemberAcme),
      serviceUrl: elsewhereUrl,
      connectedBy: ADMIN,
      connectedAt: new Date().toISOString(),
    });
    keysSeenElsewhere.length = 0;

    const mine = await command(MEMBER, 'bookmarks');
    expect(textOf(mine)).toContain('These are *your own* bookmarks');
    const workspace = await command(ADMIN, 'bookmarks');
    expect(textOf(workspace)).toContain('connected to a service address Tenderbot does not allow');
    expect(textOf(workspace)).toContain('`/tender connect`');
    await bot.slack.openHome(MEMBER);
    await eventually(() => bot.slack.homeOf(MEMBER), 'the Home tab');

    expect(keysSeenElsewhere).toEqual([]);
    expect(bot.logs()).not.toContain(KEYS.aliceAcme);
  });
});
