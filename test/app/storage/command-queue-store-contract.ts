import { expect, it } from 'vitest';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { at } from './contract-fixtures.ts';

/** What every CommandQueueStore must do (the queue of slash commands); `open` as in botStoreContract. */
export function commandQueueStoreContract(open: (name: string) => BotStore | Promise<BotStore>): void {
  let signed = 0;
  /** The signed request that carried a command: each new unless given. */
  const request = (id = `signature:v0=${signed++}`) => ({
    id,
    expiresAt: new Date(at.getTime() + 6 * 60_000),
    now: at,
  });

  it('keeps queued commands until answered: each claimed by one worker, oldest first, again once its lease ends', async () => {
    const one = await open('commands');
    const two = await open('commands');
    for (const [index, id] of ['c-1', 'c-2', 'c-3'].entries()) {
      expect(
        await one.queueCommand(
          {
            id,
            teamId: 'T1',
            body: JSON.stringify({ command: '/tender', text: `search ${id}` }),
            receivedAt: new Date(at.getTime() + index * 1000),
          },
          request(),
        ),
      ).toBe(true);
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
    await two.renewCommands(
      { owners: ['worker-1', 'worker-2', 'nobody'], ids: ['c-1', 'c-2', 'c-3', 'c-unknown'] },
      new Date(at.getTime() + 40_000),
    );
    expect(await one.claimCommands('worker-3', new Date(at.getTime() + 39_000), 30_000, 10)).toEqual([]);
    // Only what is named and held by an owner named is renewed.
    await two.renewCommands({ owners: [], ids: ['c-2', 'c-3'] }, new Date(at.getTime() + 90_000));
    await two.renewCommands({ owners: ['nobody'], ids: ['c-2', 'c-3'] }, new Date(at.getTime() + 90_000));
    await two.renewCommands({ owners: ['worker-1', 'worker-2'], ids: [] }, new Date(at.getTime() + 90_000));
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
    await one.queueCommand(
      {
        id: 'c-d',
        teamId: null,
        body: '{}',
        receivedAt: at,
        owner: 'worker-6',
        leaseUntil: new Date(at.getTime() + 60_000),
      },
      request(),
    );
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

  it('stores a command only with a request not seen before: remembered in the same write, all or nothing', async () => {
    const one = await open('command-requests');
    const two = await open('command-requests');
    const command = (id: string) => ({ id, teamId: 'T1', body: '{"text":"help"}', receivedAt: at });
    expect(await one.queueCommand(command('r-1'), request('signature:v0=r1'))).toBe(true);
    // The same request again, to this store or another on the same data: nothing stored.
    expect(await one.queueCommand(command('r-2'), request('signature:v0=r1'))).toBe(false);
    expect(
      await two.queueCommand(
        { ...command('r-3'), owner: 'worker-1', leaseUntil: at },
        request('signature:v0=r1'),
      ),
    ).toBe(false);
    expect(await two.queuedCommandCount()).toBe(1);
    // The request is remembered as rememberRequest remembers it, and the other way round.
    const until = new Date(at.getTime() + 6 * 60_000);
    expect(await two.rememberRequest('signature:v0=r1', until, at)).toBe(false);
    expect(await two.rememberRequest('signature:v0=r4', until, at)).toBe(true);
    expect(await one.queueCommand(command('r-4'), request('signature:v0=r4'))).toBe(false);
    // A command that cannot be stored (its id taken) leaves its request unseen: nothing half written.
    await expect(one.queueCommand(command('r-1'), request('signature:v0=r5'))).rejects.toThrow();
    expect(await two.rememberRequest('signature:v0=r5', until, at)).toBe(true);
    // Once the memory of a request expires, the same request is new again (its command stored).
    const later = new Date(until.getTime() + 1);
    expect(
      await one.queueCommand(command('r-6'), {
        id: 'signature:v0=r1',
        expiresAt: new Date(later.getTime() + 60_000),
        now: later,
      }),
    ).toBe(true);
    const claimed = await one.claimCommands('worker-2', later, 30_000, 10);
    expect(claimed.map((each) => each.id).sort()).toEqual(['r-1', 'r-6']);
    await one.close();
    await two.close();
  });
}
