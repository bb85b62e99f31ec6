import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubscriptionIds } from '../../../src/app/shared/ids.ts';
import { eventually } from '../../support/bot.ts';
import {
  duplicates,
  Harness,
  type Instance,
  dueSubscription as makeDueSubscription,
  pipelineSubscription,
} from './harness.ts';

const harness = new Harness('2027-01-11T08:00:00Z', mkdtempSync(join(tmpdir(), 'tenderbot-faults-')));
let a: Instance;
let b: Instance;

beforeAll(async () => {
  await harness.start();
  a = await harness.instance('A');
  b = await harness.instance('B', false);
}, 60_000);

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await harness.stop();
});

const dueSubscription = (channelId: string, createdBy?: string, nextRunAt?: Date) =>
  makeDueSubscription(harness, a.store, channelId, createdBy, nextRunAt);

const historyCalls = () => harness.slack.callsOf('conversations.history').length;

describe('exactly once when Slack’s answer is lost', () => {
  it('a copy that dies between sending and recording is taken over and settled from history, not reposted', async () => {
    const subscription = await dueSubscription('C0HOLD');
    // Slack stores A's post but holds its answer: A is as good as killed before it records anything.
    harness.slack.failNext('chat.postMessage', { kind: 'hold' }, { channel: 'C0HOLD' });
    const abandoned = a.bot.scheduler.runDue();
    await eventually(() => harness.slack.heldCount === 1, 'the held answer');
    expect(harness.postsOf('C0HOLD', subscription.id)).toHaveLength(1);
    const [delivery] = await b.store.subscriptionDeliveries(subscription.id);
    expect(delivery).toMatchObject({ state: 'working', leaseOwner: 'A', attemptingPart: 0, postedTs: [] });

    // Within A's lease, B leaves it alone; after it, B settles from the channel's history.
    harness.now += 30_000;
    await harness.pass(b);
    expect(await b.store.getDelivery(delivery?.id as string)).toMatchObject({ leaseOwner: 'A' });
    const historyBefore = historyCalls();
    harness.now += 31_000;
    await harness.pass(b);
    expect(historyCalls()).toBe(historyBefore + 1);
    const posts = harness.postsOf('C0HOLD', subscription.id);
    expect(posts).toHaveLength(1);
    const settled = await b.store.getDelivery(delivery?.id as string);
    expect(settled).toMatchObject({ state: 'sent', leaseOwner: 'B', postedTs: [posts[0]?.ts] });

    // A's answer finally arrives: it records nothing and posts nothing.
    expect(harness.slack.releaseHeld()).toBe(1);
    await abandoned;
    expect(harness.postsOf('C0HOLD', subscription.id)).toHaveLength(1);
    expect(await b.store.getDelivery(delivery?.id as string)).toEqual(settled);
    // Nothing more is due today.
    await harness.pass(a, b);
    expect(harness.postsOf('C0HOLD', subscription.id)).toHaveLength(1);
  });

  it('an answer dropped after Slack stored the message is settled from history, not reposted', async () => {
    const subscription = await dueSubscription('C0GENERAL');
    harness.slack.failNext('chat.postMessage', { kind: 'drop-answer' }, { channel: 'C0GENERAL' });
    await harness.pass(a);
    expect(harness.postsOf('C0GENERAL', subscription.id)).toHaveLength(1);
    const [delivery] = await a.store.subscriptionDeliveries(subscription.id);
    expect(delivery).toMatchObject({ state: 'pending', attemptingPart: 0, postedTs: [] });
    // Slack may still be storing it: the history is read a little later (and a minute after the
    // last test's read: Slack serves an app outside the Marketplace a history call a minute).
    await harness.pass(a, b);
    expect(harness.postsOf('C0GENERAL', subscription.id)).toHaveLength(1);
    harness.now += 60_000;
    await harness.pass(b, a);
    const posts = harness.postsOf('C0GENERAL', subscription.id);
    expect(posts).toHaveLength(1);
    expect(await a.store.getDelivery(delivery?.id as string)).toMatchObject({
      state: 'sent',
      postedTs: [posts[0]?.ts],
    });
  });

  it('a post Slack failed without storing is looked for, not found, and posted once', async () => {
    const subscription = await dueSubscription('C0FEED');
    harness.slack.failNext(
      'chat.postMessage',
      { kind: 'error', error: 'internal_error' },
      { channel: 'C0FEED' },
    );
    await harness.pass(a);
    expect(harness.postsOf('C0FEED', subscription.id)).toHaveLength(0);
    // A minute on: the last test's history read is a minute old.
    harness.now += 60_000;
    await harness.pass(a, b);
    expect(harness.postsOf('C0FEED', subscription.id)).toHaveLength(1);
  });
});

