import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubscriptionIds } from '../../../../src/app/shared/ids.ts';
import type { Subscription } from '../../../../src/app/storage/subscription-store.ts';
import { eventually } from '../../../support/bot.ts';
import { KEYS } from '../../../support/fixture.ts';
import { Harness, type Instance } from '../../delivery/harness.ts';

// Subscribing a channel again to what it already follows changes that subscription (its window,
// its time) instead of adding a second one that would post everything twice.

const said = (message: { text?: string; blocks?: unknown }) =>
  `${message.text ?? ''} ${JSON.stringify(message.blocks ?? [])}`;

const harness = new Harness(
  '2027-05-03T08:00:00Z',
  mkdtempSync(join(tmpdir(), 'tenderbot-subscribe-again-')),
);
let a: Instance;

beforeAll(async () => {
  await harness.start();
  a = await harness.instance('A');
});
afterAll(async () => {
  await a?.stop();
  await harness.stop();
});

const channelSubscriptions = (channel: string) => a.store.channelSubscriptions(harness.slack.teamId, channel);
const publicIn = (channel: string) =>
  harness.slack.messagesIn(channel).filter((message) => message.ephemeralTo === null);

/** A subscribe command whose answer is posted in the channel, for everyone. */
async function inChannel(user: string, channel: string, text: string) {
  const answer = await harness.command(user, channel, text);
  expect(answer.ephemeralTo, said(answer)).toBeNull();
  return said(answer);
}

/** A subscribe command answered to the person alone. */
async function toPerson(user: string, channel: string, text: string) {
  const answer = await harness.command(user, channel, text);
  expect(answer.ephemeralTo, said(answer)).toBe(user);
  return said(answer);
}

/** A bid whose target date is `days` away, made with the workspace's key (its reminders follow it). */
async function bidDueIn(name: string, days: number): Promise<void> {
  const made = await harness.sandbox.call('POST', '/v1/pipelines', {
    key: KEYS.carolMemberAcme,
    body: {
      name,
      idempotencyKey: randomUUID(),
      targetSubmissionDate: new Date(harness.now + days * 86_400_000).toISOString().slice(0, 10),
    },
  });
  expect(made.status, made.text).toBe(201);
}

/** Clicks Send now on every row of the channel's list of subscriptions. */
async function sendNowOnEach(channel: string): Promise<void> {
  const list = await harness.command('U0ADMIN', channel, 'subscriptions');
  for (const { id } of await channelSubscriptions(channel)) {
    const before = harness.slack.messagesIn(channel, 'U0ADMIN').length;
    // Each row's button carries its subscription's id.
    const sent = await harness.slack.clickInMessage('U0ADMIN', list, SubscriptionIds.sendNow, { value: id });
    await eventually(() => harness.slack.answerTo(sent, channel, 'U0ADMIN', before), 'Send now’s answer');
  }
}

describe('deadline reminders subscribed again', () => {
  it('change the channel’s one reminder subscription, and a bid coming due is reminded once', async () => {
    await inChannel('U0ADMIN', 'C0BIDS', 'subscribe deadlines 14');
    const [first] = await channelSubscriptions('C0BIDS');
    const changed = await inChannel('U0ADMIN', 'C0BIDS', 'subscribe deadlines');
    expect(changed).toContain('now look 7 days ahead (they looked 14)');
    expect(changed).toContain(first?.id as string);
    const subscriptions = await channelSubscriptions('C0BIDS');
    expect(subscriptions.map((each) => [each.id, JSON.parse(each.target)])).toEqual([
      [first?.id, { days: 7 }],
    ]);
    // The same again is said to exist, and changes nothing.
    const same = await toPerson('U0ADMIN', 'C0BIDS', 'subscribe deadlines 7');
    expect(same).toContain('already has that subscription');
    expect(await channelSubscriptions('C0BIDS')).toEqual(subscriptions);

    await bidDueIn('Refuse and waste related services', 3);
    await sendNowOnEach('C0BIDS');
    await harness.pass(a);
    const reminders = publicIn('C0BIDS').filter((message) =>
      said(message).includes('Refuse and waste related services'),
    );
    expect(reminders).toHaveLength(1);
  });

  it('at another time or from another time zone post at the new time, and say the old one', async () => {
    await inChannel('U0ADMIN', 'C0GENERAL', 'subscribe deadlines');
    const changed = await inChannel('U0TOKYO', 'C0GENERAL', 'subscribe deadlines 07:30');
    expect(changed).toContain(
      'now post daily at 07:30 (Asia/Tokyo), no longer daily at 09:00 (Europe/London)',
    );
    expect(changed).not.toContain('days ahead (they looked');
    const [only, ...others] = await channelSubscriptions('C0GENERAL');
    expect(others).toEqual([]);
    expect(only).toMatchObject({ localTime: '07:30', timeZone: 'Asia/Tokyo', createdBy: 'U0ADMIN' });
    // 07:30 in Tokyo on 4 May is 22:30 UTC on 3 May.
    expect(only?.nextRunAt.toISOString()).toBe('2027-05-03T22:30:00.000Z');
  });

  it('of a person with their own key are their own, beside the workspace’s', async () => {
    await inChannel('U0ADMIN', 'C0FEED', 'subscribe deadlines 14');
    await harness.linkPersonalKey(a.store, 'U0MEMBER', KEYS.aliceAcme);
    const own = await inChannel('U0MEMBER', 'C0FEED', 'subscribe deadlines 14');
    expect(own).toContain('Reminders follow <@U0MEMBER>’s own bookmarks and bids');
    expect(await channelSubscriptions('C0FEED')).toHaveLength(2);
    // The workspace's reminders are changed by someone who reads with the workspace's key, not Max's.
    await inChannel('U0ADMIN', 'C0FEED', 'subscribe deadlines 3');
    // Both were made at the same moment of the test's clock: sorted by who made them.
    const days = (await channelSubscriptions('C0FEED'))
      .map((each) => [each.createdBy, JSON.parse(each.target).days])
      .sort();
    expect(days).toEqual([
      ['U0ADMIN', 3],
      ['U0MEMBER', 14],
    ]);
  });

  it('where Tenderbot can no longer post are left as they were, and the person is told how to invite it', async () => {
    await inChannel('U0ADMIN', 'C0ARCHIVE', 'subscribe deadlines 14');
    const [before] = await channelSubscriptions('C0ARCHIVE');
    await harness.slack.removeApp('C0ARCHIVE');
    const refused = await toPerson('U0ADMIN', 'C0ARCHIVE', 'subscribe deadlines 5 17:00');
    expect(refused).toContain('Invite it with `/invite @Tenderbot`');
    const [after, ...others] = await channelSubscriptions('C0ARCHIVE');
    expect(others).toEqual([]);
    // As it was (paused or not, as removing the app left it), its days and time untouched.
    expect(after).toMatchObject({ id: before?.id, target: before?.target, localTime: '09:00' });
    expect(after?.nextRunAt).toEqual(before?.nextRunAt);
  });

  it('by two people at the same moment leave one subscription', async () => {
    const answers = Promise.all([
      harness.slack.slashCommand('U0ADMIN', 'C0TURNS', '/tender', 'subscribe deadlines 5'),
      harness.slack.slashCommand('U0TOKYO', 'C0TURNS', '/tender', 'subscribe deadlines 5'),
    ]);
    await answers;
    await eventually(() => publicIn('C0TURNS').length === 2, 'both answers in the channel');
    expect(await channelSubscriptions('C0TURNS')).toHaveLength(1);
    const text = publicIn('C0TURNS').map(said).join('\n');
    expect(text).toContain('subscribed this channel');
    expect(text).toContain('now post daily at 09:00');
  });
});

