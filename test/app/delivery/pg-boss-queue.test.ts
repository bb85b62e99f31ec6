import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import PgBoss from 'pg-boss';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { channelPostsBossOptions, PgBossQueue } from '../../../src/app/delivery/pg-boss-queue.ts';
import { openPostgresBotDatabase } from '../../../src/app/storage/bot-database.ts';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
import type { Subscription } from '../../../src/app/storage/subscription-store.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';

/**
 * The job queue on a real PostgreSQL (pg-boss's own tables) with the deliveries in a real bot store:
 * two copies offering and claiming at once, and a copy that stops answering.
 */
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-pg-boss-'));
let database: TestDatabase;
/** Each test's deliveries in a store of its own (a failed test leaves nothing for the next). */
let store: BotStore;
let stores = 0;
const logger = pino({ level: 'silent' });
const at = new Date('2027-03-01T09:00:00Z');

beforeAll(async () => {
  database = await createTestDatabase('queue');
});
beforeEach(async () => {
  await store?.close();
  store = await openBotStore(`sqlite:${join(dir, `bot-${++stores}.db`)}`);
});
afterAll(async () => {
  await store?.close();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** `perChannel` deliveries due at `at` in each of `channels` new channels; their ids. */
async function plan(channels: number, perChannel: number): Promise<string[]> {
  const ids: string[] = [];
  const run = randomBytes(3).toString('hex');
  for (let channel = 0; channel < channels; channel++) {
    for (let index = 0; index < perChannel; index++) {
      const subscription: Subscription = {
        id: `s-${run}-${channel}-${index}`,
        teamId: 'T1',
        channelId: `C${run}${channel}`,
        kind: 'pipeline',
        target: '{"p":"pl-1"}',
        cadence: 'daily',
        localTime: '09:00',
        timeZone: 'UTC',
        createdBy: 'U1',
        createdAt: at,
        pausedReason: null,
        nextRunAt: at,
        cursor: null,
        skippedCount: 0,
      };
      expect(await store.createSubscription(subscription)).toBe(true);
      const id = randomUUID();
      ids.push(id);
      await store.planDeliveries([
        {
          subscriptionId: subscription.id,
          expectedNextRunAt: at,
          nextRunAt: new Date(at.getTime() + 86_400_000),
          skipped: 0,
          delivery: { id, dueAt: at },
        },
      ]);
    }
  }
  return ids;
}

function queue(): PgBossQueue {
  return new PgBossQueue({
    connectionString: database.url,
    store,
    logger,
    expireInSeconds: 30,
    schema: 'pgboss',
  });
}

/** One claim as the scheduler asks it: `limit` deliveries under a lease of `leaseMs`, none ahead. */
function claimAs(copy: PgBossQueue, owner: string, now: Date, leaseMs: number, limit: number) {
  return copy.claim({ owner, now, leaseMs, limit, busyChannels: [], aheadMs: 0, perChannel: 1 });
}

describe('channel posts on pg-boss', () => {
  it('a job is its channel’s turn: a claim takes whole runs, as many channels as asked, in each one’s order', async () => {
    const ids = await plan(4, 3);
    const [first, second] = [queue(), queue()];
    if (!first || !second) throw new Error('no queues');
    await Promise.all([first.start(), second.start()]);
    try {
      await first.offer(at);
      const claim = (copy: PgBossQueue, owner: string) =>
        copy.claim({
          owner,
          now: at,
          leaseMs: 60_000,
          limit: 2,
          busyChannels: [],
          aheadMs: 0,
          perChannel: 3,
        });
      const one = await claim(first, 'copy-1');
      const two = await claim(second, 'copy-2');
      for (const claimed of [one, two]) {
        // Two channels each, all three of each, in the channel's order (all due at once: by id).
        expect(claimed).toHaveLength(6);
        const channels = [...new Set(claimed.map((delivery) => delivery.channelId))];
        expect(channels).toHaveLength(2);
        for (const channel of channels) {
          const run = claimed
            .filter((delivery) => delivery.channelId === channel)
            .map((delivery) => delivery.id);
          expect(run).toEqual([...run].sort());
        }
      }
      expect([...one, ...two].map((delivery) => delivery.id).sort()).toEqual([...ids].sort());
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });

  it('two copies offering and claiming at once: each delivery claimed once, one at a time per channel', async () => {
    const ids = await plan(6, 3);
    const copies = [queue(), queue()];
    await Promise.all(copies.map((copy) => copy.start()));
    const claimedBy = new Map<string, string[]>();
    let now = at;
    // Rounds: both copies offer and claim at the same instant (three at most each, so that neither
    // takes every job), then finish what they claimed.
    for (let round = 0; round < 20 && claimedBy.size < ids.length; round++) {
      await Promise.all(copies.map((copy) => copy.offer(now)));
      const claims = await Promise.all(
        copies.map((copy, index) => claimAs(copy, `copy-${index}`, now, 60_000, 3)),
      );
      const channels = claims.flat().map((delivery) => delivery.channelId);
      // Never two deliveries of one channel at once, whichever copy holds them.
      expect(new Set(channels).size).toBe(channels.length);
      for (const [index, claimed] of claims.entries()) {
        for (const delivery of claimed) {
          claimedBy.set(delivery.id, [...(claimedBy.get(delivery.id) ?? []), `copy-${index}`]);
          expect(
            await store.finishDelivery(delivery.id, `copy-${index}`, { state: 'sent', outcome: null }),
          ).toBe(true);
          await copies[index]?.done(delivery.id);
        }
      }
      now = new Date(now.getTime() + 1000);
    }
    expect([...claimedBy.keys()].sort()).toEqual([...ids].sort());
    expect([...claimedBy.values()].filter((owners) => owners.length > 1)).toEqual([]);
    // Both copies took part (pg-boss hands jobs to whoever fetches first).
    expect(new Set([...claimedBy.values()].flat()).size).toBe(2);
    await Promise.all(copies.map((copy) => copy.stop()));
  });

  it('a copy that stops answering: its delivery goes to the other once its lease ends, and only then', async () => {
    const [id] = await plan(1, 1);
    const dead = queue();
    const alive = queue();
    await dead.start();
    await alive.start();
    await dead.offer(at);
    const taken = await claimAs(dead, 'dead', at, 5000, 10);
    expect(taken.map((delivery) => delivery.id)).toEqual([id]);
    // While the lease lasts, nothing is offered or claimed by the other copy.
    const during = new Date(at.getTime() + 4000);
    await alive.offer(during);
    expect(await claimAs(alive, 'alive', during, 5000, 10)).toEqual([]);
    // After it, the delivery is offered again and the other copy takes it over (and settles it).
    const after = new Date(at.getTime() + 6000);
    await alive.offer(after);
    const takenOver = await claimAs(alive, 'alive', after, 5000, 10);
    expect(takenOver.map((delivery) => [delivery.id, delivery.leaseOwner])).toEqual([[id, 'alive']]);
    // The dead copy can no longer write about it.
    expect(await store.finishDelivery(id as string, 'dead', { state: 'sent', outcome: null })).toBe(false);
    expect(await store.finishDelivery(id as string, 'alive', { state: 'sent', outcome: null })).toBe(true);
    await alive.done(id as string);
    await alive.stop();
    await dead.stop();
  });
});

describe('commits that need not wait for the disk', () => {
  it('the jobs and the recoverable writes do not wait for the log flush; the attempt mark and the rest do', async () => {
    // The URL's own options are kept beside the setting (a search path, as a deployment may set).
    const url = `${database.url}?options=${encodeURIComponent('-c search_path=public')}`;
    const bot = openPostgresBotDatabase(url);
    await bot.ready;
    const setting = async (db: typeof bot.db) =>
      (
        await sql<{ synchronous_commit: string; search_path: string }>`select
          current_setting('synchronous_commit') as synchronous_commit,
          current_setting('search_path') as search_path`.execute(db)
      ).rows[0];
    expect(await setting(bot.db)).toEqual({ synchronous_commit: 'on', search_path: 'public' });
    if (!bot.recoverableDb) throw new Error('PostgreSQL has recoverable writes');
    expect(await setting(bot.recoverableDb)).toEqual({ synchronous_commit: 'off', search_path: 'public' });
    await bot.close();

    const boss = new PgBoss(channelPostsBossOptions({ connectionString: url, schema: 'pgboss_sync_check' }));
    await boss.start();
    try {
      const result = (await boss
        .getDb()
        .executeSql(
          "select current_setting('synchronous_commit') as synchronous_commit, current_setting('search_path') as search_path",
          [],
        )) as unknown as { rows: { synchronous_commit: string; search_path: string }[] };
      const row = result.rows[0];
      expect(row).toEqual({ synchronous_commit: 'off', search_path: 'public' });
    } finally {
      await boss.stop({ graceful: false, close: true });
    }
  });
});