describe('within Slack’s limits', () => {
  it('waits out a burst of 429s with Retry-After, one post a second per channel, and loses nothing', async () => {
    harness.slack.postsPerSecondPerChannel = 1;
    const rateLimitedBefore = harness.slack.rateLimited;
    const subscriptions = [];
    for (const channel of ['C0BURST', 'C0BURST', 'C0BURST', 'C0TOKYO', 'C0TOKYO', 'C0BIDS'])
      subscriptions.push(await dueSubscription(channel));
    // Slack refuses the next five posts wherever they go, asking for 3 s each time.
    harness.slack.failNext('chat.postMessage', { kind: 'ratelimit', retryAfterSeconds: 3, times: 5 });
    const started = harness.now;
    await harness.runUntil(started + 60_000, () => [a, b], 1000);
    expect(harness.slack.rateLimited - rateLimitedBefore).toBeGreaterThanOrEqual(5);
    for (const subscription of subscriptions) {
      const posts = harness.postsOf(subscription.channelId, subscription.id);
      expect(posts).toHaveLength(1);
      expect(duplicates(posts)).toEqual([]);
      const [delivery] = await a.store.subscriptionDeliveries(subscription.id);
      expect(delivery?.state).toBe('sent');
    }
    // Never two accepted posts in one channel within a second.
    const times = harness.slack
      .messagesIn('C0BURST')
      .filter((message) => message.ephemeralTo === null)
      .map((message) => Number(message.ts));
    for (let index = 1; index < times.length; index++)
      expect((times[index] as number) - (times[index - 1] as number)).toBeGreaterThanOrEqual(1);
    harness.slack.postsPerSecondPerChannel = undefined;
  });

  it('two copies taking turns in one channel keep its pace between them: no 429, a second between posts', async () => {
    harness.slack.postsPerSecondPerChannel = 1;
    const rateLimitedBefore = harness.slack.rateLimited;
    const subscriptions = [];
    for (let index = 0; index < 4; index++) subscriptions.push(await dueSubscription('C0TURNS'));
    const started = harness.now;
    // Passes every 250 ms, each copy in turn first: the next post of the channel is claimable by
    // the other copy as soon as one finishes, which knows the channel's pace only from the store
    // (before the finish wrote it there, these passes met three 429s).
    await harness.runUntil(started + 10_000, () => [a, b], 250);
    expect(harness.slack.rateLimited - rateLimitedBefore).toBe(0);
    for (const subscription of subscriptions) {
      expect(harness.postsOf('C0TURNS', subscription.id)).toHaveLength(1);
      const [delivery] = await a.store.subscriptionDeliveries(subscription.id);
      expect(delivery?.state).toBe('sent');
    }
    const times = harness.slack
      .messagesIn('C0TURNS')
      .filter((message) => message.ephemeralTo === null)
      .map((message) => Number(message.ts));
    expect(times).toHaveLength(4);
    for (let index = 1; index < times.length; index++)
      expect((times[index] as number) - (times[index - 1] as number)).toBeGreaterThanOrEqual(1);
    harness.slack.postsPerSecondPerChannel = undefined;
  });

  it('Retry-After holds the whole channel for both copies, not only the post Slack refused', async () => {
    const subscriptions = [];
    for (let index = 0; index < 3; index++) subscriptions.push(await dueSubscription('C0RETRY'));
    // The first post is refused with Retry-After 5 s; nothing more may go there before then.
    harness.slack.failNext('chat.postMessage', { kind: 'ratelimit', retryAfterSeconds: 5, times: 1 });
    const refusedAt = harness.now;
    await harness.runUntil(refusedAt + 20_000, () => [a, b], 250);
    const times = harness.slack
      .messagesIn('C0RETRY')
      .filter((message) => message.ephemeralTo === null)
      .map((message) => Number(message.ts) * 1000);
    expect(times).toHaveLength(3);
    for (const time of times) expect(time).toBeGreaterThanOrEqual(refusedAt + 5000);
    for (const subscription of subscriptions)
      expect(harness.postsOf('C0RETRY', subscription.id)).toHaveLength(1);
  });

  it('after downtime posts the period still open marked late, skips the others, and says how many', async () => {
    const nineAm = new Date(harness.now - (harness.now % 86_400_000) + 86_400_000 + 9 * 3_600_000);
    const subscription = await dueSubscription('C0AWAY', 'U0ADMIN', nineAm);
    // Nobody runs from before its first 09:00 until two days and three hours after it.
    harness.now = nineAm.getTime() + 2 * 86_400_000 + 3 * 3_600_000;
    await harness.pass(a);
    const [late] = harness.postsOf('C0AWAY', subscription.id);
    const text = JSON.stringify(late?.blocks);
    expect(text).toContain('Late: this was due');
    expect(text).toContain('2 earlier posts were skipped while Tenderbot was not running');
    const deliveries = await a.store.subscriptionDeliveries(subscription.id);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]?.dueAt.getTime()).toBe(subscription.nextRunAt.getTime() + 2 * 86_400_000);
    // The next day's post is on time and says nothing of it.
    harness.now =
      (await a.store.getSubscription(subscription.teamId, subscription.id))?.nextRunAt.getTime() ?? 0;
    await harness.pass(a);
    const posts = harness.postsOf('C0AWAY', subscription.id);
    expect(posts).toHaveLength(2);
    expect(JSON.stringify(posts[1]?.blocks)).not.toMatch(/Late|skipped/);
  });
});

