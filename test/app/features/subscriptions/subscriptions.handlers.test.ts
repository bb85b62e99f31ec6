import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Frozen } from '../../../../src/app/features/subscriptions/content.ts';
import { sendNow } from '../../../../src/app/features/subscriptions/send-now.ts';
import {
  listMore,
  listSubscriptions,
  unsubscribe,
} from '../../../../src/app/features/subscriptions/subscription-list.ts';
import { subscriptionCommand } from '../../../../src/app/features/subscriptions/subscriptions.ts';
import { StaleValueError } from '../../../../src/app/shared/feature-context.ts';
import { SubscriptionIds } from '../../../../src/app/shared/ids.ts';
import type { Subscription } from '../../../../src/app/storage/bot-store.ts';
import { KEYS } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';
import { textOf } from '../../../support/slack-text.ts';

let harness: HandlerHarness;

beforeAll(async () => {
  harness = await startHandlerHarness();
});
afterAll(async () => {
  await harness?.close();
});

const subscriptionsOf = (channelId: string) =>
  harness.context.store.channelSubscriptions(harness.slack.teamId, channelId);

/** `/tender subscribe <rest>` by `userId` in `channelId`: what they read, and what the channel then follows. */
async function subscribe(rest: string, channelId: string, userId = 'U0ADMIN') {
  const request = harness.request({ userId, channelId });
  await subscriptionCommand(harness.context, request, 'subscribe', rest);
  return { request, said: request.said(), subscriptions: await subscriptionsOf(channelId) };
}

const botPostsIn = (channel: string) =>
  harness.slack.messagesIn(channel).filter((message) => message.authorId === 'U0BOT');

/** A subscription made the way the command makes one, without its checks (for the buttons' tests). */
async function storedSubscription(
  channelId: string,
  pausedReason: string | null = null,
  /** A bid's summary always has something to say: Send now posts it. */
  kind: 'deadlines' | 'pipeline' = 'deadlines',
): Promise<Subscription> {
  const subscription: Subscription = {
    id: `s-${randomUUID().slice(0, 6)}`,
    teamId: harness.slack.teamId,
    channelId,
    kind,
    target: JSON.stringify(kind === 'pipeline' ? { p: 'pl-bob', n: 'Bob’s bid' } : { days: 7 }),
    cadence: 'daily',
    localTime: '09:00',
    timeZone: 'Europe/London',
    createdBy: 'U0ADMIN',
    createdAt: new Date(),
    pausedReason,
    nextRunAt: new Date(Date.now() + 86_400_000),
    cursor: null,
    skippedCount: 0,
  };
  expect(await harness.context.store.createSubscription(subscription)).toBe(true);
  return subscription;
}

