import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotConfig } from '../../src/app/config.ts';
import { createLogger } from '../../src/app/logger.ts';
import type { BotStore } from '../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../src/app/storage/open-bot-store.ts';
import { type BotApp, composeBot } from '../../src/cli/compose-bot.ts';
import { ProcurementClient } from '../../src/client/procurement-client.ts';
import { type FakeMessage, FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import { eventually } from '../support/bot.ts';
import { KEYS } from '../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.ts';
import { textOf } from '../support/slack-text.ts';

// The real Tenderbot in Socket Mode (SLACK_APP_TOKEN, as developers run Bolt apps): it opens its
// connection through the fake Slack's apps.connections.open, and commands, clicks and events reach
// it as envelopes it acknowledges; no request is signed or POSTed to it.
const APP_TOKEN = `xapp-1-test-${randomBytes(8).toString('hex')}`;
const BOT_TOKEN = `xoxb-test-${randomBytes(8).toString('hex')}`;
const MEMBER = 'U0MEMBER';
const CHANNEL = 'C0BIDS';

let sandbox: TestSandbox;
let slack: FakeSlack;
let store: BotStore;
let bot: BotApp;
let service: ProcurementClient;
let logs = '';

beforeAll(async () => {
  sandbox = await startTestSandbox();
  // No appUrl: the fake Slack has nowhere to POST, so everything must travel the socket.
  slack = await new FakeSlack({
    signingSecret: 'unused-in-socket-mode',
    botToken: BOT_TOKEN,
    appToken: APP_TOKEN,
  }).start();
  const config = BotConfig.parse({
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_APP_TOKEN: APP_TOKEN,
    SLACK_API_URL: slack.apiUrl,
    PROCUREMENT_API_URL: sandbox.baseUrl,
    PROCUREMENT_API_KEY: KEYS.carolMemberAcme,
    DATABASE_URL: `sqlite:${join(sandbox.dir, 'socket-bot.db')}`,
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PORT: '0',
  });
  store = openBotStore(config.DATABASE_URL);
  const logger = createLogger(
    'info',
    new Writable({
      write(chunk, _encoding, done) {
        logs += chunk;
        done();
      },
    }),
  );
  bot = composeBot({ config, store, logger, scheduler: { pollMs: null } });
  // Resolves once Slack said hello on the connection.
  expect(await bot.start()).toBeNull();
  service = new ProcurementClient({ baseUrl: sandbox.baseUrl, apiKey: KEYS.carolMemberAcme });
}, 60_000);

afterAll(async () => {
  await bot?.stop();
  await store?.close();
  await service?.close();
  await slack?.stop();
  await sandbox?.stop();
});

const buttonsOf = (message: FakeMessage): string[] =>
  message.blocks.flatMap(
    (block: { elements?: { action_id?: string }[]; accessory?: { action_id?: string } }) =>
      [...(block.elements ?? []), block.accessory].filter(Boolean).map((element) => element?.action_id ?? ''),
  );

describe('Tenderbot in Socket Mode', () => {
  it('opens its connection with the app-level token through the configured Slack API URL', () => {
    expect(slack.callsOf('apps.connections.open')).toHaveLength(1);
    expect(slack.socketMode.opened).toBe(1);
    expect(slack.inSocketMode).toBe(true);
    expect(slack.appUrl).toBeNull();
  });

  it('answers /tender search through an envelope it acknowledges, then a button click and an event', async () => {
    const before = slack.messagesIn(CHANNEL, MEMBER).length;
    const acked = await slack.slashCommand(MEMBER, CHANNEL, '/tender', 'search clean');
    expect(acked.status).toBe(200);
    const commandEnvelope = slack.socketMode.sent.at(-1);
    expect(commandEnvelope).toMatchObject({ type: 'slash_commands', payload: { text: 'search clean' } });
    expect(slack.socketMode.acks.map((ack) => ack.envelope_id)).toContain(commandEnvelope?.envelope_id);

    const results = await eventually(
      () => slack.answerTo(acked, CHANNEL, MEMBER, before),
      'the search results',
    );
    expect(results.ephemeralTo).toBe(MEMBER);
    expect(textOf(results)).toContain('1–5 of');
    expect(buttonsOf(results)).toEqual(expect.arrayContaining(['tender/bookmark', 'search/next']));

    // A click: Next redraws the same message with page two.
    const clicked = await slack.clickInMessage(MEMBER, results, 'search/next');
    expect(clicked.status).toBe(200);
    expect(slack.socketMode.sent.at(-1)).toMatchObject({
      type: 'interactive',
      payload: { type: 'block_actions', actions: [{ action_id: 'search/next' }] },
    });
    await eventually(() => textOf(results).includes('6–10 of'), 'page two in place');

    // Bookmark: the service records it, and the card says so.
    const tenderId = JSON.parse(
      results.blocks
        .flatMap((block: { elements?: { action_id: string; value: string }[] }) => block.elements ?? [])
        .find((element: { action_id: string }) => element.action_id === 'tender/bookmark')?.value ?? '{}',
    ).t as string;
    expect((await slack.clickInMessage(MEMBER, results, 'tender/bookmark')).status).toBe(200);
    await eventually(
      () => buttonsOf(results).includes('tender/remove_bookmark'),
      'Remove bookmark on the card',
    );
    expect(
      (await service.bookmarks.list({ limit: 100 })).data.map((bookmark) => bookmark.tenderId),
    ).toContain(tenderId);

    // An event: opening the Home tab publishes it.
    expect((await slack.openHome(MEMBER)).status).toBe(200);
    expect(slack.socketMode.sent.at(-1)).toMatchObject({
      type: 'events_api',
      payload: { event: { type: 'app_home_opened', user: MEMBER } },
    });
    const home = await eventually(() => slack.homeOf(MEMBER), 'the Home tab');
    expect(JSON.stringify(home.view.blocks)).toContain('Search tenders');
    // Every envelope was acknowledged.
    expect(new Set(slack.socketMode.acks.map((ack) => ack.envelope_id))).toEqual(
      new Set(slack.socketMode.sent.map((envelope) => envelope.envelope_id)),
    );
  });

  it('reconnects when Slack asks, and answers on the new connection', async () => {
    slack.askToReconnect();
    await eventually(
      () => slack.socketMode.opened === 2 && slack.socketMode.connectionCount === 1,
      'a new connection',
    );
    expect(slack.callsOf('apps.connections.open')).toHaveLength(2);
    const before = slack.messagesIn(CHANNEL, MEMBER).length;
    const sent = await slack.slashCommand(MEMBER, CHANNEL, '/tender', 'help');
    expect(sent.status).toBe(200);
    const help = await eventually(() => slack.answerTo(sent, CHANNEL, MEMBER, before), 'the usage card');
    expect(textOf(help)).toContain('/tender search');
    expect(logs).not.toMatch(/"level":(50|60)/);
  });
});
