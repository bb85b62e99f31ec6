import { expect, it } from 'vitest';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
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
}