describe('subscriptionCommand: subscribe', () => {
  it('follows a search, on the cadence and time given, and says so in the channel', async () => {
    const { said, subscriptions } = await subscribe('search cleaning hourly', 'C0BIDS');
    expect(said).toBe('');
    expect(subscriptions).toHaveLength(1);
    const [made] = subscriptions;
    expect(made).toMatchObject({ kind: 'search', cadence: 'hourly', createdBy: 'U0ADMIN' });
    expect(JSON.parse(made?.target ?? '{}').f.q).toBe('cleaning');
    const [posted] = botPostsIn('C0BIDS');
    expect(posted?.text).toContain('Subscribed:');
    expect(JSON.stringify(posted?.blocks)).toContain('<@U0ADMIN> subscribed this channel');

    // A saved search by its id follows that search.
    const saved = await subscribe('search ss-acme-001', 'C0BIDS');
    expect(saved.said).toBe('');
    const followed = saved.subscriptions.find((subscription) => subscription.id !== made?.id);
    expect(JSON.parse(followed?.target ?? '{}')).toMatchObject({ ss: 'ss-acme-001', f: { q: 'cleaning' } });
  });

  it('follows a sentence as the same sentence searches: its region and amount, not its words', async () => {
    const before = await subscriptionsOf('C0BIDS');
    const posts = botPostsIn('C0BIDS').length;
    const { said, subscriptions } = await subscribe('search cleaning in Wales over £100k daily', 'C0BIDS');
    expect(said).toBe('');
    const made = subscriptions.filter((subscription) => !before.some((old) => old.id === subscription.id));
    expect(made).toHaveLength(1);
    const followed = JSON.parse(made[0]?.target ?? '{}').f;
    expect(followed).toMatchObject({ q: 'cleaning', region: 'Wales' });
    expect(JSON.stringify(followed)).toContain('100000');
    const posted = botPostsIn('C0BIDS').slice(posts);
    expect(posted).toHaveLength(1);
    expect(JSON.stringify(posted[0]?.blocks)).not.toContain('in Wales over');
  });

  it('refuses a sentence with a closing day or two regions, saying what a feed takes, and subscribes nothing', async () => {
    const before = (await subscriptionsOf('C0BIDS')).length;
    const day = await subscribe('search cleaning closing before Christmas', 'C0BIDS');
    expect(day.said).toContain('it cannot keep a closing day');
    expect(day.said).toContain('`closes&lt;30d`');
    const two = await subscribe('search cleaning in Wales or London', 'C0BIDS');
    expect(two.said).toContain('A feed follows one region');
    expect(two.said).toContain('`/tender subscribe search cleaning region:"London"`');
    expect(two.subscriptions).toHaveLength(before);
    // A window counted from each post is a feed's own.
    const window = await subscribe('search cleaning closing within 2 weeks', 'C0BIDS');
    expect(window.said).toBe('');
    expect(window.subscriptions).toHaveLength(before + 1);
  });

  it('follows a bid’s progress and the deadlines ahead', async () => {
    const pipeline = await subscribe('pipeline pl-bob weekly 08:30', 'C0GENERAL');
    expect(pipeline.subscriptions).toHaveLength(1);
    expect(pipeline.subscriptions[0]).toMatchObject({
      kind: 'pipeline',
      cadence: 'weekly',
      localTime: '08:30',
    });
    expect(JSON.parse(pipeline.subscriptions[0]?.target ?? '{}').p).toBe('pl-bob');

    const deadlines = await subscribe('deadlines 14', 'C0GENERAL');
    expect(deadlines.subscriptions).toHaveLength(2);
    const reminder = deadlines.subscriptions.find((made) => made.kind === 'deadlines');
    expect(reminder).toMatchObject({ cadence: 'daily' });
    expect(JSON.parse(reminder?.target ?? '{}')).toEqual({ days: 14 });
  });

  it('asks about a feed of a bid’s reference alone: its summaries were meant', async () => {
    const before = (await subscriptionsOf('C0GENERAL')).length;
    const asked = await subscribe('search BID-1', 'C0GENERAL');
    expect(asked.said).toBe(
      '`BID-1` is a bid’s reference, not words to look for in new tenders. Did you mean `/tender subscribe pipeline BID-1`, its progress in this channel?',
    );
    expect(JSON.stringify(asked.request.answers)).toContain('subscribe pipeline BID-1');
    // With a schedule a summary can have, offered with it; with one it cannot, said with why, no button.
    const weekly = await subscribe('search BID-1 weekly 08:00', 'C0GENERAL');
    expect(weekly.said).toContain('Did you mean `/tender subscribe pipeline BID-1 weekly 08:00`');
    expect(JSON.stringify(weekly.request.answers)).toContain(
      '"value":"subscribe pipeline BID-1 weekly 08:00"',
    );
    const hourly = await subscribe('search BID-1 hourly', 'C0GENERAL');
    expect(hourly.said).toContain('Did you mean `/tender subscribe pipeline BID-1 hourly`');
    expect(hourly.said).toContain('hourly');
    expect(JSON.stringify(hourly.request.answers)).not.toContain('"type":"button"');
    expect(await subscriptionsOf('C0GENERAL')).toHaveLength(before);
  });

  it('refuses an archived bid’s summaries, saying how to restore it first', async () => {
    const made = await harness.sandbox.call('POST', '/v1/pipelines', {
      key: KEYS.carolMemberAcme,
      body: { name: 'Archived before subscribing', idempotencyKey: randomUUID() },
    });
    expect(made.status, made.text).toBe(201);
    const bidId = made.body.data.id as string;
    const archived = await harness.sandbox.call('POST', `/v1/pipelines/${bidId}/archive`, {
      key: KEYS.carolMemberAcme,
      body: { archived: true },
    });
    expect(archived.status).toBe(200);
    const before = (await subscriptionsOf('C0GENERAL')).length;
    const refused = await subscribe(`pipeline ${bidId}`, 'C0GENERAL');
    expect(refused.said).toBe(
      `*Archived before subscribing* is archived, so it changes no more and its summaries would have nothing to say. Restore it first with \`/tender pipeline restore ${bidId}\`, then subscribe.`,
    );
    expect(await subscriptionsOf('C0GENERAL')).toHaveLength(before);
  });

  it('refuses a guest, a bad cadence, an unknown bid and days out of range, and subscribes nothing', async () => {
    const guest = await subscribe('search cleaning', 'C0REFUSED', 'U0GUEST');
    expect(guest.said).toContain('Guests can read tenders but cannot subscribe this channel');
    const cadence = await subscribe('deadlines weekly', 'C0REFUSED');
    expect(cadence.said).toContain('A deadline reminder can be daily, not weekly.');
    const unknownBid = await subscribe('pipeline pl-nobody', 'C0REFUSED');
    expect(unknownBid.said).toContain('No bid `pl-nobody` can be seen');
    const unknownReference = await subscribe('pipeline BID-99999', 'C0REFUSED');
    expect(unknownReference.said).toContain('No bid in this workspace is `BID-99999`.');
    const days = await subscribe('deadlines 200', 'C0REFUSED');
    expect(days.said).toContain('Give the days ahead as a whole number from 1 to 90');
    const kind = await subscribe('everything', 'C0REFUSED');
    expect(kind.said).toContain('Did you mean `/tender subscribe search everything`?');
    expect(await subscriptionsOf('C0REFUSED')).toEqual([]);
    // A channel Tenderbot cannot post in: taken back, and said to the person.
    const absent = await subscribe('search cleaning', 'C0NOTIN');
    expect(absent.said).toContain('Tenderbot is not in <#C0NOTIN>, so it cannot post there');
    expect(absent.subscriptions).toEqual([]);
  });
});

