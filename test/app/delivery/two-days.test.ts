import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Frozen } from '../../../src/app/features/subscriptions/content.ts';
import { SubscriptionIds } from '../../../src/app/shared/ids.ts';
import { blockKitProblems } from '../../../src/app/shared/views/block-kit-limits.ts';
import { eventually } from '../../support/bot.ts';
import { KEYS, TENDER_A } from '../../support/fixture.ts';
import { duplicates, Harness, type Instance } from './harness.ts';

// Saturday 27 March 2027, 00:00 UTC; London leaves GMT for BST at 01:00 UTC on Sunday 28th (New
// York has been on daylight time since the 14th). The test ends on Monday 29th, 13:00 UTC.
const START = '2027-03-27T00:00:00Z';
const END = Date.parse('2027-03-29T13:00:00Z');
const RESTART_AT = Date.parse('2027-03-28T12:00:00Z');
const FIRST_IMPORT_AT = Date.parse('2027-03-27T10:20:00Z');
const SECOND_IMPORT_AT = Date.parse('2027-03-28T03:40:00Z');
const STAGE_CHANGE_AT = Date.parse('2027-03-28T12:05:00Z');
const utc = (text: string) => Date.parse(text);

const harness = new Harness(START, mkdtempSync(join(tmpdir(), 'tenderbot-two-days-')));
let a: Instance;
let b: Instance;
let restarted: Instance | null = null;
const ids: Record<string, string> = {};
const imported: { first: string[]; second: string[]; other: string[] } = { first: [], second: [], other: [] };

