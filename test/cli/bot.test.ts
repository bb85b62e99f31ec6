import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BotStore } from '../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../src/app/storage/open-bot-store.ts';
import { type RequestWork, stopGracefully, trackRequests } from '../../src/cli/bot.ts';
import { type BotApp, composeBot } from '../../src/cli/compose-bot.ts';
import { FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import { eventually, inProcessBotConfig } from '../support/bot.ts';

// The graceful stop of `tenderbot bot` (src/cli/bot.ts), on the real Bolt app and receiver: a
// listener's work after its acknowledgement (here an answer at the response_url) finishes before
// the app's clients close. test/deploy/two-copies.test.ts runs the same stop in a process behind nginx.

const signingSecret = randomBytes(12).toString('hex');
const botToken = `xoxb-test-${randomBytes(8).toString('hex')}`;
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-main-'));
const logger = pino({ level: 'silent' });
let slack: FakeSlack;
const stores: BotStore[] = [];

beforeAll(async () => {
  slack = await new FakeSlack({ signingSecret, botToken }).start();
});

afterAll(async () => {
  for (const store of stores) await store.close();
  await slack?.stop();
});

/** An app whose `/probe` acknowledges at once, then waits for `release()` before it answers. */
async function probeApp(name: string) {
  const config = inProcessBotConfig(slack, { signingSecret, botToken }, join(dir, `${name}.db`));
  const store = openBotStore(config.DATABASE_URL);
  stores.push(store);
  const bot: BotApp = composeBot({ config, store, logger, scheduler: { pollMs: null } });
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let acknowledged = false;
  bot.app.command('/probe', async ({ ack, respond }) => {
    await ack();
    acknowledged = true;
    await released;
    await respond({ text: `${name} answered after the stop began` });
  });
  const work: RequestWork = trackRequests(bot.app);
  const port = (await bot.start()) as number;
  slack.appUrl = `http://127.0.0.1:${port}/slack/events`;
  return { bot, work, port, release, acknowledged: () => acknowledged };
}

function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('the graceful stop', () => {
  it('stops taking connections at once and finishes the work a request does after its answer', async () => {
    const probe = await probeApp('graceful');
    const answer = await slack.slashCommand('U0MEMBER', 'C0BIDS', '/probe', '');
    expect(answer.status).toBe(200);
    await eventually(probe.acknowledged, 'the command acknowledged');
    expect(probe.work.inFlight).toBe(1);

    const stopping = stopGracefully(probe.bot, probe.work, logger, 'SIGTERM', 25_000);
    while (!(await refuses(probe.port))) await new Promise((resolve) => setTimeout(resolve, 20));
    // Still waiting for the listener: nothing has been closed under it.
    expect(probe.work.inFlight).toBe(1);
    probe.release();
    expect(await stopping).toBe(true);
    expect(probe.work).toMatchObject({ inFlight: 0, served: 1 });
    expect(slack.messagesIn('C0BIDS', 'U0MEMBER').map((message) => message.text)).toContain(
      'graceful answered after the stop began',
    );
  });

  it('gives up on work that outlasts the deadline, closes everything and says so', async () => {
    const probe = await probeApp('stuck');
    expect((await slack.slashCommand('U0MEMBER', 'C0BIDS', '/probe', '')).status).toBe(200);
    await eventually(probe.acknowledged, 'the command acknowledged');
    expect(await stopGracefully(probe.bot, probe.work, logger, 'SIGTERM', 200)).toBe(false);
    expect(await refuses(probe.port)).toBe(true);
    expect(probe.work.inFlight).toBe(1);
    probe.release();
  });
});