describe('listSubscriptions', () => {
  it('lists the channel’s subscriptions with Send now and Unsubscribe', async () => {
    const [made] = await subscriptionsOf('C0BIDS');
    expect(made).toBeDefined();
    const request = harness.request({ userId: 'U0MEMBER', channelId: 'C0BIDS' });
    await listSubscriptions(harness.context, request, false);
    const blocks = JSON.stringify(request.answers[0]?.blocks);
    expect(blocks).toContain(`subscription:${made?.id}`);
    expect(blocks).toContain(SubscriptionIds.sendNow);
    expect(blocks).toContain(SubscriptionIds.unsubscribe);
  });

  it('names a bid’s summaries by its reference and its name now, renamed since subscribing', async () => {
    const made = await harness.sandbox.call('POST', '/v1/pipelines', {
      key: KEYS.carolMemberAcme,
      body: { name: 'Name when subscribed', idempotencyKey: randomUUID() },
    });
    expect(made.status, made.text).toBe(201);
    const bidId = made.body.data.id as string;
    const subscribed = await subscribe(`pipeline ${bidId}`, 'C0GENERAL');
    expect(subscribed.subscriptions.filter((made) => made.target.includes(bidId))).toHaveLength(1);
    const renamed = await harness.sandbox.call('PATCH', `/v1/pipelines/${bidId}`, {
      key: KEYS.carolMemberAcme,
      body: { name: 'Name now' },
    });
    expect(renamed.status).toBe(200);
    const request = harness.request({ userId: 'U0MEMBER', channelId: 'C0GENERAL' });
    await listSubscriptions(harness.context, request, false);
    const listed = JSON.stringify(request.answers[0]?.blocks);
    expect(listed).toMatch(/Summaries of the bid “Name now” \(`BID-\d+`\)/);
    expect(listed).not.toContain('Name when subscribed');
    // Unsubscribing names it the same way.
    const made2 = subscribed.subscriptions.find((each) => each.target.includes(bidId));
    const gone = harness.request({ userId: 'U0ADMIN', channelId: 'C0GENERAL' });
    await unsubscribe(harness.context, gone, made2?.id ?? '', false);
    const goodbye = JSON.stringify([gone.answers, harness.slack.messagesIn('C0GENERAL').slice(-1)]);
    expect(goodbye).toContain('summaries of the bid “Name now”');
    expect(goodbye).not.toContain('Name when subscribed');
  });

  it('shows a guest the subscriptions without Send now or Unsubscribe, which would only refuse them', async () => {
    const [made] = await subscriptionsOf('C0BIDS');
    const request = harness.request({ userId: 'U0GUEST', channelId: 'C0BIDS' });
    await listSubscriptions(harness.context, request, false);
    const blocks = JSON.stringify(request.answers[0]?.blocks);
    expect(blocks).toContain('Subscriptions of <#C0BIDS>');
    expect(blocks).toContain(`set up by <@${made?.createdBy}>`);
    expect(blocks).not.toContain(SubscriptionIds.sendNow);
    expect(blocks).not.toContain(SubscriptionIds.unsubscribe);
    expect(blocks).not.toContain('/tender unsubscribe');
    // A channel without any: said, without the commands that would only refuse them.
    const empty = harness.request({ userId: 'U0GUEST', channelId: 'C0EMPTY' });
    await listSubscriptions(harness.context, empty, false);
    expect(empty.said()).toBe('<#C0EMPTY> has no subscriptions.');
  });

  it('says a channel without any has none, and how to start one', async () => {
    const request = harness.request({ userId: 'U0MEMBER', channelId: 'C0EMPTY' });
    await listSubscriptions(harness.context, request, false);
    expect(request.said()).toContain('has no subscriptions');
    expect(JSON.stringify(request.answers[0]?.blocks)).not.toContain(SubscriptionIds.sendNow);
  });
});

