import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/app/logger.ts';
import type { HandOffCommand } from '../../../src/app/receiver/hand-off.ts';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
import { type BotApp, composeBot } from '../../../src/cli/compose-bot.ts';
import { FakeSlack } from '../../../src/fake-slack/fake-slack.ts';
import { eventually, inProcessBotConfig } from '../../support/bot.ts';

// The receiver's side of ANSWER_WORKERS on the real Bolt app (src/app/receiver/guarded-receiver.ts):
// a command handed over is acknowledged without running here; one that cannot be handed over (the
// store fails) is answered here, never lost; `/tender connect` is never handed over.

const signingSecret = randomBytes(12).toString('hex');
const botToken = `xoxb-test-${randomBytes(8).toString('hex')}`;
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-hand-off-'));
let slack: FakeSlack;
let store: BotStore;
let bot: BotApp;
let logs = '';
/** What the hand-over does with the next command. */
let handOff: HandOffCommand = async () => 'declined';
const handedOver: string[] = [];

beforeAll(async () => {
  slack = await new FakeSlack({ signingSecret, botToken }).start();
  const config = inProcessBotConfig(slack, { signingSecret, botToken }, join(dir, 'bot.db'));
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
  bot = composeBot({
    config,
    store,
    logger,
    scheduler: { pollMs: null },
    handOffCommand: (body, request) => {
      handedOver.push(String(body.text));
      return handOff(body, request);
    },
  });
  const port = (await bot.start()) as number;
  slack.appUrl = `http://127.0.0.1:${port}/slack/events`;
});

afterAll(async () => {
  await bot?.stop();
  await store?.close();
  await slack?.stop();
});

const user = () => slack.users[0]?.id ?? '';
const channel = () => slack.channels[0]?.id ?? '';
const seen = () => slack.messagesIn(channel(), user()).length;

describe('handing commands to the answer workers', () => {
  it('acknowledges a command handed over without answering it here', async () => {
    handOff = async () => 'handed';
    const before = seen();
    const ack = await slack.slashCommand(user(), channel(), '/tender', 'help');
    expect(ack.status).toBe(200);
    expect(handedOver.at(-1)).toBe('help');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(seen()).toBe(before);
  });

  it('answers here a command it could not hand over, and says so in the log', async () => {
    handOff = async () => {
      throw new Error('database is locked');
    };
    const before = seen();
    const ack = await slack.slashCommand(user(), channel(), '/tender', 'help');
    expect(ack.status).toBe(200);
    await eventually(() => seen() > before, 'the help answered here');
    expect(logs).toContain('could not queue a command for the answer workers; answering it here');
    handOff = async () => 'declined';
    const ack2 = await slack.slashCommand(user(), channel(), '/tender', 'help');
    expect(ack2.status).toBe(200);
    await eventually(() => seen() > before + 1, 'the help answered here again');
  });

  it('never hands over `/tender connect`: its modal needs the trigger within 3 s', async () => {
    handOff = async () => 'handed';
    const count = handedOver.length;
    const modals = slack.openModals(user()).length;
    const before = seen();
    const ack = await slack.slashCommand(user(), channel(), '/tender', 'connect');
    expect(ack.status).toBe(200);
    expect(handedOver.length).toBe(count);
    await eventually(
      () => slack.openModals(user()).length > modals || seen() > before,
      'the connect command answered here',
    );
  });

  it('refuses a command sent again, handed over or not, and stores it once', async () => {
    // The hand-over as the answer workers make it: the command stored with its request remembered.
    let stored = 0;
    handOff = async (body, request) => {
      const queued = await store.queueCommand(
        { id: `cmd-${++stored}`, teamId: null, body: JSON.stringify(body), receivedAt: request.now },
        request,
      );
      return queued ? 'handed' : 'replayed';
    };
    const before = await store.queuedCommandCount();
    expect((await slack.slashCommand(user(), channel(), '/tender', 'help')).status).toBe(200);
    const sent = slack.lastSent;
    if (!sent) throw new Error('nothing was sent');
    expect((await slack.resend(sent)).status).toBe(401);
    expect(await store.queuedCommandCount()).toBe(before + 1);
    expect(logs).toContain('refused a replayed request');

    // Declined by the workers, or not stored: the request is remembered before it is answered here.
    for (const offer of [
      async () => 'declined' as const,
      async (): Promise<'handed'> => {
        throw new Error('database is locked');
      },
    ]) {
      handOff = offer;
      const answered = seen();
      expect((await slack.slashCommand(user(), channel(), '/tender', 'help')).status).toBe(200);
      await eventually(() => seen() > answered, 'the help answered here');
      const again = slack.lastSent;
      if (!again) throw new Error('nothing was sent');
      expect((await slack.resend(again)).status).toBe(401);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(seen()).toBe(answered + 1);
    }
    expect(await store.queuedCommandCount()).toBe(before + 1);
  });
});
