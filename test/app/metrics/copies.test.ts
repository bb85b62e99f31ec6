import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotConfig } from '../../../src/app/config.ts';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
import { type BotApp, composeBot } from '../../../src/cli/compose-bot.ts';
import { FakeSlack } from '../../../src/fake-slack/fake-slack.ts';
import { eventually, inProcessBotConfig } from '../../support/bot.ts';

// Two copies of the app in one process, each with METRICS_COPY: each shows its own metrics on its
// own port, labelled with its own name, and a request to one moves nothing in the other's.

const signingSecret = randomBytes(12).toString('hex');
const botToken = `xoxb-test-${randomBytes(8).toString('hex')}`;
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-metrics-copies-'));
let slack: FakeSlack;
const copies: { name: string; bot: BotApp; store: BotStore; port: number }[] = [];

beforeAll(async () => {
  slack = await new FakeSlack({ signingSecret, botToken }).start();
  for (const name of ['eu-west-1a', 'eu-west-1b']) {
    const config = {
      ...inProcessBotConfig(slack, { signingSecret, botToken }, join(dir, `${name}.db`)),
      METRICS_COPY: name,
    };
    const store = openBotStore(config.DATABASE_URL);
    const bot = composeBot({ config, store, logger: pino({ level: 'silent' }), scheduler: { pollMs: null } });
    copies.push({ name, bot, store, port: (await bot.start()) as number });
  }
  slack.appUrl = `http://127.0.0.1:${copies[0]?.port}/slack/events`;
});

afterAll(async () => {
  for (const copy of copies) {
    await copy.bot.stop();
    await copy.store.close();
  }
  await slack?.stop();
});

/** `name{labels} value` lines of one copy's /metrics, for one metric name. */
async function series(port: number, name: string): Promise<{ labels: string; value: number }[]> {
  const answer = await request(`http://127.0.0.1:${port}/metrics`);
  expect(answer.statusCode).toBe(200);
  const text = await answer.body.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`))
    .map((line) => {
      const [labels = '', value = ''] = line.slice(name.length + 1).split('} ');
      return { labels, value: Number(value) };
    });
}

describe('several copies of the app', () => {
  it('each shows its own metrics, labelled with its METRICS_COPY', async () => {
    const [first, second] = copies;
    if (!first || !second) throw new Error('two copies were not started');
    const user = slack.users[0]?.id ?? '';
    const channel = slack.channels[0]?.id ?? '';
    const before = slack.messagesIn(channel, user).length;
    const sent = await slack.slashCommand(user, channel, '/tender', 'help');
    expect(sent.status).toBe(200);
    await eventually(() => slack.answerTo(sent, channel, user, before), 'the answer to /tender help');

    const count = 'tenderbot_acknowledgement_seconds_count';
    const firstAcks = await series(first.port, count);
    expect(firstAcks).toEqual([{ labels: 'copy="eu-west-1a",kind="command"', value: 1 }]);
    // The other copy received nothing: no acknowledgement of any kind.
    expect(await series(second.port, count)).toEqual([]);
    const planned = await series(second.port, 'tenderbot_deliveries_planned_total');
    expect(planned).toEqual([{ labels: 'copy="eu-west-1b"', value: 0 }]);
  });

  it('refuses a METRICS_COPY that could not be a label value as it is', () => {
    const valid = { ...inProcessBotConfig(slack, { signingSecret, botToken }, join(dir, 'any.db')) };
    expect(BotConfig.safeParse({ ...valid, METRICS_COPY: 'eu-west-1a' }).success).toBe(true);
    for (const bad of ['', 'two words', 'quote"d', 'x'.repeat(65)])
      expect(BotConfig.safeParse({ ...valid, METRICS_COPY: bad }).success).toBe(false);
  });
});