describe('unsubscribe', () => {
  it('removes the subscription, and from the list redraws the list without it', async () => {
    const kept = await storedSubscription('C0UNSUB');
    const gone = await storedSubscription('C0UNSUB');
    const request = harness.request({ userId: 'U0MEMBER', channelId: 'C0UNSUB', kind: 'click' });
    await unsubscribe(harness.context, request, gone.id, true);
    expect(request.said()).toContain('Unsubscribed <#C0UNSUB>');
    expect(request.answers[0]?.replace_original).toBe(true);
    const blocks = JSON.stringify(request.answers[0]?.blocks);
    expect(blocks).toContain(`subscription:${kept.id}`);
    expect(blocks).not.toContain(`subscription:${gone.id}`);
    expect((await subscriptionsOf('C0UNSUB')).map((left) => left.id)).toEqual([kept.id]);
  });

  it('refuses a guest, and says an unknown id is not a subscription', async () => {
    const kept = await storedSubscription('C0UNSUB2');
    const guest = harness.request({ userId: 'U0GUEST', channelId: 'C0UNSUB2' });
    await unsubscribe(harness.context, guest, kept.id, false);
    expect(guest.said()).toContain('Guests can read tenders but cannot change subscriptions');
    const unknown = harness.request({ userId: 'U0ADMIN', channelId: 'C0UNSUB2' });
    await subscriptionCommand(harness.context, unknown, 'unsubscribe', 's-nothere');
    expect(unknown.said()).toContain('No subscription has the id `s-nothere`');
    const missing = harness.request({ userId: 'U0ADMIN', channelId: 'C0UNSUB2' });
    await subscriptionCommand(harness.context, missing, 'unsubscribe', '  ');
    expect(missing.said()).toContain('Which subscription?');
    expect((await subscriptionsOf('C0UNSUB2')).map((left) => left.id)).toEqual([kept.id]);
  });
});

