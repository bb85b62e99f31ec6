import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shareTender } from '../../../../src/app/features/tenders/share-tender.ts';
import {
  bookmarksCommand,
  showCommand,
  tenderByReference,
  toggleBookmark,
} from '../../../../src/app/features/tenders/tender-detail.ts';
import { PERSONAL_KEY_REQUIRED_SENTENCE } from '../../../../src/app/shared/failure-sentences.ts';
import { TenderIds } from '../../../../src/app/shared/ids.ts';
import { KEYS, TENDER_A, TENDER_B } from '../../../support/fixture.ts';
import { type HandlerHarness, linkOwnKey, startHandlerHarness } from '../../../support/handler-context.ts';
import { actionIds, bookmarksOf } from './tender-answers.ts';

let harness: HandlerHarness;
let titleA: string;
let titleB: string;
beforeAll(async () => {
  harness = await startHandlerHarness();
  const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
  titleA = (await client.tenders.get(TENDER_A)).title;
  titleB = (await client.tenders.get(TENDER_B)).title;
}, 60_000);
afterAll(async () => harness?.close());

const UNKNOWN_TENDER = 'ocds-tbdemo-9999999';
const workspaceBookmarks = () => bookmarksOf(harness);

describe('showCommand (/tender show <id>)', () => {
  it('shows the tender in full, with its Bookmark button drawn as the list is', async () => {
    const request = harness.request();
    await showCommand(harness.context, request, TENDER_B);
    expect(request.said()).toBe(titleB);
    expect(actionIds(request.answers)).toContain(TenderIds.share);
  });

  it('refuses a missing id, and an id no tender has', async () => {
    const missing = harness.request();
    await showCommand(harness.context, missing, '');
    expect(missing.said()).toBe('Which tender?');
    const unknown = harness.request();
    await showCommand(harness.context, unknown, UNKNOWN_TENDER);
    expect(unknown.said()).toContain(`No tender has the id or reference \`${UNKNOWN_TENDER}\``);
    // A bid's reference where a tender's goes: where bids are shown.
    const bid = harness.request();
    await showCommand(harness.context, bid, 'BID-3');
    expect(bid.said()).toBe(
      '`BID-3` is a bid’s reference, not a tender’s: `/tender pipeline BID-3` shows its card.',
    );
  });
});

describe('tenderByReference', () => {
  it('finds one tender by its id', async () => {
    const found = await tenderByReference(harness.context, harness.request(), TENDER_A);
    expect(found.kind === 'one' && found.tender.title).toBe(titleA);
  });

  it('answers none for a reference no tender has, and for one the service refuses', async () => {
    expect(await tenderByReference(harness.context, harness.request(), UNKNOWN_TENDER)).toEqual({
      kind: 'none',
    });
    expect(await tenderByReference(harness.context, harness.request(), 'x'.repeat(500))).toEqual({
      kind: 'none',
    });
  });
});

describe('bookmarksCommand (/tender bookmarks)', () => {
  it('lists the workspace’s bookmarks, each with Remove', async () => {
    const request = harness.request();
    await bookmarksCommand(harness.context, request);
    expect(JSON.stringify(request.answers)).toContain(titleA);
    expect(actionIds(request.answers)).toContain(TenderIds.removeBookmark);
  });

  it('a person with their own key sees their own list, never the workspace’s', async () => {
    const teamId = harness.slack.teamId;
    const { client: workspace } = await harness.context.clients.forTeam(teamId);
    await workspace.bookmarks.add(TENDER_B);
    await linkOwnKey(harness, 'U0MEMBER', KEYS.daveBeta);
    try {
      const request = harness.request({ userId: 'U0MEMBER' });
      await bookmarksCommand(harness.context, request);
      const read = JSON.stringify(request.answers);
      expect(read).toContain('These are *your own* bookmarks');
      expect(read).not.toContain(titleB);
    } finally {
      await harness.context.store.removePersonalKey(teamId, 'U0MEMBER');
      await workspace.bookmarks.remove(TENDER_B);
    }
  });
});

