import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineIds, SubscriptionIds } from '../../../../src/app/shared/ids.ts';
import { eventually } from '../../../support/bot.ts';
import { KEYS } from '../../../support/fixture.ts';
import { Harness, type Instance } from '../../delivery/harness.ts';

/** What a person reads of a message: its fallback text and its blocks. */
const said = (message: { text?: string; blocks?: unknown }) =>
  `${message.text ?? ''} ${JSON.stringify(message.blocks ?? [])}`;

const harness = new Harness('2027-05-03T08:00:00Z', mkdtempSync(join(tmpdir(), 'tenderbot-send-now-')));
let a: Instance;

beforeAll(async () => {
  await harness.start();
  a = await harness.instance('A');
});
afterAll(async () => {
  await a?.stop();
  await harness.stop();
});

/** Everything posted in `channel` for everyone (not one person's ephemeral answers). */
const publicIn = (channel: string) =>
  harness.slack.messagesIn(channel).filter((message) => message.ephemeralTo === null);

/** Clicks Send now on the channel's list of subscriptions; resolves with what the presser reads. */
async function sendNow(user: string, channel: string) {
  // Only the presser's own messages: a post or a card in the channel may land meanwhile.
  const own = () => harness.slack.messagesIn(channel, user).filter((message) => message.ephemeralTo === user);
  const listed = own().length;
  const answer = await harness.slack.slashCommand(user, channel, '/tender', 'subscriptions');
  expect(answer.status).toBe(200);
  // The answer to this command, and to this click: an answer to an earlier click may land first.
  const list = await eventually(
    () =>
      own()
        .slice(listed)
        .find((message) => message.postedThrough === answer.responseUrl),
    'the list of subscriptions',
  );
  expect(said(list)).toContain(SubscriptionIds.sendNow);
  const before = own().length;
  const clicked = await harness.slack.clickInMessage(user, list, SubscriptionIds.sendNow);
  return eventually(
    () =>
      own()
        .slice(before)
        .find((message) => message.postedThrough === clicked.responseUrl),
    'Send now’s answer',
  );
}

