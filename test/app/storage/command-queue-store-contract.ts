import { expect, it } from 'vitest';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { at } from './contract-fixtures.ts';

/** What every CommandQueueStore must do (the queue of slash commands); `open` as in botStoreContract. */
export function commandQueueStoreContract(open: (name: string) => BotStore | Promise<BotStore>): void {
  it('keeps queued commands until answered: each claimed by one worker, oldest first, again once its lease ends', async () => {
    const one = await open('commands');
    const two = await open('commands');
    for (const [index, id] of ['c-1', 'c-2', 'c-3'].entries()) {
      await one.queueCommand({
        id,
        teamId: 'T1',
        body: JSON.stringify({ command: '/tender', text: `search ${id}` }),
        receivedAt: new Date(at.getTime() + index * 1000),
      });
    }
    expect(await one.queuedCommandCount()).toBe(3);
    const [first, second] = await Promise.all([
      one.claimCommands('worker-1', at, 30_000, 2),
      two.claimCommands('worker-2', at, 30_000, 2),
    ]);
    const claimed = [...first, ...second];
    expect(claimed.map((each) => each.id).sort()).toEqual(['c-1', 'c-2', 'c-3']);
    expect(new Set(claimed.map((each) => each.id)).size).toBe(3);
    // Oldest first within a claim; the body as queued; the attempt counted.
    const whole = first.length === 2 ? first : second;
    expect(whole[0]?.receivedAt.getTime()).toBeLessThan(whole[1]?.receivedAt.getTime() ?? 0);
    expect(claimed.find((each) => each.id === 'c-2')).toMatchObject({
      teamId: 'T1',
      body: JSON.stringify({ command: '/tender', text: 'search c-2' }),
      receivedAt: new Date(at.getTime() + 1000),
      attempts: 1,
    });
    // Held: nobody takes them until the lease ends, which a live worker's owner renews.
    expect(await one.claimCommands('worker-3', new Date(at.getTime() + 29_000), 30_000, 10)).toEqual([]);
    await two.renewCommands(['worker-1', 'worker-2', 'nobody'], new Date(at.getTime() + 40_000));
    expect(await one.claimCommands('worker-3', new Date(at.getTime() + 39_000), 30_000, 10)).toEqual([]);
    await two.renewCommands([], new Date(at.getTime() + 90_000));
    await one.finishCommands(['c-1']);
    expect(await two.queuedCommandCount()).toBe(2);
    const again = await two.claimCommands('worker-3', new Date(at.getTime() + 40_000), 30_000, 10);
    expect(again.map((each) => [each.id, each.attempts])).toEqual([
      ['c-2', 2],
      ['c-3', 2],
    ]);
    // A worker that died: what it held is free at once, for anyone.
    expect(await one.releaseCommands('worker-3')).toBe(2);
    expect(await one.releaseCommands('worker-3')).toBe(0);
    const released = await one.claimCommands('worker-4', new Date(at.getTime() + 41_000), 30_000, 1);
    expect(released.map((each) => each.id)).toEqual(['c-2']);
    await one.finishCommands(['c-2', 'c-3']);
    expect(await one.queuedCommandCount()).toBe(0);
    // Stored already claimed (a worker had room): nobody else takes it while the lease lasts.
    await one.queueCommand({
      id: 'c-d',
      teamId: null,
      body: '{}',
      receivedAt: at,
      owner: 'worker-6',
      leaseUntil: new Date(at.getTime() + 60_000),
    });
    expect(await two.claimCommands('worker-7', new Date(at.getTime() + 59_000), 30_000, 10)).toEqual([]);
    expect(await two.claimCommands('worker-7', new Date(at.getTime() + 60_000), 30_000, 10)).toMatchObject([
      { id: 'c-d', teamId: null, attempts: 2 },
    ]);
    await one.finishCommands(Array.from({ length: 250 }, (_, index) => `none-${index}`).concat('c-d'));
    expect(await one.queuedCommandCount()).toBe(0);
    expect(await one.claimCommands('worker-5', new Date(at.getTime() + 120_000), 30_000, 10)).toEqual([]);
    await one.close();
    await two.close();
  });
}