describe('channel access', () => {
  it('the direct message names a paused bid summary by its reference and its name now, not the name kept when subscribed', async () => {
    const renamed = pipelineSubscription(harness, {
      id: `s-${randomUUID().slice(0, 6)}`,
      channelId: 'C0RENAMED',
      nextRunAt: harness.clock(),
      target: JSON.stringify({ p: 'pl-bob', n: 'Bob’s first name for it' }),
      timeZone: 'UTC',
      createdBy: 'U0TOKYO',
    });
    expect(await a.store.createSubscription(renamed)).toBe(true);
    harness.slack.archiveChannel('C0RENAMED');
    await harness.pass(a);
    const told = await eventually(
      () => harness.slack.messagesIn(harness.slack.dmOf('U0TOKYO')).at(-1),
      'the direct message',
    );
    const said = JSON.stringify(told.blocks);
    expect(said).toContain('the channel was archived');
    expect(said).toMatch(/BID-\d+/);
    expect(said).toContain('Bob’s hospital cleaning bid');
    expect(said).not.toContain('Bob’s first name for it');
  });

  it('a channel archived pauses its subscriptions and tells the subscriber once; Send now starts them again', async () => {
    const first = await dueSubscription('C0ARCHIVE', 'U0MEMBER');
    const second = await dueSubscription('C0ARCHIVE', 'U0MEMBER');
    harness.slack.archiveChannel('C0ARCHIVE');
    await harness.pass(a, b);
    harness.now += 2000;
    await harness.pass(b, a);
    const dm = harness.slack.messagesIn(harness.slack.dmOf('U0MEMBER'));
    expect(dm).toHaveLength(1);
    expect(dm[0]?.text).toContain('the channel was archived');
    for (const each of [first, second])
      expect((await a.store.getSubscription(each.teamId, each.id))?.pausedReason).toBe(
        'the channel was archived',
      );
    // A day later nothing is planned, posted or said again.
    harness.now += 86_400_000;
    await harness.pass(a, b);
    expect(harness.slack.messagesIn(harness.slack.dmOf('U0MEMBER'))).toHaveLength(1);

    harness.slack.unarchiveChannel('C0ARCHIVE');
    const list = await harness.command('U0MEMBER', 'C0ARCHIVE', 'subscriptions');
    expect(JSON.stringify(list.blocks)).toContain('Paused: the channel was archived');
    const before = harness.slack.messagesIn('C0ARCHIVE', 'U0MEMBER').length;
    const sent = await harness.slack.clickInMessage('U0MEMBER', list, SubscriptionIds.sendNow);
    const said = await eventually(
      () => harness.slack.answerTo(sent, 'C0ARCHIVE', 'U0MEMBER', before),
      'Send now’s answer',
    );
    expect(said.text).toContain('Started again');
    await harness.pass(a);
    expect(
      harness.postsOf('C0ARCHIVE', first.id).length + harness.postsOf('C0ARCHIVE', second.id).length,
    ).toBe(1);
  });

  it('subscribing where Tenderbot is not says how to invite it, and subscribes nothing', async () => {
    await harness.slack.removeApp('C0GENERAL');
    const answer = await harness.command('U0ADMIN', 'C0GENERAL', 'subscribe deadlines 5');
    expect(answer.ephemeralTo).toBe('U0ADMIN');
    expect(answer.text).toContain('Invite it with `/invite @Tenderbot`');
    expect(
      (await a.store.channelSubscriptions(harness.slack.teamId, 'C0GENERAL')).filter(
        (each) => each.kind === 'deadlines',
      ),
    ).toEqual([]);
  });

  it('refuses guests, and says what to type for a bad subscription', async () => {
    const guest = await harness.command('U0GUEST', 'C0BIDS', 'subscribe pipeline pl-bob');
    expect(guest.text).toContain(
      'Guests can read tenders but cannot subscribe this channel to summaries, feeds or reminders',
    );
    expect((await harness.command('U0ADMIN', 'C0BIDS', 'subscribe pipeline nope-1')).text).toContain(
      'No bid `nope-1` can be seen',
    );
    expect((await harness.command('U0ADMIN', 'C0BIDS', 'subscribe pipeline pl-bob hourly')).text).toContain(
      'can be daily or weekly, not hourly',
    );
    expect((await harness.command('U0ADMIN', 'C0BIDS', 'subscribe deadlines 500')).text).toContain(
      'from 1 to 90',
    );
    expect((await harness.command('U0ADMIN', 'C0BIDS', 'subscribe')).text).toContain(
      '/tender subscribe pipeline',
    );
  });

  it('lists a channel’s subscriptions; Unsubscribe removes one and redraws the list', async () => {
    const made = await harness.command('U0ADMIN', 'C0BIDS', 'subscribe search status:open hourly');
    expect(made.ephemeralTo).toBeNull();
    const list = await harness.command('U0ADMIN', 'C0BIDS', 'subscriptions');
    expect(JSON.stringify(list.blocks)).toContain('New open tenders');
    const [subscription] = (await a.store.channelSubscriptions(harness.slack.teamId, 'C0BIDS')).filter(
      (each) => each.kind === 'search',
    );
    const block = list.blocks.find(
      (each: { block_id?: string }) => each.block_id === `subscription:${subscription?.id}`,
    );
    expect(block).toBeTruthy();
    // The click is on that subscription's own button.
    list.blocks = [block];
    await harness.slack.clickInMessage('U0ADMIN', list, SubscriptionIds.unsubscribe);
    await eventually(() => JSON.stringify(list.blocks).includes('Unsubscribed'), 'the list redrawn');
    expect(await a.store.getSubscription(harness.slack.teamId, subscription?.id as string)).toBeNull();
  });
});
