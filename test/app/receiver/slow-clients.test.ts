import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardedReceiver } from '../../../src/app/receiver/guarded-receiver.ts';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
import { SLOW_CLIENT_LIMITS } from '../../../src/shared/slow-clients.ts';
import {
  realRequestsWhileSlow,
  startSlowClients,
  TEST_SLOW_CLIENT_LIMITS,
  tricklingBody,
  tricklingHeaders,
} from '../../support/slow-clients.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-receiver-slow-'));
let store: BotStore;
let receiver: GuardedReceiver;

beforeAll(async () => {
  store = openBotStore(`sqlite:${join(dir, 'bot.db')}`);
  receiver = new GuardedReceiver({
    signingSecret: 'signing-secret-value',
    store,
    logger: pino({ level: 'silent' }),
    slowClientLimits: TEST_SLOW_CLIENT_LIMITS,
  });
  await receiver.start(0);
});
afterAll(async () => {
  await receiver?.stop();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the bot's HTTP receiver with clients that send a byte at a time", () => {
  it('closes 200 such connections, headers or body trickling, while /healthz goes on answering', async () => {
    const port = receiver.port ?? 0;
    const slow = startSlowClients(
      port,
      [
        ...Array.from({ length: 100 }, () => tricklingHeaders('/slack/events')),
        ...Array.from({ length: 100 }, () => tricklingBody('/slack/events')),
      ],
      // Far more ticks than the limits let through: a connection still open after them outlasted.
      { tickMs: 200, maxTicks: 50 },
    );
    const { run, real } = await realRequestsWhileSlow(slow, [
      async () => {
        const health = await request(`http://127.0.0.1:${port}/healthz`);
        await health.body.dump();
        return health.statusCode;
      },
    ]);

    expect({
      closedByServer: run.closedByServer,
      outlasted: run.outlasted,
      neverConnected: run.neverConnected,
    }).toEqual({ closedByServer: 200, outlasted: 0, neverConnected: 0 });
    // Node's own answer to a request that took too long.
    expect(run.answers.filter((answer) => answer.startsWith('HTTP/1.1 408')).length).toBe(200);
    expect(real.length).toBeGreaterThan(0);
    expect(real.filter((answer) => answer.status !== 200)).toEqual([]);
    expect(real.some((answer) => answer.slowOpen === 200)).toBe(true);
  });

  it('has the limits without being told them', async () => {
    const plain = new GuardedReceiver({ signingSecret: 's', store, logger: pino({ level: 'silent' }) });
    const server = await plain.start(0);
    try {
      expect({ headers: server.headersTimeout, request: server.requestTimeout }).toEqual({
        headers: SLOW_CLIENT_LIMITS.headersMs,
        request: SLOW_CLIENT_LIMITS.requestMs,
      });
    } finally {
      await plain.stop();
    }
  });
});