describe('sendNow', () => {
  it('plans a post at once, wakes the scheduler, and starts a paused subscription again', async () => {
    let woken = 0;
    const context = { ...harness.context, scheduler: { wake: () => void woken++ } };
    const paused = await storedSubscription('C0BIDS', 'Tenderbot was removed from the channel', 'pipeline');
    const request = harness.request({ userId: 'U0MEMBER', channelId: 'C0BIDS', kind: 'click' });
    await sendNow(context, request, paused.id);
    expect(request.said()).toContain('Started again. Posting');
    expect(woken).toBe(1);
    const deliveries = await harness.context.store.subscriptionDeliveries(paused.id);
    expect(deliveries.map((delivery) => delivery.manual)).toEqual([true]);
    const resumed = await harness.context.store.getSubscription(harness.slack.teamId, paused.id);
    expect(resumed?.pausedReason).toBeNull();
  });

  it('keeps a paused subscription paused while Tenderbot is still out of its channel, and says to invite it', async () => {
    let woken = 0;
    const context = { ...harness.context, scheduler: { wake: () => void woken++ } };
    const paused = await storedSubscription(
      'C0NOTJOINED',
      'Tenderbot was removed from the channel',
      'pipeline',
    );
    const request = harness.request({ userId: 'U0MEMBER', channelId: 'C0NOTJOINED', kind: 'click' });
    await sendNow(context, request, paused.id);
    expect(request.said()).toBe(
      'Tenderbot is not in <#C0NOTJOINED>, so this subscription stays paused: invite it there (`/invite @Tenderbot`), then press *Send now* again.',
    );
    expect(woken).toBe(0);
    expect(await harness.context.store.subscriptionDeliveries(paused.id)).toEqual([]);
    const still = await harness.context.store.getSubscription(harness.slack.teamId, paused.id);
    expect(still?.pausedReason).toBe('Tenderbot was removed from the channel');
  });

  it('keeps a subscription of an archived channel paused, and says how to remove it rather than to invite Tenderbot', async () => {
    const paused = await storedSubscription('C0GENERAL', 'the channel was archived', 'pipeline');
    harness.slack.archiveChannel('C0GENERAL');
    try {
      const request = harness.request({ userId: 'U0MEMBER', channelId: 'C0GENERAL', kind: 'click' });
      await sendNow(harness.context, request, paused.id);
      expect(request.said()).toBe(
        `<#C0GENERAL> is archived, so this subscription stays paused: nothing can be posted there. \`/tender unsubscribe ${paused.id}\` removes it.`,
      );
      expect(await harness.context.store.subscriptionDeliveries(paused.id)).toEqual([]);
    } finally {
      harness.slack.unarchiveChannel('C0GENERAL');
    }
  });

  it('a running subscription in a channel Tenderbot is not in: says to invite it, plans nothing; the list says so above it', async () => {
    let woken = 0;
    const context = { ...harness.context, scheduler: { wake: () => void woken++ } };
    const running = await storedSubscription('C0NOTJOINED', null, 'pipeline');
    const request = harness.request({ userId: 'U0MEMBER', channelId: 'C0NOTJOINED', kind: 'click' });
    await sendNow(context, request, running.id);
    expect(request.said()).toBe(
      'Tenderbot is not in <#C0NOTJOINED>, so nothing can be posted there: invite it there (`/invite @Tenderbot`), then press *Send now* again.',
    );
    expect(woken).toBe(0);
    expect(await harness.context.store.subscriptionDeliveries(running.id)).toEqual([]);

    const list = harness.request({ userId: 'U0MEMBER', channelId: 'C0NOTJOINED' });
    await subscriptionCommand(harness.context, list, 'subscriptions', '');
    expect(textOf(list.answers[0])).toContain(
      'Tenderbot is not in <#C0NOTJOINED>, so none of these can post here until it is invited (`/invite @Tenderbot`).',
    );
  });

  it('refuses a guest, and says an unknown id is no subscription, as Unsubscribe says it', async () => {
    const subscription = await storedSubscription('C0SEND2');
    const guest = harness.request({ userId: 'U0GUEST', channelId: 'C0SEND2', kind: 'click' });
    await sendNow(harness.context, guest, subscription.id);
    expect(guest.said()).toContain('Guests can read tenders but cannot send subscription posts');
    expect(await harness.context.store.subscriptionDeliveries(subscription.id)).toEqual([]);
    const member = harness.request({ userId: 'U0MEMBER', channelId: 'C0SEND2', kind: 'click' });
    await sendNow(harness.context, member, 's-nothere');
    expect(member.said()).toContain(
      'No subscription has the id `s-nothere` (it may be unsubscribed already). `/tender subscriptions` lists this channel’s.',
    );
  });

  it('says a subscription unsubscribed while it was being sent is gone, not that it is posting', async () => {
    // In a channel Tenderbot is in: only the unsubscribe keeps it from posting.
    const subscription = await storedSubscription('C0BIDS', null, 'pipeline');
    // Read before the unsubscribe, as a click that arrives just before another's Unsubscribe.
    const store = { ...harness.context.store, getSubscription: async () => subscription };
    expect(await harness.context.store.removeSubscription(subscription.teamId, subscription.id)).toBe(true);
    const member = harness.request({ userId: 'U0MEMBER', channelId: 'C0BIDS', kind: 'click' });
    await sendNow({ ...harness.context, store }, member, subscription.id);
    expect(member.said()).toContain(`No subscription has the id \`${subscription.id}\``);
    expect(member.said()).not.toContain('Posting');
  });
});