describe('Send now', () => {
  it('with nothing new posts nothing in the channel, and shows the presser alone what it would have said', async () => {
    const made = await harness.command('U0ADMIN', 'C0AWAY', 'subscribe search dredging hourly');
    expect(made.ephemeralTo).toBeNull();
    const [subscription] = await a.store.channelSubscriptions(harness.slack.teamId, 'C0AWAY');
    const channelBefore = publicIn('C0AWAY').length;

    const answer = await sendNow('U0MEMBER', 'C0AWAY');
    expect(answer.ephemeralTo).toBe('U0MEMBER');
    expect(said(answer)).toContain('Nothing new to post, so <#C0AWAY> got nothing. It would have said:');
    // What the post would have said, for the presser: the feed's heading and its sentence.
    expect(said(answer)).toContain('0 new tenders');
    expect(said(answer)).toContain('dredging');
    expect(said(answer)).toContain('Nothing new was published since');
    // And what it follows: no tender matches it at all yet.
    expect(said(answer)).toContain(
      'No tender matches it at all yet, so its posts will be the first that do.',
    );

    // The scheduler runs: the channel still has nothing new in it.
    harness.now += 60_000;
    await harness.pass(a);
    expect(harness.postsOf('C0AWAY', subscription?.id as string)).toEqual([]);
    expect(publicIn('C0AWAY')).toHaveLength(channelBefore);
    expect(await a.store.subscriptionDeliveries(subscription?.id as string)).toEqual([]);
  });

  it('with something new posts it in the channel, for everyone', async () => {
    const [subscription] = await a.store.channelSubscriptions(harness.slack.teamId, 'C0AWAY');
    harness.now += 60_000;
    await harness.importTenders(['Harbour dredging works'], new Date(harness.now - 1000));
    harness.now += 1000;
    const answer = await sendNow('U0MEMBER', 'C0AWAY');
    expect(said(answer)).toContain('Posting new tenders for');
    await harness.pass(a);
    const posts = harness.postsOf('C0AWAY', subscription?.id as string);
    expect(posts).toHaveLength(1);
    expect(said(posts[0] as { text?: string; blocks?: unknown })).toContain('Harbour dredging works');
    expect(said(posts[0] as { text?: string; blocks?: unknown })).toContain('1 new tender');
  });

  it('with nothing new since its last post, shows the presser the newest tenders it follows, marked as not new', async () => {
    const [subscription] = await a.store.channelSubscriptions(harness.slack.teamId, 'C0AWAY');
    const postsBefore = harness.postsOf('C0AWAY', subscription?.id as string).length;
    harness.now += 120_000;
    const answer = await sendNow('U0MEMBER', 'C0AWAY');
    expect(said(answer)).toContain('Nothing new to post, so <#C0AWAY> got nothing.');
    expect(said(answer)).toMatch(
      /\*What it follows:\* 1 tender matches it from before [^,]+, \d+:\d+, and it posts only those published after\. The newest:\\n• \*Harbour dredging works\*/,
    );
    await harness.pass(a);
    expect(harness.postsOf('C0AWAY', subscription?.id as string)).toHaveLength(postsBefore);
  });

  it('of a bid’s summary posts it, naming the bid as its card does, its card one click away', async () => {
    await harness.command('U0ADMIN', 'C0HOLD', 'subscribe pipeline pl-bob');
    const [subscription] = await a.store.channelSubscriptions(harness.slack.teamId, 'C0HOLD');
    const answer = await sendNow('U0ADMIN', 'C0HOLD');
    expect(said(answer)).toContain('Posting summaries of the bid');
    await harness.pass(a);
    const [summary] = harness.postsOf('C0HOLD', subscription?.id as string);
    expect(summary?.text).toMatch(/^Summary of /);
    expect(said(summary as { text?: string })).not.toContain('/tender pipeline pl-bob');
    const cards = () => publicIn('C0HOLD').filter((message) => said(message).includes(PipelineIds.archive));
    await harness.slack.clickInMessage('U0ADMIN', summary as NonNullable<typeof summary>, PipelineIds.post);
    await eventually(() => cards().length === 1, 'the bid’s card, posted from the summary');
    // Its answer to the presser too, before the next test reads the presser's messages here.
    await eventually(
      () =>
        harness.slack
          .messagesIn('C0HOLD', 'U0ADMIN')
          .some(
            (message) => message.ephemeralTo === 'U0ADMIN' && said(message).includes('Posted the card of'),
          ),
      'the presser’s answer',
    );
  });

  it('pressed again within the minute (a double click, an impatient third press) posts once', async () => {
    const [subscription] = await a.store.channelSubscriptions(harness.slack.teamId, 'C0HOLD');
    const id = subscription?.id as string;
    harness.now += 120_000;
    await harness.pass(a);
    const before = harness.postsOf('C0HOLD', id).length;
    const first = await sendNow('U0ADMIN', 'C0HOLD');
    const second = await sendNow('U0MEMBER', 'C0HOLD');
    const third = await sendNow('U0ADMIN', 'C0HOLD');
    expect(said(first)).toContain('Posting summaries of the bid');
    for (const answer of [second, third])
      expect(said(answer)).toContain('moments ago, so no second one was made.');
    await harness.pass(a);
    expect(harness.postsOf('C0HOLD', id)).toHaveLength(before + 1);
    // A minute on, it is a new press.
    harness.now += 61_000;
    expect(said(await sendNow('U0ADMIN', 'C0HOLD'))).toContain('Posting summaries of the bid');
    await harness.pass(a);
    expect(harness.postsOf('C0HOLD', id)).toHaveLength(before + 2);
  });

  it('reminds of a bid by its name as its card names it (a bid called “Bid: …” never reads “Bid Bid”)', async () => {
    const target = new Date(harness.now + 5 * 86_400_000).toISOString().slice(0, 10);
    const made = await harness.sandbox.call('POST', '/v1/pipelines', {
      key: KEYS.carolMemberAcme,
      body: {
        name: 'Bid: Harbour works',
        idempotencyKey: randomUUID(),
        targetSubmissionDate: target,
      },
    });
    expect(made.status, made.text).toBe(201);
    await harness.command('U0ADMIN', 'C0TOKYO', 'subscribe deadlines 14');
    const [subscription] = await a.store.channelSubscriptions(harness.slack.teamId, 'C0TOKYO');
    await sendNow('U0ADMIN', 'C0TOKYO');
    await harness.pass(a);
    const [reminder] = harness.postsOf('C0TOKYO', subscription?.id as string);
    const text = said(reminder as { text?: string });
    expect(text).toContain(':dart: *Bid: Harbour works* · target date');
    expect(text).not.toContain('Bid *Bid');
    // Named by its reference, as its card names it, never by its id.
    expect(text).toMatch(/Bid: Harbour works\* · target date [^\n]* · `BID-\d+`/);
    expect(text).not.toContain(JSON.parse(made.text).id);
  });

  it('with no deadline coming due posts no empty reminder', async () => {
    await harness.command('U0ADMIN', 'C0BURST', 'subscribe deadlines 3');
    const channelBefore = publicIn('C0BURST').length;
    const answer = await sendNow('U0ADMIN', 'C0BURST');
    expect(said(answer)).toContain('Nothing new to post');
    expect(said(answer)).toContain('Nothing bookmarked or bid on is due within 3 days');
    await harness.pass(a);
    expect(publicIn('C0BURST')).toHaveLength(channelBefore);
  });
});

