import { expect, it } from 'vitest';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { at, later, subscription } from './contract-fixtures.ts';

/** What every DeliveryStore must do (deliveries: planning, claiming, freezing, recording, pruning); `open` as in botStoreContract. */
/** A post's usual finish: sent, its one part recorded, its channel paced until `paceUntil`. */
const sentPaced = (paceUntil: Date) => ({
  state: 'sent' as const,
  outcome: null,
  lastPart: { part: 0, ts: '1.000001' },
  paceUntil,
});

export function deliveryStoreContract(open: (name: string) => BotStore | Promise<BotStore>): void {
  it('plans one delivery per subscription and due time, whichever copy of the app plans it', async () => {
    const one = await open('planning');
    const two = await open('planning');
    await one.createSubscription(subscription('s-1'));
    expect((await two.dueSubscriptions(at, 10)).map((each) => each.id)).toEqual(['s-1']);
    expect((await two.dueSubscriptions(later(-1), 10)).length).toBe(0);
    const next = later(86_400_000);
    // Both copies saw it due; only the first moves it.
    expect(await one.planDelivery('s-1', at, next, 2, { id: 'd-a', dueAt: at })).toBe(true);
    expect(await two.planDelivery('s-1', at, next, 2, { id: 'd-b', dueAt: at })).toBe(false);
    expect((await two.subscriptionDeliveries('s-1')).map((each) => each.id)).toEqual(['d-a']);
    const moved = await two.getSubscription('T1', 's-1');
    expect(moved?.nextRunAt).toEqual(next);
    expect(moved?.skippedCount).toBe(2);
    expect(await two.getDelivery('d-a')).toMatchObject({
      state: 'pending',
      dueAt: at,
      manual: false,
      postedTs: [],
    });
    await one.close();
    await two.close();
  });

  it('claims a due delivery for one copy only, one per channel, and again once its lease ends', async () => {
    const one = await open('claims');
    const two = await open('claims');
    for (const [id, channel] of [
      ['s-1', 'C1'],
      ['s-2', 'C1'],
      ['s-3', 'C2'],
      ['s-4', 'C3'],
    ] as const) {
      await one.createSubscription(subscription(id, channel));
      await one.addManualDelivery({
        id: `d-${id}`,
        subscriptionId: id,
        dueAt: id === 's-4' ? later(5000) : at,
      });
    }
    const claimed = await one.claimDeliveries('A', at, 60_000, 10, ['C2']);
    // C1's first only (one at a time per channel), C2 busy in this copy, C3's not yet due.
    expect(claimed.map((each) => each.id)).toEqual(['d-s-1']);
    expect(claimed[0]).toMatchObject({ state: 'working', leaseOwner: 'A', attempts: 1 });
    expect(claimed[0]?.leaseUntil).toEqual(later(60_000));
    const other = await two.claimDeliveries('B', at, 60_000, 10, []);
    // C1 is being posted to by A: B takes C2 only.
    expect(other.map((each) => each.id)).toEqual(['d-s-3']);
    // Before A's lease ends only C3's, now due, is free.
    expect((await two.claimDeliveries('B', later(59_999), 60_000, 10, [])).map((each) => each.id)).toEqual([
      'd-s-4',
    ]);
    // A stopped answering: past the lease, B takes A's delivery over.
    const taken = await two.claimDeliveries('B', later(60_000), 60_000, 10, ['C2']);
    expect(taken.map((each) => each.id)).toEqual(['d-s-1']);
    expect(taken.find((each) => each.id === 'd-s-1')).toMatchObject({ leaseOwner: 'B', attempts: 2 });
    // A's late steps change nothing.
    expect(await one.markAttempt('d-s-1', 'A', 0, later(60_001), 60_000)).toBe(false);
    expect(await one.recordPart('d-s-1', 'A', 0, '1.000001')).toBe(false);
    expect(await one.finishDelivery('d-s-1', 'A', { state: 'sent', outcome: null })).toBe(false);
    expect(await one.releaseDelivery('d-s-1', 'A', at, false)).toBe(false);
    await one.close();
    await two.close();
  });

  it('freezes content once, reserves each item for one delivery, records parts in order, and finishes', async () => {
    const store = await open('freezing');
    await store.createSubscription(subscription('s-1'));
    await store.addManualDelivery({ id: 'd-1', subscriptionId: 's-1', dueAt: at });
    await store.addManualDelivery({ id: 'd-2', subscriptionId: 's-1', dueAt: later(1) });
    const [first] = await store.claimDeliveries('A', later(1), 60_000, 10, []);
    expect(first?.id).toBe('d-1');
    expect(await store.freezeDelivery('d-1', 'B', '{}', [])).toEqual({ ok: false, taken: [], lost: true });
    expect(await store.freezeDelivery('d-1', 'A', '{"parts":2}', ['tender:1', 'tender:2'])).toEqual({
      ok: true,
    });
    expect(await store.markAttempt('d-1', 'A', 0, later(2), 60_000)).toBe(true);
    expect(await store.getDelivery('d-1')).toMatchObject({
      attemptingPart: 0,
      attemptAt: later(2),
      frozen: '{"parts":2}',
    });
    expect(await store.recordPart('d-1', 'A', 1, '9.9')).toBe(false);
    expect(await store.recordPart('d-1', 'A', 0, '1.000001')).toBe(true);
    expect(await store.recordPart('d-1', 'A', 0, '1.000002')).toBe(false);
    // Half posted: given back until the channel's pace allows the next part, still first in its channel.
    expect(await store.releaseDelivery('d-1', 'A', later(1000), false)).toBe(true);
    expect(await store.claimDeliveries('A', later(2), 60_000, 10, [])).toEqual([]);
    const [again] = await store.claimDeliveries('A', later(1000), 60_000, 10, []);
    expect(again).toMatchObject({ id: 'd-1', postedTs: ['1.000001'], attemptingPart: null });
    expect(await store.recordPart('d-1', 'A', 1, '2.000001')).toBe(true);
    const cursor = { json: '{"w":2}', at: later(1000) };
    expect(await store.finishDelivery('d-1', 'A', { state: 'sent', outcome: null, cursor })).toBe(true);
    expect(await store.getDelivery('d-1')).toMatchObject({
      state: 'sent',
      postedTs: ['1.000001', '2.000001'],
    });
    expect((await store.getSubscription('T1', 's-1'))?.cursor).toBe('{"w":2}');
    // The second delivery cannot take an item the first posted.
    const [second] = await store.claimDeliveries('A', later(1001), 60_000, 10, []);
    expect(second?.id).toBe('d-2');
    expect(await store.freezeDelivery('d-2', 'A', '{}', ['tender:2', 'tender:3'])).toEqual({
      ok: false,
      taken: ['tender:2'],
      lost: false,
    });
    expect(await store.freezeDelivery('d-2', 'A', '{}', ['tender:3'])).toEqual({ ok: true });
    // An older cursor never replaces a newer one; a failed delivery gives its items back.
    expect(
      await store.finishDelivery('d-2', 'A', { state: 'failed', outcome: 'x', cursor: { json: 'old', at } }),
    ).toBe(true);
    expect((await store.getSubscription('T1', 's-1'))?.cursor).toBe('{"w":2}');
    await store.addManualDelivery({ id: 'd-3', subscriptionId: 's-1', dueAt: later(2000) });
    await store.claimDeliveries('A', later(2000), 60_000, 10, []);
    expect(await store.freezeDelivery('d-3', 'A', '{}', ['tender:3'])).toEqual({ ok: true });
    await store.close();
  });

  it('keeps a part marked as being sent when given back, so the next owner settles it first', async () => {
    const store = await open('unknown-outcome');
    await store.createSubscription(subscription('s-1'));
    await store.addManualDelivery({ id: 'd-1', subscriptionId: 's-1', dueAt: at });
    await store.claimDeliveries('A', at, 60_000, 10, []);
    await store.freezeDelivery('d-1', 'A', '{}', []);
    await store.markAttempt('d-1', 'A', 0, at, 60_000);
    expect(await store.releaseDelivery('d-1', 'A', later(30_000), true)).toBe(true);
    const [taken] = await store.claimDeliveries('B', later(30_000), 60_000, 10, []);
    expect(taken).toMatchObject({ id: 'd-1', leaseOwner: 'B', attemptingPart: 0, attemptAt: at });
    await store.close();
  });

  it('freezes content with the first attempt mark in one write, and writes neither once the lease is lost', async () => {
    const store = await open('freeze-with-attempt');
    await store.createSubscription(subscription('s-1'));
    await store.addManualDelivery({ id: 'd-1', subscriptionId: 's-1', dueAt: at });
    await store.claimDeliveries('A', at, 60_000, 10, []);
    expect(await store.markAttempt('d-1', 'B', 0, at, 60_000, later(5), '{"parts":1}')).toBe(false);
    expect(await store.getDelivery('d-1')).toMatchObject({ frozen: null, attemptingPart: null });
    expect(await store.markAttempt('d-1', 'A', 0, at, 60_000, later(5), '{"parts":1}')).toBe(true);
    expect(await store.getDelivery('d-1')).toMatchObject({
      frozen: '{"parts":1}',
      attemptingPart: 0,
      attemptAt: at,
    });
    // Given back with the part marked: the next owner finds the content as it was frozen.
    expect(await store.releaseDelivery('d-1', 'A', later(30_000), true)).toBe(true);
    const [taken] = await store.claimDeliveries('B', later(30_000), 60_000, 10, []);
    expect(taken).toMatchObject({ id: 'd-1', frozen: '{"parts":1}', attemptingPart: 0 });
    // Content is frozen once: a run that built its own while the lease was another's (and took the
    // delivery again since) replaces nothing, by either way of freezing.
    expect(await store.markAttempt('d-1', 'B', 0, later(30_001), 60_000, later(30_005), '{"parts":9}')).toBe(
      false,
    );
    expect(await store.freezeDelivery('d-1', 'B', '{"parts":8}', [])).toEqual({
      ok: false,
      taken: [],
      lost: true,
    });
    expect(await store.freezeDelivery('d-1', 'B', '{"parts":7}', ['tender:1'])).toEqual({
      ok: false,
      taken: [],
      lost: true,
    });
    expect(await store.getDelivery('d-1')).toMatchObject({ frozen: '{"parts":1}', attemptAt: at });
    // Its own mark, without content, settles and posts what was frozen.
    expect(await store.markAttempt('d-1', 'B', 0, later(30_002), 60_000)).toBe(true);
    await store.close();
  });

  it('claims a half-sent post before anything due earlier in its channel, and nothing else there meanwhile', async () => {
    const store = await open('half-sent-first');
    for (const id of ['s-1', 's-2', 's-3']) await store.createSubscription(subscription(id));
    await store.addManualDelivery({ id: 'd-split', subscriptionId: 's-1', dueAt: later(1000) });
    await store.claimDeliveries('A', later(1000), 60_000, 10, []);
    await store.freezeDelivery('d-split', 'A', '{}', []);
    await store.markAttempt('d-split', 'A', 0, later(1000), 60_000);
    expect(await store.recordPart('d-split', 'A', 0, '1.000001')).toBe(true);
    // Given back with its second part still to post; meanwhile two posts fall due earlier.
    expect(await store.releaseDelivery('d-split', 'A', later(2000), false)).toBe(true);
    await store.addManualDelivery({ id: 'd-early', subscriptionId: 's-2', dueAt: at });
    await store.addManualDelivery({ id: 'd-earlier', subscriptionId: 's-3', dueAt: later(-1000) });
    // The job queue's path (PostgreSQL) agrees: only the half-sent one is offered, and claimed by id.
    expect(await store.firstOpenDeliveryIds(later(2000), 10)).toEqual(['d-split']);
    const byJob = await store.claimChannelsOf(['d-earlier'], 'C', later(2000), 60_000, 0, 3);
    expect(byJob.map((delivery) => delivery.id)).toEqual(['d-split']);
    expect(await store.releaseDelivery('d-split', 'C', later(2000), false)).toBe(true);
    const claimed = await store.claimDeliveries('B', later(2000), 60_000, 10, []);
    expect(claimed.map((delivery) => delivery.id)).toEqual(['d-split']);
    expect(claimed[0]?.postedTs).toEqual(['1.000001']);
    // Once it is finished, the channel's earliest is next.
    expect(
      await store.finishDelivery('d-split', 'B', {
        state: 'sent',
        outcome: null,
        lastPart: { part: 1, ts: '2.000001' },
      }),
    ).toBe(true);
    const next = await store.claimDeliveries('B', later(3000), 60_000, 10, []);
    expect(next.map((delivery) => delivery.id)).toEqual(['d-earlier']);
    await store.close();
  });

  it('plans a round of subscriptions in one step, each still once', async () => {
    const one = await open('plan-round');
    const two = await open('plan-round');
    await one.createSubscription(subscription('s-1'));
    await one.createSubscription(subscription('s-2', 'C2'));
    const plan = (id: string, delivery: string) => ({
      subscriptionId: id,
      expectedNextRunAt: at,
      nextRunAt: later(3_600_000),
      skipped: 0,
      delivery: { id: delivery, dueAt: at },
    });
    // Another copy planned s-2 first: only s-1 is planned by this round.
    expect(await two.planDelivery('s-2', at, later(3_600_000), 0, { id: 'd-other', dueAt: at })).toBe(true);
    expect(await one.planDeliveries([plan('s-1', 'd-1'), plan('s-2', 'd-2')])).toBe(1);
    expect((await one.subscriptionDeliveries('s-2')).map((each) => each.id)).toEqual(['d-other']);
    expect((await one.subscriptionDeliveries('s-1')).map((each) => each.id)).toEqual(['d-1']);
    expect(await one.planDeliveries([])).toBe(0);
    await one.close();
    await two.close();
  });

  it('claims a pending delivery ahead of its time when asked, but never a lease before it ends', async () => {
    const store = await open('claim-ahead');
    await store.createSubscription(subscription('s-1'));
    await store.createSubscription(subscription('s-2', 'C2'));
    await store.addManualDelivery({ id: 'd-1', subscriptionId: 's-1', dueAt: later(900) });
    await store.addManualDelivery({ id: 'd-2', subscriptionId: 's-2', dueAt: at });
    expect(await store.claimDeliveries('A', at, 60_000, 10, ['C2'], 0)).toEqual([]);
    expect((await store.claimDeliveries('A', at, 60_000, 10, ['C2'], 1000)).map((each) => each.id)).toEqual([
      'd-1',
    ]);
    expect((await store.claimDeliveries('B', at, 60_000, 10, [], 1000)).map((each) => each.id)).toEqual([
      'd-2',
    ]);
    // B's lease on d-2 ends at +60 s: a second ahead is not enough to take it over.
    expect(await store.claimDeliveries('A', later(59_500), 60_000, 10, [], 1000)).toEqual([]);
    // At +60 s both leases have ended: both are claimed again.
    expect(
      (await store.claimDeliveries('A', later(60_000), 60_000, 10, [], 1000)).map((each) => each.id).sort(),
    ).toEqual(['d-1', 'd-2']);
    await store.close();
  });

  it('records the last part and finishes in one step, only in its place and only for the owner', async () => {
    const store = await open('finish-last');
    await store.createSubscription(subscription('s-1'));
    await store.addManualDelivery({ id: 'd-1', subscriptionId: 's-1', dueAt: at });
    await store.claimDeliveries('A', at, 60_000, 10, []);
    await store.freezeDelivery('d-1', 'A', '{}', []);
    const cursor = { json: '{"w":1}', at };
    expect(
      await store.finishDelivery('d-1', 'A', {
        state: 'sent',
        outcome: null,
        lastPart: { part: 1, ts: '9.9' },
      }),
    ).toBe(false);
    expect(
      await store.finishDelivery('d-1', 'B', {
        state: 'sent',
        outcome: null,
        lastPart: { part: 0, ts: '9.9' },
      }),
    ).toBe(false);
    expect(await store.getDelivery('d-1')).toMatchObject({ state: 'working', postedTs: [] });
    expect(
      await store.finishDelivery('d-1', 'A', {
        state: 'sent',
        outcome: null,
        cursor,
        lastPart: { part: 0, ts: '1.000001' },
      }),
    ).toBe(true);
    expect(await store.getDelivery('d-1')).toMatchObject({ state: 'sent', postedTs: ['1.000001'] });
    expect((await store.getSubscription('T1', 's-1'))?.cursor).toBe('{"w":1}');
    await store.close();
  });

  it("writes a channel's pace into its pending deliveries as a post finishes, for whichever copy claims them", async () => {
    const store = await open('finish-pace');
    for (const [id, channel] of [
      ['s-1', 'C1'],
      ['s-2', 'C1'],
      ['s-3', 'C2'],
    ] as const) {
      await store.createSubscription(subscription(id, channel));
      await store.addManualDelivery({ id: `d-${id.slice(2)}`, subscriptionId: id, dueAt: at });
    }
    const mine = await store.claimDeliveries('A', at, 60_000, 10, []);
    expect(mine.map((delivery) => delivery.id).sort()).toEqual(['d-1', 'd-3']);
    const paceUntil = later(1000);
    expect(await store.finishDelivery('d-1', 'A', sentPaced(paceUntil))).toBe(true);
    const next = await store.getDelivery('d-2');
    expect(next?.notBefore).toEqual(paceUntil);
    // Another copy claiming it (ahead of its time, as the timer does) is told when it may post.
    const [claimed] = await store.claimDeliveries('B', later(500), 60_000, 10, [], 1000);
    expect(claimed?.id).toBe('d-2');
    expect(claimed?.notBefore).toEqual(paceUntil);
    // The other channel's delivery is not paced by it.
    expect((await store.getDelivery('d-3'))?.notBefore).toEqual(at);
    // Slack's Retry-After for a channel holds its pending deliveries, and never brings one forward.
    await store.createSubscription(subscription('s-4', 'C2'));
    await store.addManualDelivery({ id: 'd-4', subscriptionId: 's-4', dueAt: later(100) });
    await store.paceChannel('T1', 'C2', later(30_000), 'B');
    expect((await store.getDelivery('d-4'))?.notBefore).toEqual(later(30_000));
    await store.paceChannel('T1', 'C2', later(5000), 'B');
    expect((await store.getDelivery('d-4'))?.notBefore).toEqual(later(30_000));
    // d-3 is under way by another copy (A), not pending: left as it is; A's own pace reaches it
    // where it lasts beyond A's lease (60 s from its claim), the time another copy could take it.
    expect((await store.getDelivery('d-3'))?.notBefore).toEqual(at);
    await store.paceChannel('T1', 'C2', later(40_000), 'A');
    expect((await store.getDelivery('d-3'))?.notBefore).toEqual(at);
    expect(await store.claimDeliveries('B', later(59_999), 60_000, 10, [])).toEqual([]);
    await store.paceChannel('T1', 'C2', later(70_000), 'A');
    expect((await store.getDelivery('d-3'))?.notBefore).toEqual(later(70_000));
    await store.close();
  });

  it("finishes a post in one step (its part, the channel's pace, the cursor), and changes nothing once the lease is another's", async () => {
    const store = await open('finish-one-step');
    for (const id of ['s-1', 's-2']) await store.createSubscription(subscription(id, 'C1'));
    await store.createSubscription(subscription('s-3', 'C2'));
    await store.addManualDelivery({ id: 'd-1', subscriptionId: 's-1', dueAt: at });
    await store.addManualDelivery({ id: 'd-2', subscriptionId: 's-2', dueAt: later(1) });
    await store.addManualDelivery({ id: 'd-3', subscriptionId: 's-3', dueAt: later(1) });
    const [claimed] = await store.claimDeliveries('A', at, 60_000, 1, ['C2']);
    expect(claimed?.id).toBe('d-1');
    await store.markAttempt('d-1', 'A', 0, later(2), 60_000);
    const finish = { ...sentPaced(later(1000)), cursor: { json: '{"seen":1}', at: later(3) } };
    // Not B's to finish: nothing moves.
    expect(await store.finishDelivery('d-1', 'B', finish)).toBe(false);
    expect((await store.getDelivery('d-1'))?.state).toBe('working');
    expect((await store.getDelivery('d-2'))?.notBefore).toEqual(later(1));
    expect((await store.getSubscription('T1', 's-1'))?.cursor).toBeNull();
    expect(await store.finishDelivery('d-1', 'A', finish)).toBe(true);
    expect(await store.getDelivery('d-1')).toMatchObject({
      state: 'sent',
      postedTs: ['1.000001'],
      leaseUntil: null,
      attemptingPart: null,
    });
    expect((await store.getDelivery('d-2'))?.notBefore).toEqual(later(1000));
    expect((await store.getDelivery('d-3'))?.notBefore).toEqual(later(1));
    expect((await store.getSubscription('T1', 's-1'))?.cursor).toBe('{"seen":1}');
    expect((await store.getSubscription('T1', 's-2'))?.cursor).toBeNull();
    // Finished once: a late second answer changes nothing.
    expect(await store.finishDelivery('d-1', 'A', { ...finish, paceUntil: later(9000) })).toBe(false);
    expect((await store.getDelivery('d-2'))?.notBefore).toEqual(later(1000));
    // A finish with no pace leaves the channel as it is, and an older cursor never replaces a newer.
    await store.addManualDelivery({ id: 'd-5', subscriptionId: 's-1', dueAt: later(2) });
    const [second] = await store.claimDeliveries('A', later(2000), 60_000, 1, ['C2']);
    expect(second?.id).toBe('d-2');
    expect(await store.markAttempt('d-2', 'A', 0, later(2001), 60_000)).toBe(true);
    const older = { state: 'sent' as const, outcome: null, lastPart: { part: 0, ts: '2.000001' } };
    expect(await store.finishDelivery('d-2', 'A', { ...older, cursor: { json: 'new', at: later(5) } })).toBe(
      true,
    );
    expect((await store.getDelivery('d-5'))?.notBefore).toEqual(later(2));
    expect((await store.getSubscription('T1', 's-2'))?.cursor).toBe('new');
    const [fifth] = await store.claimDeliveries('A', later(3000), 60_000, 1, ['C2']);
    expect(fifth?.id).toBe('d-5');
    // Paced past its own lease's end: the pace is the channel's others', never the finished row's.
    const before = await store.getDelivery('d-5');
    expect(
      await store.finishDelivery('d-5', 'A', {
        ...older,
        paceUntil: later(300_000),
        cursor: { json: 'old', at: later(1) },
      }),
    ).toBe(true);
    expect((await store.getSubscription('T1', 's-1'))?.cursor).toBe('{"seen":1}');
    expect(await store.getDelivery('d-5')).toMatchObject({
      state: 'sent',
      postedTs: ['2.000001'],
      notBefore: before?.notBefore,
    });
    await store.close();
  });

  /** Three deliveries of C1 (d-1, d-2, d-3, due a millisecond apart), claimed by A as one run. */
  async function runOfThree(name: string) {
    const store = await open(name);
    for (const id of ['s-1', 's-2', 's-3']) await store.createSubscription(subscription(id, 'C1'));
    for (const [index, id] of ['d-1', 'd-2', 'd-3'].entries())
      await store.addManualDelivery({ id, subscriptionId: `s-${index + 1}`, dueAt: later(index) });
    const run = await store.claimDeliveries('A', later(2), 60_000, 10, [], 0, 3);
    return { store, run };
  }

  it('gives back what a claim took and did not start as if it had not been claimed (no attempt counted)', async () => {
    const { store, run } = await runOfThree('give-back');
    expect(run.map((delivery) => delivery.attempts)).toEqual([1, 1, 1]);
    // Only the claimer gives them back; then they wait until the time given, counted as untried.
    expect(await store.giveBack(['d-2', 'd-3'], 'B', later(5000))).toBe(0);
    expect(await store.giveBack(['d-2', 'd-3'], 'A', later(5000))).toBe(2);
    for (const id of ['d-2', 'd-3'])
      expect(await store.getDelivery(id)).toMatchObject({
        state: 'pending',
        leaseOwner: null,
        attempts: 0,
        notBefore: later(5000),
      });
    expect((await store.getDelivery('d-1'))?.state).toBe('working');
    await store.close();
  });

  it('paces the rest of a run its copy still holds, so a copy taking them over once their lease ended keeps the pace', async () => {
    const { store, run } = await runOfThree('run-pace');
    expect(run.map((delivery) => delivery.id)).toEqual(['d-1', 'd-2', 'd-3']);
    // A posts d-1 late in its lease (slow Slack): the rest of its run has a minute-old lease.
    await store.markAttempt('d-1', 'A', 0, later(59_000), 60_000);
    const paceUntil = later(60_500);
    expect(await store.finishDelivery('d-1', 'A', sentPaced(paceUntil))).toBe(true);
    // B takes d-2 and d-3 over as their lease ends, and is told to wait for the channel's pace.
    const taken = await store.claimDeliveries('B', later(60_002), 60_000, 10, [], 0, 3);
    expect(taken.map((delivery) => delivery.id)).toEqual(['d-2', 'd-3']);
    for (const delivery of taken) expect(delivery.notBefore).toEqual(paceUntil);
    await store.close();
  });

  /**
   * C1's run (d-1, d-2) claimed by A with a lease of `leaseMs`; C2's d-3 due at `otherDueMs`; A
   * posts d-1 with the channel held until `paceMs`, then stops answering (its run abandoned).
   */
  async function abandonedRun(name: string, leaseMs: number, otherDueMs: number, paceMs: number) {
    const store = await open(name);
    for (const [id, channel] of [
      ['s-1', 'C1'],
      ['s-2', 'C1'],
      ['s-3', 'C2'],
    ] as const)
      await store.createSubscription(subscription(id, channel));
    await store.addManualDelivery({ id: 'd-1', subscriptionId: 's-1', dueAt: at });
    await store.addManualDelivery({ id: 'd-2', subscriptionId: 's-2', dueAt: later(1) });
    const run = await store.claimDeliveries('A', later(1), leaseMs, 10, [], 0, 2);
    expect(run.map((delivery) => delivery.id)).toEqual(['d-1', 'd-2']);
    await store.addManualDelivery({ id: 'd-3', subscriptionId: 's-3', dueAt: later(otherDueMs) });
    await store.finishDelivery('d-1', 'A', sentPaced(later(paceMs)));
    return store;
  }

  it('gives a channel whose run was abandoned its turn from the end of the lease, after channels ready before', async () => {
    // d-2's lease (to 60.001 s) outlasts the channel's pace (1 s).
    const store = await abandonedRun('turn-after-lease', 60_000, 500, 1000);
    // One channel's turn: C2 has been ready since 0.5 s, C1 only since A's lease ended.
    const first = await store.claimDeliveries('B', later(60_002), 60_000, 1, []);
    expect(first.map((delivery) => delivery.id)).toEqual(['d-3']);
    const next = await store.claimDeliveries('B', later(60_003), 60_000, 1, ['C2']);
    expect(next.map((delivery) => delivery.id)).toEqual(['d-2']);
    await store.close();
  });

  it('gives a channel whose abandoned run Slack holds back its turn from the end of that hold, not of the lease', async () => {
    // A one-second lease: A's run ends long before Slack's Retry-After of 30 s for C1.
    const store = await abandonedRun('turn-after-hold', 1000, 2000, 30_000);
    // At 3 s C2 may post now, C1 only at 30 s: C2 takes the one turn.
    const first = await store.claimDeliveries('B', later(3000), 60_000, 1, []);
    expect(first.map((delivery) => delivery.id)).toEqual(['d-3']);
    await store.close();
  });

  it("keeps a feed delivery's listing in order, pages it, and tells which items a subscription posted", async () => {
    const store = await open('listing');
    await store.createSubscription(subscription('s-1'));
    await store.createSubscription(subscription('s-2', 'C2'));
    await store.addManualDelivery({ id: 'd-1', subscriptionId: 's-1', dueAt: at });
    await store.claimDeliveries('A', at, 60_000, 10, []);
    const keys = Array.from({ length: 30 }, (_, index) => `tender:${String(index).padStart(2, '0')}`);
    // Listed in the order given (not the keys' order): the first two are cards, not listed.
    const order = [...keys].reverse();
    expect(
      await store.freezeDelivery(
        'd-1',
        'A',
        '{}',
        order,
        order.map((key, index) => (index < 2 ? null : JSON.stringify({ key }))),
      ),
    ).toEqual({ ok: true });
    const first = await store.deliveryListing('d-1', 0, 20);
    expect(first?.total).toBe(28);
    expect(first?.items.map((line) => JSON.parse(line).key)).toEqual(order.slice(2, 22));
    const last = await store.deliveryListing('d-1', 20, 20);
    expect(last?.items.map((line) => JSON.parse(line).key)).toEqual(order.slice(22));
    expect(await store.deliveryListing('d-unknown', 0, 20)).toBeNull();
    expect(await store.deliveredItems('s-1', ['tender:00', 'tender:29', 'tender:99'])).toEqual(
      new Set(['tender:00', 'tender:29']),
    );
    expect(await store.deliveredItems('s-2', ['tender:00'])).toEqual(new Set());
    expect(await store.deliveredItems('s-1', [])).toEqual(new Set());
    await store.close();
  });

  it("prunes finished deliveries older than the given time with their items, keeping each subscription's last and what is open", async () => {
    const store = await open('pruning');
    await store.createSubscription(subscription('s-1'));
    await store.createSubscription(subscription('s-2', 'C2'));
    const day = 86_400_000;
    const deliver = async (
      id: string,
      subscriptionId: string,
      dueAt: Date,
      state: 'sent' | 'empty' | 'failed' | null,
      items: string[],
    ) => {
      await store.addManualDelivery({ id, subscriptionId, dueAt });
      if (state === null) return;
      const [claimed] = await store.claimDeliveries('A', dueAt, 60_000, 10, []);
      expect(claimed?.id).toBe(id);
      await store.freezeDelivery(id, 'A', '{}', items);
      await store.finishDelivery(id, 'A', { state, outcome: null });
    };
    await deliver('d-old', 's-1', later(0), 'sent', ['tender:a']);
    await deliver('d-old-empty', 's-1', later(day), 'empty', []);
    await deliver('d-old-failed', 's-1', later(2 * day), 'failed', ['tender:f']);
    await deliver('d-new', 's-1', later(100 * day), 'sent', ['tender:b']);
    // s-2 posted once, long ago, and never since: its last post (and items) stay.
    await deliver('d-lone', 's-2', later(0), 'sent', ['tender:c']);
    // Still to post, however old: never pruned.
    await deliver('d-open', 's-2', later(3 * day), null, []);
    const before = later(95 * day);
    expect(await store.pruneDeliveries(before)).toEqual({ deliveries: 3, items: 1 });
    for (const gone of ['d-old', 'd-old-empty', 'd-old-failed'])
      expect(await store.getDelivery(gone)).toBeNull();
    for (const kept of ['d-new', 'd-lone', 'd-open']) expect(await store.getDelivery(kept)).not.toBeNull();
    expect(await store.deliveredItems('s-1', ['tender:a', 'tender:b'])).toEqual(new Set(['tender:b']));
    expect(await store.deliveredItems('s-2', ['tender:c'])).toEqual(new Set(['tender:c']));
    expect(await store.pruneDeliveries(before)).toEqual({ deliveries: 0, items: 0 });
    await store.close();
  });

  it('never gives one delivery to two copies claiming at the same moment', async () => {
    const copies = await Promise.all([1, 2, 3, 4].map(() => open('claim-race')));
    const [first] = copies;
    if (!first) throw new Error('no store');
    const channels = 40;
    for (let index = 0; index < channels; index++) {
      await first.createSubscription(subscription(`s-${index}`, `C${index}`));
      await first.addManualDelivery({ id: `d-${index}`, subscriptionId: `s-${index}`, dueAt: at });
    }
    const claimedBy = new Map<string, string>();
    for (let round = 0; round < 4; round++) {
      const claims = await Promise.all(
        copies.map((copy, index) => copy.claimDeliveries(`copy-${index}`, at, 60_000, 4, [])),
      );
      claims.forEach((claimed, index) => {
        for (const delivery of claimed) {
          expect(claimedBy.get(delivery.id)).toBeUndefined();
          claimedBy.set(delivery.id, `copy-${index}`);
          expect(delivery.leaseOwner).toBe(`copy-${index}`);
        }
      });
    }
    for (const [id, owner] of claimedBy) expect((await first.getDelivery(id))?.leaseOwner).toBe(owner);
    expect(claimedBy.size).toBeGreaterThan(0);
    for (const copy of copies) await copy.close();
  });

  it('claims the channels of the deliveries named (a job queue’s turns) in one step, by the same rules', async () => {
    const copies = await Promise.all([1, 2, 3].map(() => open('claim-channels-of')));
    const [one, two, three] = copies;
    if (!one || !two || !three) throw new Error('no store');
    await one.createSubscription(subscription('s-1'));
    await one.createSubscription(subscription('s-2'));
    await one.createSubscription(subscription('s-3', 'C2'));
    await one.createSubscription(subscription('s-4', 'C3'));
    await one.createSubscription(subscription('s-5', 'C4'));
    await one.addManualDelivery({ id: 'd-1', subscriptionId: 's-1', dueAt: at });
    await one.addManualDelivery({ id: 'd-2', subscriptionId: 's-2', dueAt: later(1) });
    await one.addManualDelivery({ id: 'd-3', subscriptionId: 's-3', dueAt: later(5000) });
    await one.addManualDelivery({ id: 'd-4', subscriptionId: 's-4', dueAt: at });
    await one.addManualDelivery({ id: 'd-5', subscriptionId: 's-5', dueAt: at });
    const ids = (claimed: { id: string }[]) => claimed.map((delivery) => delivery.id).sort();
    // A name stands for its channel: C1's first goes (d-1, though d-2 was named); d-3 is not due
    // yet; C4, named by nobody, is left alone.
    expect(ids(await one.claimChannelsOf(['d-2', 'd-3'], 'A', later(1), 60_000, 0))).toEqual(['d-1']);
    // While d-1 is under way, nothing else of C1 is claimed.
    expect(await two.claimChannelsOf(['d-2'], 'B', later(1), 60_000, 0)).toEqual([]);
    const ahead = await one.claimChannelsOf(['d-3'], 'A', at, 60_000, 5000);
    expect(ahead).toMatchObject([{ id: 'd-3', state: 'working', leaseOwner: 'A', attempts: 1 }]);
    // Three copies asking for C3 at once: one of them claims d-4, once.
    const answers = await Promise.all(
      copies.map((copy, index) => copy.claimChannelsOf(['d-4'], `copy-${index}`, at, 60_000, 0)),
    );
    expect(ids(answers.flat())).toEqual(['d-4']);
    expect(answers.flat()[0]).toMatchObject({ state: 'working', attempts: 1, leaseUntil: later(60_000) });
    // d-1 sent: a name of C1 (even the sent one's) now claims d-2; an unknown name, nothing.
    expect(await one.finishDelivery('d-1', 'A', { state: 'sent', outcome: null })).toBe(true);
    const next = await two.claimChannelsOf(['d-1', 'd-unknown'], 'B', later(1000), 60_000, 0);
    expect(next).toMatchObject([{ id: 'd-2', leaseOwner: 'B' }]);
    // B stopped answering: once its lease has ended another copy takes d-2 over.
    expect(await three.claimChannelsOf(['d-2'], 'C', later(60_999), 60_000, 0)).toEqual([]);
    expect(await three.claimChannelsOf(['d-2'], 'C', later(61_000), 60_000, 0)).toMatchObject([
      { id: 'd-2', leaseOwner: 'C', attempts: 2 },
    ]);
    expect(await three.claimChannelsOf([], 'C', later(61_000), 60_000, 0)).toEqual([]);
    for (const copy of copies) await copy.close();
  });

  it('claims a channel’s first deliveries together when asked, in its order; never a later one without the first', async () => {
    const store = await open('claim-runs');
    for (const [id, channel] of [
      ['s-1', 'C1'],
      ['s-2', 'C1'],
      ['s-3', 'C1'],
      ['s-4', 'C1'],
      ['s-5', 'C2'],
      ['s-6', 'C3'],
    ] as const)
      await store.createSubscription(subscription(id, channel));
    await store.addManualDelivery({ id: 'r-3', subscriptionId: 's-3', dueAt: later(2) });
    await store.addManualDelivery({ id: 'r-1', subscriptionId: 's-1', dueAt: at });
    await store.addManualDelivery({ id: 'r-4', subscriptionId: 's-4', dueAt: later(3) });
    await store.addManualDelivery({ id: 'r-2', subscriptionId: 's-2', dueAt: later(1) });
    await store.addManualDelivery({ id: 'r-5', subscriptionId: 's-5', dueAt: at });
    await store.addManualDelivery({ id: 'r-6', subscriptionId: 's-6', dueAt: at });
    const claimedIds = (claimed: { id: string }[]) => claimed.map((delivery) => delivery.id);
    // At most `limit` channels, taking turns by their first delivery: C1's run and C2's, not C3.
    const two = await store.claimDeliveries('A', later(3), 60_000, 2, [], 0, 3);
    expect(claimedIds(two)).toEqual(['r-1', 'r-5', 'r-2', 'r-3']);
    expect((await store.getDelivery('r-4'))?.state).toBe('pending');
    // Another copy meanwhile takes nothing of those channels (under way), only C3.
    expect(claimedIds(await store.claimDeliveries('B', later(3), 60_000, 10, [], 0, 3))).toEqual(['r-6']);
    for (const id of ['r-1', 'r-2', 'r-3', 'r-5'])
      expect(await store.releaseDelivery(id, 'A', later(3), false)).toBe(true);
    expect(await store.releaseDelivery('r-6', 'B', later(3), false)).toBe(true);
    // Busy channels are left out; a job's name claims its channel's run the same way.
    const runs = await store.claimDeliveries('A', later(3), 60_000, 10, ['C3'], 0, 3);
    expect(claimedIds(runs)).toEqual(['r-1', 'r-5', 'r-2', 'r-3']);
    expect(claimedIds(await store.claimChannelsOf(['r-6'], 'B', later(3), 60_000, 0, 3))).toEqual(['r-6']);
    // A split post half sent goes alone: nothing after it in its channel until it is done.
    await store.markAttempt('r-1', 'A', 0, later(3), 60_000);
    expect(await store.recordPart('r-1', 'A', 0, '1.000001')).toBe(true);
    for (const id of ['r-1', 'r-2', 'r-3'])
      expect(await store.releaseDelivery(id, 'A', later(3), false)).toBe(true);
    expect(claimedIds(await store.claimDeliveries('C', later(3), 60_000, 10, [], 0, 3))).toEqual(['r-1']);
    await store.close();
  });

  it('lists the deliveries open by a time, oldest first', async () => {
    const store = await open('open-ids');
    await store.createSubscription(subscription('s-1'));
    await store.createSubscription(subscription('s-2', 'C2'));
    await store.createSubscription(subscription('s-3', 'C3'));
    await store.addManualDelivery({ id: 'd-late', subscriptionId: 's-1', dueAt: later(10_000) });
    await store.addManualDelivery({ id: 'd-b', subscriptionId: 's-2', dueAt: later(5) });
    await store.addManualDelivery({ id: 'd-a', subscriptionId: 's-3', dueAt: at });
    await store.addManualDelivery({ id: 'd-done', subscriptionId: 's-1', dueAt: later(-5) });
    expect(await store.claimChannelsOf(['d-done'], 'A', at, 1000, 0)).toMatchObject([{ id: 'd-done' }]);
    expect(await store.finishDelivery('d-done', 'A', { state: 'empty', outcome: null })).toBe(true);
    expect(await store.openDeliveryIds(later(5), 10)).toEqual(['d-a', 'd-b']);
    expect(await store.openDeliveryIds(later(5), 1)).toEqual(['d-a']);
    expect(await store.openDeliveryIds(later(10_000), 10)).toEqual(['d-a', 'd-b', 'd-late']);
    // Working with a live lease: not open; once the lease has ended, open again.
    expect(await store.claimChannelsOf(['d-a'], 'A', later(5), 60_000, 0)).toMatchObject([{ id: 'd-a' }]);
    expect(await store.openDeliveryIds(later(5), 10)).toEqual(['d-b']);
    expect(await store.openDeliveryIds(later(60_005), 10)).toEqual(['d-a', 'd-b', 'd-late']);
    await store.close();
  });
}