describe('listMore', () => {
  it('lists a page of the tenders a feed post froze, without the service', async () => {
    const subscription = await storedSubscription('C0MORE');
    const deliveryId = randomUUID();
    const store = harness.context.store;
    expect(
      await store.addManualDelivery({ id: deliveryId, subscriptionId: subscription.id, dueAt: new Date() }),
    ).toBe(true);
    const claimed = await store.claimChannelsOf([deliveryId], 'test', new Date(), 60_000, 0);
    expect(claimed.map((delivery) => delivery.id)).toEqual([deliveryId]);
    const listed = Array.from({ length: 25 }, (_, index) => ({
      id: `ocds-test-${index}`,
      title: `Listed tender ${index}`,
      buyer: 'A council',
      deadline: null,
    }));
    const frozen: Frozen = {
      parts: [],
      itemKeys: listed.map((tender) => tender.id),
      cursor: null,
      skippedSaid: 0,
    };
    const frozenAnswer = await store.freezeDelivery(
      deliveryId,
      'test',
      JSON.stringify(frozen),
      frozen.itemKeys,
      listed.map((tender) => JSON.stringify(tender)),
    );
    expect(frozenAnswer).toEqual({ ok: true });
    const request = harness.request({ userId: 'U0MEMBER', channelId: 'C0MORE', kind: 'click' });
    await listMore(harness.context, request, JSON.stringify({ d: deliveryId, o: 20 }), false);
    const blocks = JSON.stringify(request.answers[0]?.blocks);
    expect(blocks).toContain('21–25 of 25');
    expect(blocks).toContain('Listed tender 24');
    expect(blocks).not.toContain('Listed tender 19');
  });

  it('says a post’s list is gone, and a forged value is a button out of date', async () => {
    const request = harness.request({ userId: 'U0MEMBER', channelId: 'C0MORE', kind: 'click' });
    await listMore(harness.context, request, JSON.stringify({ d: randomUUID(), o: 0 }), false);
    expect(request.said()).toContain('its list is no longer kept');
    await expect(listMore(harness.context, request, '{"d":"x"}', false)).rejects.toBeInstanceOf(
      StaleValueError,
    );
  });
});
