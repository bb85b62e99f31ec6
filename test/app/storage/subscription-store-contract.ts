import { expect, it } from 'vitest';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import type { ChannelSubscribing, ChannelSubscription } from '../../../src/app/storage/subscription-store.ts';
import { at, later, subscription } from './contract-fixtures.ts';

/** What every SubscriptionStore must do (subscriptions (their deliveries with them)); `open` as in botStoreContract. */
export function subscriptionStoreContract(open: (name: string) => BotStore | Promise<BotStore>): void {
  it('keeps subscriptions per channel, refuses a taken id, and removes one with its deliveries', async () => {
    const store = await open('subscriptions');
    expect(await store.createSubscription(subscription('s-1'))).toBe(true);
    expect(await store.createSubscription(subscription('s-1', 'C2'))).toBe(false);
    expect(await store.createSubscription(subscription('s-2'))).toBe(true);
    expect(await store.createSubscription(subscription('s-3', 'C2'))).toBe(true);
    expect((await store.channelSubscriptions('T1', 'C1')).map((each) => each.id)).toEqual(['s-1', 's-2']);
    expect(await store.getSubscription('T1', 's-3')).toEqual(subscription('s-3', 'C2'));
    expect(await store.getSubscription('T2', 's-3')).toBeNull();
    expect(await store.addManualDelivery({ id: 'd-1', subscriptionId: 's-1', dueAt: at })).toBe(true);
    expect(await store.removeSubscription('T2', 's-1')).toBe(false);
    expect(await store.removeSubscription('T1', 's-1')).toBe(true);
    expect(await store.getDelivery('d-1')).toBeNull();
    expect(await store.getSubscription('T1', 's-1')).toBeNull();
    await store.close();
  });

  it('pauses a channel once, failing what it had still to post, and resumes a subscription', async () => {
    const one = await open('pausing');
    const two = await open('pausing');
    await one.createSubscription(subscription('s-1'));
    await one.createSubscription(subscription('s-2', 'C2'));
    await one.addManualDelivery({ id: 'd-1', subscriptionId: 's-1', dueAt: at });
    const paused = await one.pauseChannel('T1', 'C1', 'archived');
    expect(paused.map((each) => each.id)).toEqual(['s-1']);
    expect(await two.pauseChannel('T1', 'C1', 'archived')).toEqual([]);
    expect(await one.getDelivery('d-1')).toMatchObject({ state: 'failed' });
    expect((await one.dueSubscriptions(later(1), 10)).map((each) => each.id)).toEqual(['s-2']);
    expect(await one.planDelivery('s-1', at, later(10), 0, { id: 'd-x', dueAt: at })).toBe(false);
    expect(await two.resumeSubscription('T1', 's-1', later(5))).toBe(true);
    expect(await two.resumeSubscription('T1', 's-1', later(5))).toBe(false);
    expect(await one.getSubscription('T1', 's-1')).toMatchObject({ pausedReason: null, nextRunAt: later(5) });
    await one.close();
    await two.close();
  });

  it('subscribes a channel from what it already has, with whose key each reads: creates, changes or keeps one', async () => {
    const store = await open('subscribing');
    await store.savePersonalKey({
      teamId: 'T1',
      userId: 'U2',
      encryptedApiKey: 'v1:u2',
      serviceUrl: null,
      connectedAt: at,
    });
    const seen: ChannelSubscription[][] = [];
    const decideOnce = (decision: (existing: readonly ChannelSubscription[]) => ChannelSubscribing) =>
      store.subscribeChannel('T1', 'C1', (existing) => {
        seen.push([...existing]);
        return decision(existing);
      });
    const first = subscription('s-1');
    expect(await decideOnce(() => ({ create: first }))).toEqual({ create: first });
    expect(await decideOnce(() => ({ create: { ...subscription('s-2'), createdBy: 'U2' } }))).toMatchObject({
      create: { id: 's-2' },
    });
    // A taken id stores nothing: the caller decides again with another.
    expect(await decideOnce(() => ({ create: subscription('s-1', 'C1') }))).toBeNull();
    expect(seen.at(-1)?.map((each) => [each.subscription.id, each.creatorHasOwnKey])).toEqual([
      ['s-1', false],
      ['s-2', true],
    ]);
    // A change replaces what it follows and when it posts, and nothing else (its cursor, its pause).
    await store.pauseChannel('T1', 'C1', 'archived');
    const changed = {
      ...first,
      target: '{"p":"pl-1","n":"Renamed"}',
      cadence: 'weekly' as const,
      localTime: '08:30',
      timeZone: 'Asia/Tokyo',
      nextRunAt: later(5),
      createdBy: 'U9',
      cursor: 'ignored',
    };
    const before = (await store.getSubscription('T1', 's-1')) as NonNullable<
      Awaited<ReturnType<BotStore['getSubscription']>>
    >;
    expect(await decideOnce(() => ({ change: changed }))).toEqual({ change: changed, before });
    expect(await store.getSubscription('T1', 's-1')).toEqual({
      ...before,
      target: changed.target,
      cadence: 'weekly',
      localTime: '08:30',
      timeZone: 'Asia/Tokyo',
      nextRunAt: later(5),
    });
    const kept = (await store.getSubscription('T1', 's-1')) as NonNullable<
      Awaited<ReturnType<BotStore['getSubscription']>>
    >;
    expect(await decideOnce(() => ({ keep: kept }))).toEqual({ keep: kept });
    // One that is gone by the time it is changed is not made again: the caller decides again.
    expect(await decideOnce(() => ({ change: { ...kept, id: 's-gone' } }))).toBeNull();
    expect((await store.channelSubscriptions('T1', 'C1')).map((each) => each.id)).toEqual(['s-1', 's-2']);
    await store.close();
  });

  it('keeps a channel’s duplicates from before, and stores one of two subscribes at the same moment', async () => {
    const one = await open('subscribing-at-once');
    const two = await open('subscribing-at-once');
    // Two alike from before the rule: both stay, and both are seen.
    expect(await one.createSubscription(subscription('s-old-1', 'C0'))).toBe(true);
    expect(await one.createSubscription(subscription('s-old-2', 'C0'))).toBe(true);
    const seen = await one.subscribeChannel('T1', 'C0', (existing) => ({
      keep: (existing[0] as ChannelSubscription).subscription,
    }));
    expect(seen).toMatchObject({ keep: { id: 's-old-1' } });
    expect((await two.channelSubscriptions('T1', 'C0')).map((each) => each.id)).toEqual([
      's-old-1',
      's-old-2',
    ]);
    // Copies subscribing channels at once, each creating only where the channel has none yet.
    const channels = ['C1', 'C2', 'C3', 'C4'];
    await Promise.all(
      channels.flatMap((channelId) =>
        Array.from({ length: 6 }, (_, index) =>
          (index % 2 ? one : two).subscribeChannel('T1', channelId, (existing) =>
            existing[0]
              ? { keep: existing[0].subscription }
              : { create: subscription(`s-${channelId}-${index}`, channelId) },
          ),
        ),
      ),
    );
    for (const channelId of channels) expect(await one.channelSubscriptions('T1', channelId)).toHaveLength(1);
    await one.close();
    await two.close();
  });
}
