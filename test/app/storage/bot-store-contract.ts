import { expect, it } from 'vitest';
import type { BotStore, StoredInstallation, Subscription } from '../../../src/app/storage/bot-store.ts';

/**
 * What every BotStore must do, whatever database is behind it. `open(name)` opens a store on the
 * database called `name`: two calls with one name are two stores (two copies of the app) on the
 * same data; a new name is an empty database. Run for SQLite in bot-store.test.ts.
 */
export function botStoreContract(open: (name: string) => BotStore | Promise<BotStore>): void {
  const at = new Date('2026-11-22T12:00:00Z');
  const connection = {
    teamId: 'T1',
    encryptedApiKey: 'v1:abc',
    serviceUrl: null,
    connectedBy: 'U1',
    connectedAt: '2026-11-21T00:00:00Z',
  };

  it('keeps a workspace connection across reopening, replaces it, and removes it', async () => {
    const store = await open('connections');
    await store.saveConnection(connection);
    await store.close();
    const reopened = await open('connections');
    expect(await reopened.getConnection('T1')).toEqual(connection);
    await reopened.saveConnection({
      ...connection,
      encryptedApiKey: 'v1:new',
      serviceUrl: 'https://x.example',
    });
    expect(await reopened.getConnection('T1')).toMatchObject({
      encryptedApiKey: 'v1:new',
      serviceUrl: 'https://x.example',
    });
    expect(await reopened.removeConnection('T1')).toBe(true);
    expect(await reopened.getConnection('T1')).toBeNull();
    expect(await reopened.removeConnection('T1')).toBe(false);
    await reopened.close();
  });

  it('lists stored connections', async () => {
    const store = await open('listed');
    expect(await store.listConnections()).toEqual([]);
    await store.saveConnection({ ...connection, teamId: 'T2' });
    await store.saveConnection({ ...connection, teamId: 'T0' });
    const listed = await store.listConnections();
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.map((each) => each.teamId)).toEqual(['T0', 'T2']);
    await store.close();
  });

  it('remembers a request until it expires, once for every store on the same data', async () => {
    const one = await open('seen');
    const two = await open('seen');
    const until = new Date(at.getTime() + 6 * 60_000);
    expect(await one.rememberRequest('signature:v0=aa', until, at)).toBe(true);
    expect(await one.rememberRequest('signature:v0=aa', until, at)).toBe(false);
    expect(await two.rememberRequest('signature:v0=aa', until, at)).toBe(false);
    expect(await two.rememberRequest('signature:v0=bb', until, at)).toBe(true);
    // Past its expiry the row is pruned, and the same id is new again.
    const later = new Date(until.getTime() + 1);
    expect(await two.rememberRequest('signature:v0=aa', new Date(later.getTime() + 60_000), later)).toBe(
      true,
    );
    // An expired entry counts as unseen at once, whether or not it has been pruned yet.
    const soon = new Date(at.getTime() + 1000);
    expect(await one.rememberRequest('signature:v0=cc', soon, at)).toBe(true);
    const justAfter = new Date(soon.getTime() + 1);
    expect(
      await one.rememberRequest('signature:v0=cc', new Date(justAfter.getTime() + 1000), justAfter),
    ).toBe(true);
    expect(
      await one.rememberRequest('signature:v0=cc', new Date(justAfter.getTime() + 1000), justAfter),
    ).toBe(false);
    await one.close();
    await two.close();
  });

  it('keeps a state under its token until it expires, for every store on the same data', async () => {
    const one = await open('states');
    const two = await open('states');
    const token = '~abcdefghijklmnopqrstuv';
    const until = new Date(at.getTime() + 30 * 86_400_000);
    expect(await one.loadState(token, at)).toBeNull();
    await one.saveState(token, '{"e":"tender","id":"ocds-1"}', until);
    expect(await one.loadState(token, at)).toBe('{"e":"tender","id":"ocds-1"}');
    expect(await two.loadState(token, at)).toBe('{"e":"tender","id":"ocds-1"}');
    expect(await two.loadState(token, until)).toBeNull();
    expect(await two.loadState('~another', at)).toBeNull();
    await one.close();
    await two.close();
  });

  it('records who wrote each comment, per workspace, and keeps the first author', async () => {
    const store = await open('comments');
    expect((await store.commentAuthors('T1', [])).size).toBe(0);
    await store.recordCommentAuthor({ commentId: 'c1', teamId: 'T1', userId: 'UALICE', createdAt: at });
    await store.recordCommentAuthor({ commentId: 'c2', teamId: 'T1', userId: 'UBOB', createdAt: at });
    await store.recordCommentAuthor({ commentId: 'c1', teamId: 'T2', userId: 'UCAROL', createdAt: at });
    // A Slack retry recording the same comment again does not change its author.
    await store.recordCommentAuthor({ commentId: 'c1', teamId: 'T1', userId: 'UMALLORY', createdAt: at });
    const authors = await store.commentAuthors('T1', ['c1', 'c2', 'c3']);
    expect(authors.size).toBeGreaterThan(0);
    expect([...authors.entries()].sort()).toEqual([
      ['c1', 'UALICE'],
      ['c2', 'UBOB'],
    ]);
    expect([...(await store.commentAuthors('T2', ['c1', 'c2'])).entries()]).toEqual([['c1', 'UCAROL']]);
    // Many ids at once (more than one statement's worth).
    const many = Array.from({ length: 450 }, (_, index) => `m${index}`);
    for (const id of many.slice(0, 3)) {
      await store.recordCommentAuthor({ commentId: id, teamId: 'T1', userId: 'UBULK', createdAt: at });
    }
    await store.recordCommentAuthor({ commentId: 'm449', teamId: 'T1', userId: 'ULAST', createdAt: at });
    const bulk = await store.commentAuthors('T1', many);
    expect(bulk.size).toBe(4);
    expect(bulk.get('m449')).toBe('ULAST');
    await store.close();
  });

  it('remembers every message showing a pipeline, and forgets one', async () => {
    const store = await open('pipelines');
    expect(await store.pipelineMessages('T1', 'p1')).toEqual([]);
    await store.rememberPipelineMessage({ pipelineId: 'p1', teamId: 'T1', channelId: 'C1', ts: '1.0001' });
    await store.rememberPipelineMessage({
      pipelineId: 'p1',
      teamId: 'T1',
      channelId: 'C2',
      ts: '2.0001',
      threadTs: '1.5',
    });
    await store.rememberPipelineMessage({ pipelineId: 'p2', teamId: 'T1', channelId: 'C1', ts: '3.0001' });
    await store.rememberPipelineMessage({ pipelineId: 'p1', teamId: 'T2', channelId: 'C9', ts: '4.0001' });
    // The same message remembered twice is one message.
    await store.rememberPipelineMessage({ pipelineId: 'p1', teamId: 'T1', channelId: 'C1', ts: '1.0001' });
    const shown = await store.pipelineMessages('T1', 'p1');
    expect(shown.length).toBeGreaterThan(0);
    expect(shown).toEqual([
      { pipelineId: 'p1', teamId: 'T1', channelId: 'C1', ts: '1.0001' },
      { pipelineId: 'p1', teamId: 'T1', channelId: 'C2', ts: '2.0001', threadTs: '1.5' },
    ]);
    expect(await store.forgetPipelineMessage('T1', 'C1', '1.0001')).toBe(true);
    expect(await store.forgetPipelineMessage('T1', 'C1', '1.0001')).toBe(false);
    expect((await store.pipelineMessages('T1', 'p1')).map((message) => message.channelId)).toEqual(['C2']);
    expect((await store.pipelineMessages('T2', 'p1')).map((message) => message.ts)).toEqual(['4.0001']);
    await store.close();
  });

  it('greets a channel once, for every store on the same data, per workspace', async () => {
    const first = await open('welcomes');
    const second = await open('welcomes');
    expect(await first.markChannelWelcomed('T1', 'C1', at)).toBe(true);
    // Another copy of the app, and the same copy after the app was removed and added again.
    expect(await second.markChannelWelcomed('T1', 'C1', at)).toBe(false);
    expect(await first.markChannelWelcomed('T1', 'C1', at)).toBe(false);
    expect(await second.markChannelWelcomed('T1', 'C2', at)).toBe(true);
    expect(await second.markChannelWelcomed('T2', 'C1', at)).toBe(true);
    await first.close();
    await second.close();
  });
  const subscription = (id: string, channelId = 'C1', nextRunAt = at): Subscription => ({
    id,
    teamId: 'T1',
    channelId,
    kind: 'pipeline',
    target: '{"p":"pl-1"}',
    cadence: 'daily',
    localTime: '09:00',
    timeZone: 'Europe/London',
    createdBy: 'U1',
    createdAt: at,
    pausedReason: null,
    nextRunAt,
    cursor: null,
    skippedCount: 0,
  });
  const later = (ms: number) => new Date(at.getTime() + ms);

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

  const installation = (
    teamId: string | null,
    enterpriseId: string | null,
    isEnterpriseInstall: boolean,
    secret: string,
  ): StoredInstallation => ({
    teamId,
    enterpriseId,
    isEnterpriseInstall,
    encryptedInstallation: secret,
    installedAt: at,
  });
  const workspace = (teamId: string) => ({ teamId, enterpriseId: null, isEnterpriseInstall: false });

  it('keeps one installation per workspace and one org-wide per enterprise, found as Bolt asks', async () => {
    const one = await open('installations');
    const two = await open('installations');
    expect(await one.listInstallations()).toEqual([]);
    expect(await one.findInstallation(workspace('T1'))).toBeNull();
    await one.saveInstallation(installation('T1', null, false, 'v1:t1-first'));
    // Installing again replaces it.
    await one.saveInstallation(installation('T1', null, false, 'v1:t1'));
    await one.saveInstallation(installation('T2', 'E1', false, 'v1:t2-in-e1'));
    await one.saveInstallation(installation(null, 'E1', true, 'v1:e1'));
    await one.saveInstallation(installation(null, 'E2', true, 'v1:e2'));
    expect(await two.findInstallation(workspace('T1'))).toEqual(installation('T1', null, false, 'v1:t1'));
    // A workspace of E1 installed on its own has its own; every other workspace of E1 gets the org-wide one.
    expect(
      (await two.findInstallation({ teamId: 'T2', enterpriseId: 'E1', isEnterpriseInstall: false }))
        ?.encryptedInstallation,
    ).toBe('v1:t2-in-e1');
    expect(
      await two.findInstallation({ teamId: 'T3', enterpriseId: 'E1', isEnterpriseInstall: true }),
    ).toEqual(installation(null, 'E1', true, 'v1:e1'));
    expect(
      (await two.findInstallation({ teamId: 'T3', enterpriseId: 'E1', isEnterpriseInstall: false }))
        ?.encryptedInstallation,
    ).toBe('v1:e1');
    expect(
      (await two.findInstallation({ teamId: null, enterpriseId: 'E2', isEnterpriseInstall: true }))
        ?.encryptedInstallation,
    ).toBe('v1:e2');
    expect(
      await two.findInstallation({ teamId: 'T9', enterpriseId: 'E9', isEnterpriseInstall: true }),
    ).toBeNull();
    expect(await two.findInstallation(workspace('T9'))).toBeNull();
    expect((await two.listInstallations()).map((each) => each.encryptedInstallation).sort()).toEqual([
      'v1:e1',
      'v1:e2',
      'v1:t1',
      'v1:t2-in-e1',
    ]);
    // Removing T2's own install leaves the org-wide one, which then serves T2.
    expect(
      await two.deleteInstallation({ teamId: 'T2', enterpriseId: 'E1', isEnterpriseInstall: false }),
    ).toBe(true);
    expect(
      await two.deleteInstallation({ teamId: 'T2', enterpriseId: 'E1', isEnterpriseInstall: false }),
    ).toBe(false);
    expect(
      (await one.findInstallation({ teamId: 'T2', enterpriseId: 'E1', isEnterpriseInstall: false }))
        ?.encryptedInstallation,
    ).toBe('v1:e1');
    expect(
      await one.deleteInstallation({ teamId: 'T3', enterpriseId: 'E1', isEnterpriseInstall: true }),
    ).toBe(true);
    expect(
      await one.findInstallation({ teamId: 'T2', enterpriseId: 'E1', isEnterpriseInstall: false }),
    ).toBeNull();
    expect((await one.listInstallations()).length).toBe(2);
    await one.close();
    await two.close();
  });

  it("keeps a person's own key per workspace, replaces it, and removes it", async () => {
    const store = await open('personal-keys');
    const key = {
      teamId: 'T1',
      userId: 'UALICE',
      encryptedApiKey: 'v1:alice',
      serviceUrl: null,
      connectedAt: at,
    };
    expect(await store.getPersonalKey('T1', 'UALICE')).toBeNull();
    await store.savePersonalKey(key);
    await store.savePersonalKey({ ...key, userId: 'UBOB', encryptedApiKey: 'v1:bob' });
    expect(await store.getPersonalKey('T1', 'UALICE')).toEqual(key);
    expect(await store.getPersonalKey('T2', 'UALICE')).toBeNull();
    const replaced = {
      ...key,
      encryptedApiKey: 'v1:alice-2',
      serviceUrl: 'https://x.example',
      connectedAt: later(1),
    };
    await store.savePersonalKey(replaced);
    expect(await store.getPersonalKey('T1', 'UALICE')).toEqual(replaced);
    expect(await store.removePersonalKey('T1', 'UALICE')).toBe(true);
    expect(await store.removePersonalKey('T1', 'UALICE')).toBe(false);
    expect(await store.getPersonalKey('T1', 'UALICE')).toBeNull();
    expect((await store.getPersonalKey('T1', 'UBOB'))?.encryptedApiKey).toBe('v1:bob');
    await store.close();
  });

  it("keeps a workspace's settings, with defaults when never saved", async () => {
    const store = await open('settings');
    expect(await store.getWorkspaceSettings('T1')).toEqual({ teamId: 'T1', personalKeysForWrites: false });
    await store.saveWorkspaceSettings({ teamId: 'T1', personalKeysForWrites: true });
    expect(await store.getWorkspaceSettings('T1')).toEqual({ teamId: 'T1', personalKeysForWrites: true });
    expect(await store.getWorkspaceSettings('T2')).toEqual({ teamId: 'T2', personalKeysForWrites: false });
    await store.saveWorkspaceSettings({ teamId: 'T1', personalKeysForWrites: false });
    expect(await store.getWorkspaceSettings('T1')).toEqual({ teamId: 'T1', personalKeysForWrites: false });
    await store.close();
  });

  it("removes a workspace's installation, keys, settings and subscriptions at once, and nothing of another's", async () => {
    const store = await open('remove-workspace');
    for (const team of ['T1', 'T2']) {
      await store.saveInstallation(installation(team, 'E1', false, `v1:${team}`));
      await store.saveConnection({ ...connection, teamId: team });
      await store.savePersonalKey({
        teamId: team,
        userId: 'U1',
        encryptedApiKey: `v1:${team}-u1`,
        serviceUrl: null,
        connectedAt: at,
      });
      await store.savePersonalKey({
        teamId: team,
        userId: 'U2',
        encryptedApiKey: `v1:${team}-u2`,
        serviceUrl: null,
        connectedAt: at,
      });
      await store.saveWorkspaceSettings({ teamId: team, personalKeysForWrites: true });
      await store.createSubscription({ ...subscription(`s-${team}`), teamId: team });
      await store.addManualDelivery({ id: `d-${team}`, subscriptionId: `s-${team}`, dueAt: at });
      await store.recordCommentAuthor({ commentId: 'c-1', teamId: team, userId: 'U1', createdAt: at });
      await store.rememberPipelineMessage({ pipelineId: 'p-1', teamId: team, channelId: 'C1', ts: '1.1' });
      await store.markChannelWelcomed(team, 'C1', at);
    }
    await store.saveInstallation(installation(null, 'E1', true, 'v1:e1'));
    const [claimed] = await store.claimDeliveries('A', at, 60_000, 1, ['C9']);
    expect(claimed?.teamId).toBe('T1');
    await store.freezeDelivery('d-T1', 'A', '{}', ['tender:1']);
    expect(await store.removeWorkspace('T1')).toEqual({
      installations: 1,
      connections: 1,
      personalKeys: 2,
      subscriptions: 1,
    });
    expect(await store.findInstallation(workspace('T1'))).toBeNull();
    expect(await store.getConnection('T1')).toBeNull();
    expect(await store.getPersonalKey('T1', 'U1')).toBeNull();
    expect(await store.getWorkspaceSettings('T1')).toEqual({ teamId: 'T1', personalKeysForWrites: false });
    expect(await store.getSubscription('T1', 's-T1')).toBeNull();
    expect(await store.getDelivery('d-T1')).toBeNull();
    expect(await store.deliveredItems('s-T1', ['tender:1'])).toEqual(new Set());
    expect((await store.commentAuthors('T1', ['c-1'])).size).toBe(0);
    expect(await store.pipelineMessages('T1', 'p-1')).toEqual([]);
    // The channel was greeted once: not again after a reinstall.
    expect(await store.markChannelWelcomed('T1', 'C1', at)).toBe(false);
    // The org-wide install and T2 are untouched.
    expect(
      (await store.findInstallation({ teamId: 'T1', enterpriseId: 'E1', isEnterpriseInstall: true }))
        ?.encryptedInstallation,
    ).toBe('v1:e1');
    expect((await store.findInstallation(workspace('T2')))?.encryptedInstallation).toBe('v1:T2');
    expect((await store.getConnection('T2'))?.teamId).toBe('T2');
    expect((await store.getPersonalKey('T2', 'U2'))?.encryptedApiKey).toBe('v1:T2-u2');
    expect(await store.getWorkspaceSettings('T2')).toEqual({ teamId: 'T2', personalKeysForWrites: true });
    expect((await store.getSubscription('T2', 's-T2'))?.id).toBe('s-T2');
    expect((await store.getDelivery('d-T2'))?.state).toBe('pending');
    expect([...(await store.commentAuthors('T2', ['c-1'])).entries()]).toEqual([['c-1', 'U1']]);
    expect((await store.pipelineMessages('T2', 'p-1')).map((message) => message.ts)).toEqual(['1.1']);
    expect(await store.removeWorkspace('T1')).toEqual({
      installations: 0,
      connections: 0,
      personalKeys: 0,
      subscriptions: 0,
    });
    await store.close();
  });

  it('lists every stored secret and replaces one only if it has not changed meanwhile', async () => {
    const one = await open('secrets');
    const two = await open('secrets');
    expect(await one.listSecrets()).toEqual([]);
    await one.saveConnection(connection);
    await one.saveInstallation(installation('T1', null, false, 'v1:install-t1'));
    await one.saveInstallation(installation(null, 'E1', true, 'v1:install-e1'));
    await one.savePersonalKey({
      teamId: 'T1',
      userId: 'UALICE',
      encryptedApiKey: 'v1:alice',
      serviceUrl: null,
      connectedAt: at,
    });
    const secrets = await two.listSecrets();
    expect(secrets.map(({ kind, encrypted }) => [kind, encrypted]).sort()).toEqual([
      ['connection', 'v1:abc'],
      ['installation', 'v1:install-e1'],
      ['installation', 'v1:install-t1'],
      ['personal-key', 'v1:alice'],
    ]);
    for (const secret of secrets)
      expect(await two.replaceSecret(secret, `${secret.encrypted}-next`)).toBe(true);
    // Each was replaced once: replacing from the old value again is refused (it changed meanwhile).
    for (const secret of secrets) expect(await one.replaceSecret(secret, 'v1:lost')).toBe(false);
    expect((await one.getConnection('T1'))?.encryptedApiKey).toBe('v1:abc-next');
    expect((await one.findInstallation(workspace('T1')))?.encryptedInstallation).toBe('v1:install-t1-next');
    expect(
      (await one.findInstallation({ teamId: 'T5', enterpriseId: 'E1', isEnterpriseInstall: true }))
        ?.encryptedInstallation,
    ).toBe('v1:install-e1-next');
    expect((await one.getPersonalKey('T1', 'UALICE'))?.encryptedApiKey).toBe('v1:alice-next');
    expect((await one.listSecrets()).map((secret) => secret.encrypted).sort()).toEqual([
      'v1:abc-next',
      'v1:alice-next',
      'v1:install-e1-next',
      'v1:install-t1-next',
    ]);
    // A secret removed meanwhile is not written back.
    const [personal] = (await one.listSecrets()).filter((secret) => secret.kind === 'personal-key');
    await one.removePersonalKey('T1', 'UALICE');
    expect(personal && (await one.replaceSecret(personal, 'v1:ghost'))).toBe(false);
    expect(await one.getPersonalKey('T1', 'UALICE')).toBeNull();
    await one.close();
    await two.close();
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

  it('claims one delivery by id under the same rules, and says when to try again or that it is done', async () => {
    const copies = await Promise.all([1, 2, 3].map(() => open('claim-one')));
    const [one, two, three] = copies;
    if (!one || !two || !three) throw new Error('no store');
    await one.createSubscription(subscription('s-1'));
    await one.createSubscription(subscription('s-2'));
    await one.createSubscription(subscription('s-3', 'C2'));
    await one.addManualDelivery({ id: 'd-1', subscriptionId: 's-1', dueAt: at });
    await one.addManualDelivery({ id: 'd-2', subscriptionId: 's-2', dueAt: later(1) });
    await one.addManualDelivery({ id: 'd-3', subscriptionId: 's-3', dueAt: later(5000) });
    // d-2 waits for d-1, first in C1; d-3 is not due yet, unless claimed ahead of its time.
    expect(await one.claimDelivery('d-2', 'A', later(1), 60_000, 0)).toEqual({ notBefore: later(1000 + 1) });
    expect(await one.claimDelivery('d-3', 'A', at, 60_000, 0)).toEqual({ notBefore: later(5000) });
    const ahead = await one.claimDelivery('d-3', 'A', at, 60_000, 5000);
    expect(ahead).toMatchObject({ delivery: { id: 'd-3', state: 'working', leaseOwner: 'A', attempts: 1 } });
    // Three copies asking for d-1 at once: one gets it.
    const answers = await Promise.all(
      copies.map((copy, index) => copy.claimDelivery('d-1', `copy-${index}`, at, 60_000, 0)),
    );
    const winners = answers.filter((answer) => 'delivery' in answer);
    expect(winners).toHaveLength(1);
    const winner = winners[0] && 'delivery' in winners[0] ? winners[0].delivery : null;
    expect(winner).toMatchObject({ id: 'd-1', state: 'working', attempts: 1, leaseUntil: later(60_000) });
    expect(answers.filter((answer) => 'notBefore' in answer)).toEqual([
      { notBefore: later(60_000) },
      { notBefore: later(60_000) },
    ]);
    // While d-1 is under way, d-2 waits for its lease.
    expect(await two.claimDelivery('d-2', 'B', later(1000), 60_000, 0)).toEqual({ notBefore: later(60_000) });
    const owner = winner?.leaseOwner ?? '';
    expect(await one.finishDelivery('d-1', owner, { state: 'sent', outcome: null })).toBe(true);
    expect(await two.claimDelivery('d-1', 'B', later(1000), 60_000, 0)).toEqual({ finished: true });
    expect(await two.claimDelivery('d-unknown', 'B', later(1000), 60_000, 0)).toEqual({ finished: true });
    expect(await two.claimDelivery('d-2', 'B', later(1000), 60_000, 0)).toMatchObject({
      delivery: { id: 'd-2', leaseOwner: 'B' },
    });
    // B stopped answering: once its lease has ended another copy takes d-2 over.
    expect(await three.claimDelivery('d-2', 'C', later(60_999), 60_000, 0)).toEqual({
      notBefore: later(61_000),
    });
    expect(await three.claimDelivery('d-2', 'C', later(61_000), 60_000, 0)).toMatchObject({
      delivery: { id: 'd-2', leaseOwner: 'C', attempts: 2 },
    });
    for (const copy of copies) await copy.close();
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
    expect(await store.claimDelivery('d-done', 'A', at, 1000, 0)).toMatchObject({
      delivery: { id: 'd-done' },
    });
    expect(await store.finishDelivery('d-done', 'A', { state: 'empty', outcome: null })).toBe(true);
    expect(await store.openDeliveryIds(later(5), 10)).toEqual(['d-a', 'd-b']);
    expect(await store.openDeliveryIds(later(5), 1)).toEqual(['d-a']);
    expect(await store.openDeliveryIds(later(10_000), 10)).toEqual(['d-a', 'd-b', 'd-late']);
    // Working with a live lease: not open; once the lease has ended, open again.
    expect(await store.claimDelivery('d-a', 'A', later(5), 60_000, 0)).toMatchObject({
      delivery: { id: 'd-a' },
    });
    expect(await store.openDeliveryIds(later(5), 10)).toEqual(['d-b']);
    expect(await store.openDeliveryIds(later(60_005), 10)).toEqual(['d-a', 'd-b', 'd-late']);
    await store.close();
  });

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

  it('answers a ping', async () => {
    const store = await open('ping');
    await expect(store.ping()).resolves.toBeUndefined();
    await store.close();
  });
}
