import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Frozen } from '../../../src/app/features/subscriptions/content.ts';
import { SubscriptionIds } from '../../../src/app/shared/ids.ts';
import { blockKitProblems } from '../../../src/app/shared/views/block-kit-limits.ts';
import type { FakeMessage } from '../../../src/fake-slack/fake-slack.ts';
import { eventually } from '../../support/bot.ts';
import { duplicates, Harness, type Instance } from './harness.ts';

// Monday 7 June 2027, 00:30 UTC (London on BST): an hourly feed posts at the top of each hour.
const START = Date.parse('2027-06-07T00:30:00Z');
const HOUR = 3_600_000;
const DAY = 86_400_000;
const FIRST = Date.parse('2027-06-07T01:00:00Z');

const harness = new Harness(new Date(START).toISOString(), mkdtempSync(join(tmpdir(), 'tenderbot-feed-')));
let a: Instance;
let feed: string;
const imported: { big: string[]; more: string[] } = { big: [], more: [] };

/** The ids a message shows as `code`. */
function idsIn(message: FakeMessage): string[] {
  return [...JSON.stringify(message.blocks).matchAll(/`(ocds-sub-[^`\\]+)`/g)].map(
    (match) => match[1] as string,
  );
}

/** Clicks the list's button labelled `label` (Previous or Next). */
async function clickLabelled(user: string, message: FakeMessage, label: 'Previous' | 'Next'): Promise<void> {
  const blocks = message.blocks.map((block) =>
    block.type === 'actions'
      ? {
          ...block,
          elements: (block.elements as { text?: { text?: string } }[]).filter(
            (element) => element.text?.text === label,
          ),
        }
      : block,
  );
  const id = label === 'Previous' ? SubscriptionIds.listMorePrevious : SubscriptionIds.listMore;
  await harness.slack.clickInMessage(user, { ...message, blocks }, id);
}

beforeAll(async () => {
  await harness.start();
  a = await harness.instance('A');
  const confirmation = await harness.command('U0TOKYO', 'C0TOKYO', 'subscribe search dredging hourly');
  expect(confirmation.ephemeralTo, JSON.stringify(confirmation.blocks)).toBeNull();
  // Stored before its confirmation is posted: there once the confirmation is.
  const [made] = await a.store.channelSubscriptions(harness.slack.teamId, 'C0TOKYO');
  feed = made?.id ?? '';
  expect(feed).toMatch(/^s-/);
  // More than the 500 one post used to read: all published in the first hour.
  imported.big = await harness.importTenders(
    Array.from({ length: 520 }, (_, index) => `Lagoon dredging lot ${index + 1}`),
    new Date('2027-06-07T00:40:00Z'),
  );
  await harness.runUntil(FIRST, () => [a]);
}, 60_000);

afterAll(async () => {
  await a?.stop();
  await harness.stop();
});

describe('a feed with many new tenders, and pruning', () => {
  it('posts 520 new tenders once: five cards, and every other one listed behind List them, page by page', async () => {
    const posts = harness.postsOf('C0TOKYO', feed);
    expect(posts).toHaveLength(1);
    const [post] = posts as [FakeMessage];
    const text = JSON.stringify(post.blocks);
    expect(text).toContain('520 new tenders');
    expect(text).toContain('…and 515 more.');
    expect(blockKitProblems(post.blocks, 'message')).toEqual([]);
    const cards = idsIn(post);
    expect(cards).toHaveLength(5);

    const before = harness.slack.messagesIn('C0TOKYO', 'U0TOKYO').length;
    const sent = await harness.slack.clickInMessage('U0TOKYO', post, SubscriptionIds.listMore);
    const list = await eventually(
      () => harness.slack.answerTo(sent, 'C0TOKYO', 'U0TOKYO', before),
      'the list',
    );
    expect(list.ephemeralTo).toBe('U0TOKYO');
    const seen: string[] = [];
    for (let page = 1; ; page++) {
      const shown = JSON.stringify(list.blocks);
      const from = (page - 1) * 20 + 1;
      expect(shown).toContain(`${from}–${Math.min(page * 20, 515)} of 515`);
      expect(blockKitProblems(list.blocks, 'message')).toEqual([]);
      seen.push(...idsIn(list));
      if (!shown.includes('"Next"')) break;
      // Next redraws the list in place.
      await clickLabelled('U0TOKYO', list, 'Next');
      await eventually(() => JSON.stringify(list.blocks) !== shown, `page ${page + 1}`);
    }
    // Nothing dropped, nothing twice: the cards and the list are all 520.
    expect(new Set(seen).size).toBe(seen.length);
    expect([...cards, ...seen].sort()).toEqual([...imported.big].sort());
    // Previous goes back.
    await clickLabelled('U0TOKYO', list, 'Previous');
    await eventually(() => JSON.stringify(list.blocks).includes('481–500 of 515'), 'the previous page');
    // A forged page beyond the end is answered in words, not with an empty list or an error.
    const forged = JSON.parse(JSON.stringify(list)) as FakeMessage;
    for (const block of forged.blocks)
      for (const element of (block.elements ?? []) as { value?: string }[])
        if (element.value) element.value = element.value.replace(/"o":\d+/, '"o":4999');
    const shown = JSON.stringify(list.blocks);
    await clickLabelled('U0TOKYO', forged, 'Next');
    await eventually(() => JSON.stringify(list.blocks) !== shown, 'the forged page');
    expect(list.text).toBe('That list has no more tenders.');
  });

  it('over the read limit, a post leaves the rest to the next one: each tender once, none lost', async () => {
    a.bot.scheduler.feedReadLimit = 12;
    imported.more = await harness.importTenders(
      Array.from({ length: 15 }, (_, index) => `Harbour dredging phase ${index + 1}`),
      new Date('2027-06-07T01:10:00Z'),
    );
    await harness.runUntil(FIRST + 2 * HOUR, () => [a]);
    const posts = harness.postsOf('C0TOKYO', feed);
    expect(posts).toHaveLength(3);
    const [, second, third] = posts as [FakeMessage, FakeMessage, FakeMessage];
    expect(JSON.stringify(second.blocks)).toContain('12 new tenders');
    expect(JSON.stringify(second.blocks)).toContain('the next post continues with the rest');
    expect(JSON.stringify(third.blocks)).toContain('3 new tenders');
    expect(JSON.stringify(third.blocks)).not.toContain('continues');
    const deliveries = (await a.store.subscriptionDeliveries(feed)).filter((each) => each.state === 'sent');
    const keys = deliveries.flatMap((each) => (JSON.parse(each.frozen as string) as Frozen).itemKeys);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.sort()).toEqual([...imported.big, ...imported.more].map((id) => `tender:${id}`).sort());
    expect(duplicates(harness.postsOf('C0TOKYO', feed))).toEqual([]);
  });

  it('prunes posts older than 90 days with their items, at most once an hour, and posts none of them again', async () => {
    const byDue = async () =>
      new Map((await a.store.subscriptionDeliveries(feed)).map((each) => [each.dueAt.getTime(), each]));
    const postsBefore = harness.postsOf('C0TOKYO', feed).length;
    const firstPost = harness.postsOf('C0TOKYO', feed)[0] as FakeMessage;
    expect((await byDue()).has(FIRST)).toBe(true);

    // 90 days and 30 minutes after the first post: it goes (a later one has finished), the second stays.
    harness.now = FIRST + 90 * DAY + 30 * 60_000;
    await harness.pass(a);
    let kept = await byDue();
    expect(kept.has(FIRST)).toBe(false);
    expect(kept.get(FIRST + HOUR)?.state).toBe('sent');
    expect(await a.store.deliveredItems(feed, [`tender:${imported.big[0]}`])).toEqual(new Set());
    expect(
      await a.store.deliveredItems(
        feed,
        imported.more.map((id) => `tender:${id}`),
      ),
    ).toHaveProperty('size', 15);

    // 45 minutes later the second is old enough too, but this copy pruned less than an hour ago.
    harness.now = FIRST + 90 * DAY + HOUR + 15 * 60_000;
    await harness.pass(a);
    kept = await byDue();
    expect(kept.has(FIRST + HOUR)).toBe(true);

    // An hour after the last prune it goes; the third (not 90 days old yet) stays.
    harness.now = FIRST + 90 * DAY + HOUR + 30 * 60_000;
    await harness.pass(a);
    kept = await byDue();
    expect(kept.has(FIRST + HOUR)).toBe(false);
    expect(kept.get(FIRST + 2 * HOUR)?.state).toBe('sent');

    // Nothing pruned comes back: the catch-up passes found nothing new to post.
    expect(harness.postsOf('C0TOKYO', feed)).toHaveLength(postsBefore);
    // The pruned post's button says so, in words.
    const before = harness.slack.messagesIn('C0TOKYO', 'U0TOKYO').length;
    const sent = await harness.slack.clickInMessage('U0TOKYO', firstPost, SubscriptionIds.listMore);
    const answer = await eventually(
      () => harness.slack.answerTo(sent, 'C0TOKYO', 'U0TOKYO', before),
      'an answer',
    );
    expect(answer.text).toContain('older than 90 days');
  });
});
