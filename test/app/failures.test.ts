import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/fake-slack/fake-slack.ts';
import { eventually, type RunningBot, startBot, tenderCommand } from '../support/bot.ts';
import { type FaultServer, startFaultServer } from '../support/fault-server.ts';

const MEMBER = 'U0MEMBER';
const CHANNEL = 'C0BIDS';
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-failures-'));

let faults: FaultServer;
let bot: RunningBot;
beforeAll(async () => {
  faults = await startFaultServer();
  bot = await startBot({
    serviceUrl: faults.baseUrl,
    defaultKey: 'pis_failure_test_0123456789abcdefghijklmnopqr',
    databasePath: join(dir, 'bot.db'),
  });
});
afterAll(async () => {
  await bot?.stop();
  await faults?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const command = (text: string) => tenderCommand(bot, MEMBER, CHANNEL, text, 15_000);
const textOf = (message: FakeMessage) => `${message.text} ${JSON.stringify(message.blocks)}`;
const emptyPage = {
  status: 200,
  body: { data: [], pagination: { limit: 5, offset: 0, total: 0, hasMore: false } },
};

describe('failures people understand', () => {
  it('turns a failing service into a sentence with a reference that is in the log, and Try again that works', async () => {
    faults.play([
      { status: 503, body: { status: 503, code: 'internal_error', detail: 'down', requestId: 'r1' } },
    ]);
    const failure = await command('search clean');
    const text = textOf(failure);
    expect(text).toContain('The procurement service failed to answer');
    const reference = /Reference: `([0-9a-f]{8})`/.exec(text)?.[1];
    expect(reference).toBeDefined();
    expect(bot.logs()).toContain(`"reference":"${reference}"`);
    expect(text).toContain('error/try_again');
    expect(text).not.toMatch(/\n\s+at /);

    faults.play([emptyPage]);
    await bot.slack.clickInMessage(MEMBER, failure, 'error/try_again');
    await eventually(
      () => textOf(failure).includes('No tenders match “clean”'),
      'the retried search in place',
      15_000,
    );
  }, 30_000);

  it('names the scope an admin must add, and offers no Try again for it', async () => {
    faults.play([
      {
        status: 403,
        body: {
          status: 403,
          code: 'missing_scope',
          detail: 'no',
          requiredScope: 'buyers:read',
          requestId: 'r2',
        },
      },
    ]);
    const message = await command('buyers');
    expect(textOf(message)).toContain(
      'lacks the scope `buyers:read`. An admin of your organisation must add it',
    );
    expect(textOf(message)).not.toContain('error/try_again');
  });

  it('tells people an expired key must be reconnected by an admin', async () => {
    faults.play([
      { status: 401, body: { status: 401, code: 'expired_api_key', detail: 'expired', requestId: 'r3' } },
    ]);
    expect(textOf(await command('saved'))).toContain(
      'has expired. A workspace admin must make a new key and run `/tender connect`',
    );
  });

  it('says when to retry after a rate limit', async () => {
    faults.play([
      {
        status: 429,
        headers: { 'retry-after': '45' },
        body: { status: 429, code: 'rate_limited', detail: 'slow', requestId: 'r4' },
      },
    ]);
    const message = await command('bookmarks');
    expect(textOf(message)).toContain('Try again in 45 seconds');
    expect(textOf(message)).toContain('error/try_again');
  });
});
