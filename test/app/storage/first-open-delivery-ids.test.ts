import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { at, later, subscription } from './contract-fixtures.ts';

// What the job queue offers on PostgreSQL (pg-boss-queue.ts): only the delivery each channel
// could post next, so a channel's later posts take no turn before their time. And planning a batch
// (one statement on PostgreSQL) by two copies at once: each subscription planned once. On both databases.

const postgres: TestDatabase[] = [];
afterAll(async () => {
  for (const database of postgres) await database.drop();
});

const databases: [string, () => Promise<() => BotStore>][] = [
  [
    'SQLite',
    async () => {
      const path = join(mkdtempSync(join(tmpdir(), 'tenderbot-first-open-')), 'bot.db');
      return () => openBotStore(`sqlite:${path}`);
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const database = await createTestDatabase('first_open');
      postgres.push(database);
      return () => openBotStore(database.url);
    },
  ],
];

describe.each(databases)('deliveries on %s', (_name, database) => {
  it('offers and claims past a first delivery that waits (a retry after a failed read), and never past a half-sent one', async () => {
    const store = (await database())();
    for (const id of ['w-1', 'w-2', 'w-3']) await store.createSubscription(subscription(id, 'CW'));
    await store.addManualDelivery({ id: 'dw-1', subscriptionId: 'w-1', dueAt: at });
    await store.addManualDelivery({ id: 'dw-2', subscriptionId: 'w-2', dueAt: later(1) });
    await store.addManualDelivery({ id: 'dw-3', subscriptionId: 'w-3', dueAt: later(2) });
    // dw-1's content could not be read: it waits two minutes; the channel's next go meanwhile.
    expect(await store.claimChannelsOf(['dw-1'], 'A', later(2), 60_000, 0)).toMatchObject([{ id: 'dw-1' }]);
    expect(await store.releaseDelivery('dw-1', 'A', later(120_000), false)).toBe(true);
    expect(await store.firstOpenDeliveryIds(later(5), 10)).toEqual(['dw-2']);
    expect(await store.claimChannelsOf(['dw-2'], 'B', later(5), 60_000, 0)).toMatchObject([{ id: 'dw-2' }]);
    // dw-2 half sent and given back until later: nothing of its channel is offered or claimed.
    await store.markAttempt('dw-2', 'B', 0, later(5), 60_000);
    expect(await store.releaseDelivery('dw-2', 'B', later(60_000), true)).toBe(true);
    expect(await store.firstOpenDeliveryIds(later(200_000), 10)).toEqual(['dw-2']);
    expect(await store.firstOpenDeliveryIds(later(10), 10)).toEqual([]);
    expect(await store.claimDeliveries('C', later(10), 60_000, 10, [], 0, 3)).toEqual([]);
    await store.close();
  });

  it('lists the first open delivery of each channel by a time, none behind another or one under way', async () => {
    const store = (await database())();
    for (const [id, channel] of [
      ['s-1', 'C1'],
      ['s-2', 'C1'],
      ['s-3', 'C2'],
      ['s-4', 'C3'],
    ] as const)
      await store.createSubscription(subscription(id, channel));
    // C1: two at the same time (the lower id first), then a later one; C2 one; C3 one due later.
    await store.addManualDelivery({ id: 'd-1b', subscriptionId: 's-2', dueAt: at });
    await store.addManualDelivery({ id: 'd-1a', subscriptionId: 's-1', dueAt: at });
    await store.addManualDelivery({ id: 'd-1c', subscriptionId: 's-1', dueAt: later(1) });
    await store.addManualDelivery({ id: 'd-2', subscriptionId: 's-3', dueAt: at });
    await store.addManualDelivery({ id: 'd-3', subscriptionId: 's-4', dueAt: later(5000) });
    expect(await store.firstOpenDeliveryIds(later(5), 10)).toEqual(['d-1a', 'd-2']);
    expect(await store.firstOpenDeliveryIds(later(5), 1)).toEqual(['d-1a']);
    expect(await store.firstOpenDeliveryIds(later(5000), 10)).toEqual(['d-1a', 'd-2', 'd-3']);
    // C1's first is under way (a live lease): nothing of C1 is offered; once it is sent, the next is.
    expect(await store.claimChannelsOf(['d-1a'], 'A', at, 60_000, 0)).toMatchObject([{ id: 'd-1a' }]);
    expect(await store.firstOpenDeliveryIds(later(5), 10)).toEqual(['d-2']);
    expect(await store.finishDelivery('d-1a', 'A', { state: 'empty', outcome: null })).toBe(true);
    expect(await store.firstOpenDeliveryIds(later(5), 10)).toEqual(['d-1b', 'd-2']);
    // Its lease ended (the copy stopped): the working one is offered again, still before the rest.
    expect(await store.claimChannelsOf(['d-1b'], 'A', later(5), 1000, 0)).toMatchObject([{ id: 'd-1b' }]);
    expect(await store.firstOpenDeliveryIds(later(10), 10)).toEqual(['d-2']);
    expect(await store.firstOpenDeliveryIds(later(2000), 10)).toEqual(['d-1b', 'd-2']);
    await store.close();
  });

  it('plans a batch once when two copies plan it at the same moment', async () => {
    const open = await database();
    const [one, two] = [open(), open()];
    const ids = Array.from({ length: 40 }, (_, index) => `s-${String(index).padStart(2, '0')}`);
    for (const [index, id] of ids.entries()) await one.createSubscription(subscription(id, `C${index % 7}`));
    const plans = (copy: string) =>
      ids.map((id) => ({
        subscriptionId: id,
        expectedNextRunAt: at,
        nextRunAt: later(86_400_000),
        skipped: 1,
        delivery: { id: `${copy}-${id}`, dueAt: at },
      }));
    const planned = await Promise.all([one.planDeliveries(plans('one')), two.planDeliveries(plans('two'))]);
    expect(planned[0] + planned[1]).toBe(ids.length);
    for (const id of ids) {
      const deliveries = await two.subscriptionDeliveries(id);
      expect(deliveries.map((delivery) => delivery.dueAt)).toEqual([at]);
      expect((await two.getSubscription('T1', id))?.nextRunAt).toEqual(later(86_400_000));
      expect((await two.getSubscription('T1', id))?.skippedCount).toBe(1);
    }
    // Read at a next run it no longer has: nothing moves, nothing is planned.
    expect(await one.planDeliveries(plans('again'))).toBe(0);
    await one.close();
    await two.close();
  });
});