describe('a bid’s summary or a feed subscribed again', () => {
  it('a bid’s summary or a feed at another time is another subscription; the same again is kept', async () => {
    // A team across time zones: the summary in the morning here and in the evening there.
    await inChannel('U0ADMIN', 'C0HOLD', 'subscribe pipeline pl-bob');
    await inChannel('U0ADMIN', 'C0HOLD', 'subscribe pipeline pl-bob weekly 08:30');
    expect(
      (await channelSubscriptions('C0HOLD')).map((each) => [each.cadence, each.localTime]).sort(),
    ).toEqual([
      ['daily', '09:00'],
      ['weekly', '08:30'],
    ]);
    expect(await toPerson('U0ADMIN', 'C0HOLD', 'subscribe pipeline pl-bob weekly 08:30')).toContain(
      'already has that subscription',
    );
    // The other time's summary is wanted: never said to follow the same, nor offered for removal.
    const again = await toPerson('U0ADMIN', 'C0HOLD', 'subscribe pipeline pl-bob');
    expect(again).toContain('already has that subscription');
    expect(again).not.toContain('follows the same');
    expect(again).not.toContain('/tender unsubscribe');
    expect(await channelSubscriptions('C0HOLD')).toHaveLength(2);
    // The same words and filters in another order are the same feed.
    await inChannel('U0ADMIN', 'C0AWAY', 'subscribe search cleaning region:London daily 08:00');
    expect(
      await toPerson('U0ADMIN', 'C0AWAY', 'subscribe search region:London cleaning daily 08:00'),
    ).toContain('already has that subscription');
    expect(await channelSubscriptions('C0AWAY')).toHaveLength(1);
  });
});

describe('a channel that already has two alike (from before)', () => {
  it('keeps both working, and says which other one follows the same', async () => {
    const stored = (id: string, days: number, madeAgo: number): Subscription => ({
      id,
      teamId: harness.slack.teamId,
      channelId: 'C0RETRY',
      kind: 'deadlines',
      target: JSON.stringify({ days }),
      cadence: 'daily',
      localTime: '09:00',
      timeZone: 'Europe/London',
      createdBy: 'U0ADMIN',
      createdAt: new Date(harness.now - madeAgo),
      pausedReason: null,
      nextRunAt: new Date(harness.now + 3_600_000),
      cursor: null,
      skippedCount: 0,
    });
    expect(await a.store.createSubscription(stored('s-twin14', 14, 2000))).toBe(true);
    expect(await a.store.createSubscription(stored('s-twin07', 7, 1000))).toBe(true);
    const same = await toPerson('U0ADMIN', 'C0RETRY', 'subscribe deadlines 7');
    expect(same).toContain('already has that subscription');
    expect(same).toContain('s-twin07');
    expect(same).toContain('/tender unsubscribe s-twin14');
    expect((await channelSubscriptions('C0RETRY')).map((each) => each.id)).toEqual(['s-twin14', 's-twin07']);
    // Both are listed and answer Send now.
    const list = await harness.command('U0ADMIN', 'C0RETRY', 'subscriptions');
    expect(said(list)).toContain('subscription:s-twin14');
    expect(said(list)).toContain('subscription:s-twin07');
    await sendNowOnEach('C0RETRY');
    const answers = harness.slack
      .messagesIn('C0RETRY', 'U0ADMIN')
      .filter((message) => message.ephemeralTo === 'U0ADMIN')
      .slice(-2)
      .map(said);
    for (const answer of answers) expect(answer).not.toContain('out of date');
  });
});