describe('a subscription is changed from its own channel', () => {
  it('refuses Send now and Unsubscribe for another channel’s feed; an admin may unsubscribe one from anywhere', async () => {
    const made = await harness.command('U0ADMIN', 'C0BIDS', 'subscribe search quarrying hourly');
    expect(made.ephemeralTo).toBeNull();
    const feed = (await a.store.channelSubscriptions(harness.slack.teamId, 'C0BIDS')).find((each) =>
      each.target.includes('quarrying'),
    );
    if (!feed) throw new Error('no feed');
    // Its list's Send now button, as if it were in another channel's message (a forged or moved value).
    const list = await harness.command('U0MEMBER', 'C0BIDS', 'subscriptions');
    const before = harness.slack.messagesIn('C0AWAY', 'U0MEMBER').length;
    const sent = await harness.slack.clickInMessage(
      'U0MEMBER',
      { ...list, channel: 'C0AWAY' },
      SubscriptionIds.sendNow,
    );
    const answer = await eventually(
      () => harness.slack.answerTo(sent, 'C0AWAY', 'U0MEMBER', before),
      'the answer',
    );
    expect(said(answer)).toContain('That subscription posts in <#C0BIDS>: send it from there');
    expect(await a.store.subscriptionDeliveries(feed.id)).toEqual([]);

    const refused = await harness.command('U0MEMBER', 'C0AWAY', `unsubscribe ${feed.id}`);
    expect(said(refused)).toContain('That subscription posts in <#C0BIDS>: unsubscribe it there');
    expect(await a.store.getSubscription(harness.slack.teamId, feed.id)).not.toBeNull();
    // An admin may (a feed of an archived channel can be stopped only so).
    const done = await harness.command('U0ADMIN', 'C0AWAY', `unsubscribe ${feed.id}`);
    expect(said(done)).toContain('Unsubscribed <#C0BIDS>');
    expect(await a.store.getSubscription(harness.slack.teamId, feed.id)).toBeNull();
  });
});

describe('the buttons of a list drawn before its subscription was unsubscribed', () => {
  it('say plainly that no subscription has that id, Send now as Unsubscribe does', async () => {
    await harness.command('U0ADMIN', 'C0RETRY', 'subscribe search gravel hourly');
    const [feed] = await a.store.channelSubscriptions(harness.slack.teamId, 'C0RETRY');
    if (!feed) throw new Error('no feed');
    const list = await harness.command('U0MEMBER', 'C0RETRY', 'subscriptions');
    const gone = await harness.command('U0MEMBER', 'C0RETRY', `unsubscribe ${feed.id}`);
    expect(said(gone)).toContain('<@U0MEMBER> unsubscribed this channel from new tenders for “gravel”');
    for (const button of [SubscriptionIds.sendNow, SubscriptionIds.unsubscribe]) {
      const before = harness.slack.messagesIn('C0RETRY', 'U0MEMBER').length;
      const sent = await harness.slack.clickInMessage('U0MEMBER', list, button);
      const answer = await eventually(
        () => harness.slack.answerTo(sent, 'C0RETRY', 'U0MEMBER', before),
        `the answer to ${button}`,
      );
      expect(said(answer), button).toContain(
        `No subscription has the id \`${feed.id}\` (it may be unsubscribed already)`,
      );
      expect(said(answer), button).not.toMatch(/out of date|Reference/);
    }
    expect(await a.store.subscriptionDeliveries(feed.id)).toEqual([]);
  });
});