describe('toggleBookmark (Bookmark and Remove on a card)', () => {
  const here = { isEphemeral: true, messageTs: null };

  it('bookmarks a tender in the workspace’s list and redraws the detail with Remove', async () => {
    expect(await workspaceBookmarks()).not.toContain(TENDER_B);
    const request = harness.request({ userId: 'U0MEMBER', kind: 'click' });
    await toggleBookmark(harness.context, request, { tenderId: TENDER_B, place: 'detail' }, true, here);
    expect(await workspaceBookmarks()).toContain(TENDER_B);
    expect(request.answers[0]?.replace_original).toBe(true);
    expect(actionIds(request.answers)).toContain(TenderIds.removeBookmark);

    const removal = harness.request({ userId: 'U0MEMBER', kind: 'click' });
    await toggleBookmark(harness.context, removal, { tenderId: TENDER_B, place: 'detail' }, false, here);
    expect(await workspaceBookmarks()).not.toContain(TENDER_B);
    expect(actionIds(removal.answers)).toContain(TenderIds.bookmark);
  });

  it('on a card shared in the channel: redraws the card for everyone and says in its thread who did it', async () => {
    const share = harness.request({ userId: 'U0ADMIN', kind: 'click' });
    await shareTender(harness.context, share, TENDER_B);
    const card = harness.slack
      .messagesIn('C0BIDS')
      .filter((message) => !message.ephemeralTo)
      .at(-1);
    if (!card) throw new Error('no shared card');
    const request = harness.request({ userId: 'U0MEMBER', kind: 'click' });
    await toggleBookmark(
      harness.context,
      request,
      { tenderId: TENDER_B, place: 'shared', sharedBy: 'U0ADMIN' },
      true,
      { isEphemeral: false, messageTs: card.ts },
    );
    expect(await workspaceBookmarks()).toContain(TENDER_B);
    const redrawn = harness.slack.messagesIn('C0BIDS').find((message) => message.ts === card.ts);
    expect(actionIds(redrawn?.blocks)).toContain(TenderIds.removeBookmark);
    expect(harness.slack.threadOf('C0BIDS', card.ts).map((reply) => reply.text)).toContain(
      '<@U0MEMBER> bookmarked this tender.',
    );

    // A stale copy of the card (drawn before the bookmark) clicked again: no second line, the card
    // redrawn, and the clicker told alone.
    const again = harness.request({ userId: 'U0ADMIN', kind: 'click' });
    await toggleBookmark(
      harness.context,
      again,
      { tenderId: TENDER_B, place: 'shared', sharedBy: 'U0ADMIN' },
      true,
      { isEphemeral: false, messageTs: card.ts },
    );
    expect(harness.slack.threadOf('C0BIDS', card.ts).map((reply) => reply.text)).toEqual([
      '<@U0MEMBER> bookmarked this tender.',
    ]);
    expect(again.said()).toBe('This tender was already in the workspace’s bookmarks; the card now shows it.');
    expect(await workspaceBookmarks()).toContain(TENDER_B);
    // Put back as it was, for the other tests.
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    await client.bookmarks.remove(TENDER_B);
  });

  it('refuses a guest, saying why, and changes no list', async () => {
    const request = harness.request({ userId: 'U0GUEST', kind: 'click' });
    await toggleBookmark(harness.context, request, { tenderId: TENDER_B, place: 'detail' }, true, here);
    expect(request.said()).toBe(
      'Guests can read tenders but cannot bookmark tenders. Ask a member of the workspace to do it for you.',
    );
    expect(await workspaceBookmarks()).not.toContain(TENDER_B);
  });

  it('refuses a person without their own key where the workspace asks for one', async () => {
    const teamId = harness.slack.teamId;
    await harness.context.store.saveWorkspaceSettings({ teamId, personalKeysForWrites: true });
    try {
      const request = harness.request({ userId: 'U0MEMBER', kind: 'click' });
      await toggleBookmark(harness.context, request, { tenderId: TENDER_A, place: 'detail' }, false, here);
      expect(request.said()).toContain(String(PERSONAL_KEY_REQUIRED_SENTENCE));
    } finally {
      await harness.context.store.saveWorkspaceSettings({ teamId, personalKeysForWrites: false });
    }
    expect(await workspaceBookmarks()).toContain(TENDER_A);
  });
});