/** The id of the subscription a confirmation names (`/tender unsubscribe s-…`). */
async function subscribe(user: string, channel: string, text: string): Promise<string> {
  const before = new Set(
    (await a.store.channelSubscriptions(harness.slack.teamId, channel)).map(
      (subscription) => subscription.id,
    ),
  );
  const confirmation = await harness.command(user, channel, `subscribe ${text}`);
  expect(confirmation.ephemeralTo, JSON.stringify(confirmation.blocks)).toBeNull();
  // The confirmation is posted first, then the subscription stored.
  for (let tries = 0; tries < 200; tries++) {
    const made = (await a.store.channelSubscriptions(harness.slack.teamId, channel)).find(
      (subscription) => !before.has(subscription.id),
    );
    if (made) return made.id;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no subscription made by ${text}`);
}

beforeAll(async () => {
  await harness.start();
  // Carol's bookmarks: only a tender closing on Wednesday 31st at 06:00 UTC.
  const [watched] = await harness.importTenders(
    ['Deadline watch: grounds maintenance'],
    new Date('2027-03-26T12:00:00Z'),
    new Date('2027-03-31T06:00:00Z'),
  );
  await harness.sandbox.call('DELETE', `/v1/bookmarks/${TENDER_A}`, { key: KEYS.carolMemberAcme });
  expect(
    (await harness.sandbox.call('POST', `/v1/bookmarks/${watched}`, { key: KEYS.carolMemberAcme })).status,
  ).toBe(201);
  // Carol's bid due on Sunday 28th, never submitted: within a day on Saturday, overdue on Monday.
  const fence = await harness.sandbox.call('POST', '/v1/pipelines', {
    key: KEYS.carolMemberAcme,
    body: { name: 'Fence repairs bid', idempotencyKey: randomUUID(), targetSubmissionDate: '2027-03-28' },
  });
  expect(fence.status, fence.text).toBe(201);
  a = await harness.instance('A');
  b = await harness.instance('B', false);
  ids.london = await subscribe('U0ADMIN', 'C0BIDS', 'pipeline pl-bob daily 09:00');
  ids.newYork = await subscribe('U0MEMBER', 'C0BIDS', 'pipeline pl-bob daily 17:30');
  ids.weekly = await subscribe('U0MEMBER', 'C0GENERAL', 'pipeline pl-bob weekly 08:00');
  ids.feed = await subscribe('U0TOKYO', 'C0TOKYO', 'search cleaning hourly');
  ids.deadlines = await subscribe('U0ADMIN', 'C0FEED', 'deadlines');

  await harness.runUntil(
    END,
    () => (restarted ? [restarted, b] : [a, b]),
    5 * 60_000,
    async (now) => {
      if (now === FIRST_IMPORT_AT) {
        imported.first = await harness.importTenders(
          ['Office cleaning, Salford', 'Window cleaning framework', 'School cleaning services'],
          new Date('2027-03-27T10:15:00Z'),
        );
        imported.other = await harness.importTenders(
          ['Catering for care homes'],
          new Date('2027-03-27T10:15:00Z'),
        );
      }
      if (now === SECOND_IMPORT_AT)
        imported.second = await harness.importTenders(
          Array.from({ length: 7 }, (_, index) => `Hospital cleaning lot ${index + 1}`),
          new Date('2027-03-28T03:35:00Z'),
        );
      if (now === RESTART_AT) {
        // A restart in the middle: the copy that received Slack's requests stops; a new one opens the same file.
        await a.stop();
        restarted = await harness.instance('A2');
      }
      if (now === STAGE_CHANGE_AT) {
        const pipeline = await harness.sandbox.call('GET', '/v1/pipelines/pl-bob', {
          key: KEYS.carolMemberAcme,
        });
        const qualify = pipeline.body.data.stages[0].id;
        const changed = await harness.sandbox.call('PATCH', `/v1/pipelines/pl-bob/stages/${qualify}`, {
          key: KEYS.carolMemberAcme,
          body: { status: 'blocked' },
        });
        expect(changed.status).toBe(200);
      }
    },
  );
}, 60_000);

afterAll(async () => {
  await restarted?.stop();
  await b?.stop();
  await harness.stop();
});

/** When each post of a subscription arrived (Slack's ts, on the shared clock), as UTC instants. */
const postTimes = (channel: string, id: string) =>
  harness.postsOf(channel, id).map((message) => Math.floor(Number(message.ts)) * 1000);

describe('two days of schedules, two copies of the app on one database, a restart in the middle', () => {
  it('posts each due summary exactly once, at 09:00 London time on both sides of the clock change', () => {
    // 09:00 GMT is 09:00 UTC; from Sunday 09:00 BST is 08:00 UTC.
    expect(postTimes('C0BIDS', ids.london as string)).toEqual([
      utc('2027-03-27T09:00:00Z'),
      utc('2027-03-28T08:00:00Z'),
      utc('2027-03-29T08:00:00Z'),
    ]);
    expect(postTimes('C0BIDS', ids.newYork as string)).toEqual([
      utc('2027-03-27T21:30:00Z'),
      utc('2027-03-28T21:30:00Z'),
    ]);
    // Weekly is on Mondays: 08:00 in New York.
    expect(postTimes('C0GENERAL', ids.weekly as string)).toEqual([utc('2027-03-29T12:00:00Z')]);
    for (const [channel, id] of [
      ['C0BIDS', ids.london],
      ['C0BIDS', ids.newYork],
      ['C0GENERAL', ids.weekly],
      ['C0TOKYO', ids.feed],
      ['C0FEED', ids.deadlines],
    ] as const) {
      const posts = harness.postsOf(channel, id as string);
      expect(posts.length).toBeGreaterThan(0);
      expect(duplicates(posts)).toEqual([]);
      for (const post of posts)
        expect(blockKitProblems(post.blocks, 'message'), JSON.stringify(post.blocks)).toEqual([]);
    }
  });

  it('records every delivery as done, none left half way, across both copies and the restart', async () => {
    const store = b.store;
    for (const id of Object.values(ids)) {
      const deliveries = await store.subscriptionDeliveries(id);
      expect(deliveries.length).toBeGreaterThan(0);
      expect(deliveries.filter((delivery) => !['sent', 'empty'].includes(delivery.state))).toEqual([]);
    }
    const london = await store.subscriptionDeliveries(ids.london as string);
    expect(london.map((delivery) => delivery.state)).toEqual(['sent', 'sent', 'sent']);
    // Both copies did some of the work.
    const owners = new Set(
      (await Promise.all(Object.values(ids).map((id) => store.subscriptionDeliveries(id))))
        .flat()
        .map((delivery) => delivery.leaseOwner),
    );
    expect(owners.has('B')).toBe(true);
    expect(owners.has('A') || owners.has('A2')).toBe(true);
  });

  it('says what changed since the last summary', () => {
    const posts = harness.postsOf('C0BIDS', ids.newYork as string);
    const [first, second] = posts.map((post) => JSON.stringify(post.blocks));
    expect(first).toContain('This is the first summary');
    // Nothing blocked, overdue or due soon: one line, not three empty sections.
    expect(first).toContain('No stage is blocked, overdue or due in the next 3 days.');
    expect(first).not.toContain('No stage is overdue.');
    expect(second).toContain('Qualify: Pending → *Blocked*');
    expect(second).toContain('*Blocked*\\n• Qualify (Blocked)');
    // With something blocked, each section is shown.
    expect(second).toContain('No stage is overdue.');
  });

  it('posts tenders imported between two runs once, and only they, five as cards and the rest behind a button', async () => {
    const posts = harness.postsOf('C0TOKYO', ids.feed as string);
    expect(posts.map((post) => Math.floor(Number(post.ts)) * 1000)).toEqual([
      utc('2027-03-27T11:00:00Z'),
      utc('2027-03-28T04:00:00Z'),
    ]);
    const deliveries = (await b.store.subscriptionDeliveries(ids.feed as string)).filter(
      (delivery) => delivery.state === 'sent',
    );
    const posted = deliveries.flatMap(
      (delivery) => (JSON.parse(delivery.frozen as string) as Frozen).itemKeys,
    );
    expect(posted.sort()).toEqual([...imported.first, ...imported.second].map((id) => `tender:${id}`).sort());
    const [first, second] = posts as [(typeof posts)[0], (typeof posts)[0]];
    expect(JSON.stringify(first.blocks)).toContain('3 new tenders');
    for (const id of imported.first) expect(JSON.stringify(first.blocks)).toContain(id);
    expect(JSON.stringify(first.blocks)).not.toContain(imported.other[0]);
    const secondText = JSON.stringify(second.blocks);
    expect(secondText).toContain('7 new tenders');
    expect(secondText).toContain('…and 2 more.');
    expect(imported.second.filter((id) => secondText.includes(id))).toHaveLength(5);

    // "List them" shows the other two, to the person who clicked.
    const before = harness.slack.messagesIn('C0TOKYO', 'U0TOKYO').length;
    const sent = await harness.slack.clickInMessage('U0TOKYO', second, SubscriptionIds.listMore);
    const listed = await eventually(
      () => harness.slack.answerTo(sent, 'C0TOKYO', 'U0TOKYO', before),
      'the list',
    );
    expect(listed.ephemeralTo).toBe('U0TOKYO');
    const rest = imported.second.filter((id) => !secondText.includes(id));
    for (const id of rest) expect(JSON.stringify(listed.blocks)).toContain(id);
  });

  it('reminds of a bookmarked deadline once as it comes within 7 days and once within 3; of an unsubmitted bid once more when overdue', () => {
    const posts = harness.postsOf('C0FEED', ids.deadlines as string);
    expect(posts.map((post) => Math.floor(Number(post.ts)) * 1000)).toEqual([
      utc('2027-03-27T09:00:00Z'),
      utc('2027-03-28T08:00:00Z'),
      utc('2027-03-29T08:00:00Z'),
    ]);
    const [saturday, sunday, monday] = posts.map((post) => ({
      text: post.text,
      blocks: JSON.stringify(post.blocks),
    })) as [
      { text: string; blocks: string },
      { text: string; blocks: string },
      { text: string; blocks: string },
    ];
    expect(saturday.text).toBe('2 deadlines within 7 days');
    expect(saturday.blocks).toContain('Deadline watch: grounds maintenance');
    expect(saturday.blocks).toContain('*Fence repairs bid* · target date 28 Mar 2027 · due tomorrow');
    expect(saturday.blocks).not.toContain('reminded before');
    expect(saturday.blocks).toContain(
      'Each is reminded once as it comes within 7, 3 and 1 days, and a bid once more',
    );
    // Sunday: the tender again (now within 3 days); the bid was reminded on Saturday, and is counted.
    expect(sunday.text).toBe('1 deadline within 7 days');
    expect(sunday.blocks).toContain('Deadline watch: grounds maintenance');
    expect(sunday.blocks).not.toContain('Fence repairs bid');
    expect(sunday.blocks).toContain('1 more within 7 days was reminded before.');
    // Monday: the bid's date passed unsubmitted, said once.
    expect(monday.text).toBe('1 bid past the target date');
    expect(monday.blocks).toContain('*Due within 7 days, or overdue*');
    expect(monday.blocks).toContain('*Fence repairs bid* · target date 28 Mar 2027 · overdue by 1 day');
    expect(monday.blocks).not.toContain('Deadline watch');
  });
});
