import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shareTender } from '../../../../src/app/features/tenders/share-tender.ts';
import { redrawSharedCards } from '../../../../src/app/features/tenders/shared-cards.ts';
import { toggleBookmark } from '../../../../src/app/features/tenders/tender-detail.ts';
import { TenderIds } from '../../../../src/app/shared/ids.ts';
import type { FakeMessage } from '../../../../src/fake-slack/fake-slack.ts';
import { eventually } from '../../../support/bot.ts';
import { KEYS, TENDER_A } from '../../../support/fixture.ts';
import { type HandlerHarness, linkOwnKey, startHandlerHarness } from '../../../support/handler-context.ts';
import { actionIds } from './tender-answers.ts';

// A tender's cards shared in channels show the workspace's bookmarks: a bookmark changed anywhere
// with the workspace's key redraws every one of them, not only the card clicked.

let harness: HandlerHarness;
beforeAll(async () => {
  harness = await startHandlerHarness();
}, 60_000);
afterAll(async () => harness?.close());

const TENDER = 'ocds-tbdemo-0000205';

/** Shares the tender in a channel and gives its card as posted. */
async function share(channelId: string, tenderId = TENDER): Promise<FakeMessage> {
  const before = harness.slack.messagesIn(channelId).length;
  await shareTender(
    harness.context,
    harness.request({ userId: 'U0ADMIN', channelId, kind: 'click' }),
    tenderId,
  );
  const card = harness.slack
    .messagesIn(channelId)
    .slice(before)
    .find((message) => message.ephemeralTo === null);
  if (!card) throw new Error(`no card shared in ${channelId}`);
  return card;
}

/** The card's Bookmark button as it is drawn now: 'add' (Bookmark) or 'remove'. */
function drawn(card: FakeMessage): 'add' | 'remove' | 'gone' {
  const now = harness.slack.messagesIn(card.channel).find((message) => message.ts === card.ts);
  if (!now) return 'gone';
  const ids = actionIds(now.blocks);
  return ids.includes(TenderIds.removeBookmark) ? 'remove' : 'add';
}

describe('cards of a tender shared in channels', () => {
  it('all follow a bookmark made from a search, and its removal from one of them', async () => {
    const inBids = await share('C0BIDS');
    const inGeneral = await share('C0GENERAL');
    expect([drawn(inBids), drawn(inGeneral)]).toEqual(['add', 'add']);
    // Bookmarked from someone's search page (an answer only they see).
    const search = harness.request({ userId: 'U0MEMBER', kind: 'click' });
    await toggleBookmark(
      harness.context,
      search,
      { tenderId: TENDER, place: { f: { q: 'cleaning' }, o: 0 } },
      true,
      { isEphemeral: true, messageTs: null },
    );
    await eventually(() => drawn(inBids) === 'remove' && drawn(inGeneral) === 'remove', 'both cards redrawn');
    // Each card's thread says who changed the list, as under a card clicked.
    const lines = (card: FakeMessage) =>
      harness.slack.threadOf(card.channel, card.ts).map((reply) => reply.text);
    await eventually(
      () => lines(inBids).includes('<@U0MEMBER> bookmarked this tender.') && lines(inGeneral).length === 1,
      'a line under each card',
    );
    // Removed on one channel's card: the other follows; the card clicked is drawn once, by the click.
    const updates = harness.slack.callsOf('chat.update').length;
    const click = harness.request({ userId: 'U0MEMBER', channelId: 'C0GENERAL', kind: 'click' });
    await toggleBookmark(
      harness.context,
      click,
      { tenderId: TENDER, place: 'shared', sharedBy: 'U0ADMIN' },
      false,
      { isEphemeral: false, messageTs: inGeneral.ts },
    );
    await eventually(() => drawn(inBids) === 'add', 'the other channel’s card redrawn');
    expect(drawn(inGeneral)).toBe('add');
    // One line each for the removal: the card clicked says it itself, the other is told.
    await eventually(
      () =>
        lines(inBids).at(-1) === '<@U0MEMBER> removed this tender from the bookmarks.' &&
        lines(inGeneral).at(-1) === '<@U0MEMBER> removed this tender from the bookmarks.',
      'the removal told under both cards',
    );
    expect([lines(inBids).length, lines(inGeneral).length]).toEqual([2, 2]);
    await eventually(() => harness.slack.callsOf('chat.update').length === updates + 2, 'two redraws');
  });

  it('a card deleted since is forgotten at the next redraw', async () => {
    const teamId = harness.slack.teamId;
    const kept = await share('C0BIDS', TENDER_A);
    const deleted = await share('C0GENERAL', TENDER_A);
    const remembered = async () =>
      (await harness.context.store.sharedTenderCards(teamId, TENDER_A, 20)).map((each) => each.ts).sort();
    expect(await remembered()).toEqual([kept.ts, deleted.ts].sort());
    await harness.request().slack.apiCall('chat.delete', { channel: deleted.channel, ts: deleted.ts });
    expect(await redrawSharedCards(harness.context, harness.request().slack, teamId, TENDER_A)).toBe(1);
    expect(await remembered()).toEqual([kept.ts]);
  });

  it('do not follow a bookmark in a person’s own list: the cards show the workspace’s', async () => {
    const card = await share('C0GENERAL', 'ocds-tbdemo-0000206');
    const teamId = harness.slack.teamId;
    await linkOwnKey(harness, 'U0MEMBER', KEYS.daveBeta);
    try {
      const updates = harness.slack.callsOf('chat.update').length;
      const request = harness.request({ userId: 'U0MEMBER', kind: 'click' });
      await toggleBookmark(
        harness.context,
        request,
        { tenderId: 'ocds-tbdemo-0000206', place: { f: { q: 'cleaning' }, o: 0 } },
        true,
        { isEphemeral: true, messageTs: null },
      );
      // Given the time a redraw would take, none came.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(harness.slack.callsOf('chat.update').length).toBe(updates);
      expect(drawn(card)).toBe('add');
    } finally {
      await harness.context.store.removePersonalKey(teamId, 'U0MEMBER');
    }
  });
});
