import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HomeIds, PipelineIds, SavedSearchIds, TenderIds } from '../../../../src/app/shared/ids.ts';
import type { FakeView } from '../../../../src/fake-slack/fake-slack.ts';
import { eventually, type RunningBot, startBot, tenderCommand } from '../../../support/bot.ts';
import { KEYS, TENDER_A } from '../../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../../support/sandbox.ts';
import { textOf } from '../../../support/slack-text.ts';

// The Home tab's row buttons through the real app (its own process) and the fake Slack: each one
// clicked, and what it did checked where it did it.

let sandbox: TestSandbox;
let bot: RunningBot;
const MEMBER = 'U0MEMBER';
const GUEST = 'U0GUEST';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  bot = await startBot({
    serviceUrl: sandbox.baseUrl,
    defaultKey: KEYS.carolMemberAcme,
    databasePath: join(sandbox.dir, 'bot.db'),
  });
}, 60_000);
afterAll(async () => {
  await bot?.stop();
  await sandbox?.stop();
});

/** The Home tab `userId` sees once it has its lists. */
async function home(userId: string): Promise<FakeView> {
  await bot.slack.openHome(userId);
  return eventually(
    () => {
      const view = bot.slack.homeOf(userId);
      return view && JSON.stringify(view.view).includes('home-bid:') ? view : null;
    },
    `${userId}’s Home tab with its lists`,
    15_000,
  );
}

/** Labels of the buttons in a Home row's block (`home-bid:0`). */
function rowButtons(view: FakeView, blockId: string): string[] {
  const block = (view.view.blocks ?? []).find((each: { block_id?: string }) => each.block_id === blockId);
  return (block?.elements ?? []).map((element: { text: { text: string } }) => element.text.text);
}

const dm = (userId: string) => bot.slack.messagesIn(bot.slack.dmOf(userId));
const said = (value: unknown) => JSON.stringify(value);

/** The window a click opened for `userId` (its callback id), once open. */
const windowOf = (userId: string, callbackId: string) =>
  eventually(
    () => bot.slack.openModals(userId).find((view) => view.view.callback_id === callbackId),
    `the ${callbackId} window`,
    15_000,
  );

describe('the Home tab’s rows', () => {
  it('give each bid, bookmark and saved search its buttons, and no UUID to copy', async () => {
    const view = await home(MEMBER);
    expect(rowButtons(view, 'home-bid:0')).toEqual(['Open', 'Post in channel']);
    expect(rowButtons(view, 'home-bookmark:0')).toEqual(['Open', 'Post in channel']);
    expect(rowButtons(view, 'home-saved:0')).toEqual(['Run', 'Subscribe a channel', 'Post in channel']);
    // What a person reads (the sections' text) names no record by an id to copy.
    const read = (view.view.blocks ?? [])
      .map((block: { text?: { text?: string } }) => block.text?.text ?? '')
      .join('\n');
    expect(read).not.toMatch(UUID);
    for (const id of ['pl-bob', 'ss-acme-001', TENDER_A, '/tender subscribe search ss-'])
      expect(read).not.toContain(id);
    expect(read).toContain('Bob’s hospital cleaning bid');
  });

  it('Open on a bid posts its live card in the person’s direct messages', async () => {
    const view = await home(MEMBER);
    const before = dm(MEMBER).length;
    await bot.slack.clickInView(MEMBER, view.id, HomeIds.openBid);
    const card = await eventually(
      () =>
        dm(MEMBER)
          .slice(before)
          .find((m) => said(m.blocks).includes(PipelineIds.archive)),
      'the bid’s card',
    );
    expect(card.ephemeralTo).toBeNull();
    expect(said(card.blocks)).toContain(PipelineIds.stageStatus);
    // Where the person is looking, the Home tab says where the card went.
    await eventually(
      () =>
        said(bot.slack.homeOf(MEMBER)?.view).includes('The bid’s card is in your *Messages* with Tenderbot'),
      'the word on the Home tab',
    );
  });

  it('Post in channel on a bid asks which channel, then posts its card there', async () => {
    const view = await home(MEMBER);
    await bot.slack.clickInView(MEMBER, view.id, HomeIds.postBid);
    const window = await windowOf(MEMBER, HomeIds.channelCallback);
    expect(textOf(window.view)).toContain('#bids');
    const before = bot.slack.messagesIn('C0BIDS').length;
    await bot.slack.submitView(MEMBER, window.id, { [HomeIds.channelInput]: 'C0BIDS' });
    const card = await eventually(
      () =>
        bot.slack
          .messagesIn('C0BIDS')
          .slice(before)
          .find((m) => said(m.blocks).includes(PipelineIds.archive)),
      'the card in #bids',
    );
    expect(card.ephemeralTo).toBeNull();
    await eventually(() => dm(MEMBER).some((m) => m.text.includes('Posted the card of')), 'the word in DM');
  });

  it('Post in channel refused by Slack says why in DM and no “Done” on the Home tab', async () => {
    const view = await home(MEMBER);
    await bot.slack.clickInView(MEMBER, view.id, HomeIds.postBid);
    const window = await windowOf(MEMBER, HomeIds.channelCallback);
    const before = dm(MEMBER).length;
    // Slack refuses the card's post: Tenderbot is not in the channel (removed since the list was drawn).
    bot.slack.failNext('chat.postMessage', { kind: 'error', error: 'not_in_channel' });
    await bot.slack.submitView(MEMBER, window.id, { [HomeIds.channelInput]: 'C0BIDS' });
    await eventually(
      () =>
        dm(MEMBER)
          .slice(before)
          .some((m) => m.text.includes('Invite Tenderbot to <#C0BIDS> first')),
      'the invite sentence in DM',
    );
    await eventually(
      () =>
        said(bot.slack.homeOf(MEMBER)?.view).includes('That was not done: why is said in your *Messages*'),
      'the failure notice on the Home tab',
    );
    expect(said(bot.slack.homeOf(MEMBER)?.view)).not.toContain('Done in');
    expect(
      dm(MEMBER)
        .slice(before)
        .some((m) => m.text.includes('deleted or archived')),
    ).toBe(false);
  });

  it('Open twice keeps one live card of the bid in the person’s messages: the earlier one says so', async () => {
    const cardsNow = () => dm(MEMBER).filter((m) => said(m.blocks).includes(PipelineIds.archive));
    const view = await home(MEMBER);
    // An earlier test's Open may have left a card, which this Open retires: wait for a new one.
    const earlier = new Set(cardsNow().map((m) => m.ts));
    await bot.slack.clickInView(MEMBER, view.id, HomeIds.openBid);
    await eventually(() => cardsNow().some((m) => !earlier.has(m.ts)), 'the first card');
    const again = await home(MEMBER);
    await bot.slack.clickInView(MEMBER, again.id, HomeIds.openBid);
    await eventually(
      () => dm(MEMBER).some((m) => m.text.includes('This bid’s card is now the newer one below.')),
      'the earlier card retired',
    );
    // One live card of it: the earlier copies are no longer cards (no controls to change the bid).
    expect(cardsNow()).toHaveLength(1);
  });

  it('Open on a bookmark shows the tender in full in direct messages; Post in channel shares its card', async () => {
    const view = await home(MEMBER);
    const before = dm(MEMBER).length;
    await bot.slack.clickInView(MEMBER, view.id, HomeIds.openTender);
    const detail = await eventually(
      () =>
        dm(MEMBER)
          .slice(before)
          .find(
            (m) =>
              said(m.blocks).includes(TenderIds.bookmark) ||
              said(m.blocks).includes(TenderIds.removeBookmark),
          ),
      'the tender in direct messages',
    );
    expect(said(detail.blocks)).toContain('*Published*');
    // In a direct message there is no channel to share into.
    expect(said(detail.blocks)).not.toContain(TenderIds.share);

    await bot.slack.clickInView(MEMBER, view.id, HomeIds.postTender);
    const window = await windowOf(MEMBER, HomeIds.channelCallback);
    const inGeneral = bot.slack.messagesIn('C0GENERAL').length;
    await bot.slack.submitView(MEMBER, window.id, { [HomeIds.channelInput]: 'C0GENERAL' });
    const shared = await eventually(
      () =>
        bot.slack
          .messagesIn('C0GENERAL')
          .slice(inGeneral)
          .find((m) => m.ephemeralTo === null),
      'the shared card',
    );
    expect(said(shared.blocks)).toContain(TENDER_A);
  });

  it('Run on a saved search answers in direct messages; Subscribe subscribes the chosen channel', async () => {
    const view = await home(MEMBER);
    const before = dm(MEMBER).length;
    await bot.slack.clickInView(MEMBER, view.id, HomeIds.runSaved);
    const results = await eventually(
      () =>
        dm(MEMBER)
          .slice(before)
          .find((m) => m.text.length > 0),
      'the search',
    );
    expect(textOf(results)).toContain('Acme search');

    await bot.slack.clickInView(MEMBER, view.id, HomeIds.subscribeSaved);
    const window = await windowOf(MEMBER, HomeIds.channelCallback);
    expect(textOf(window.view)).toContain('How often');
    // Why a channel may be missing from the list, and how to add it.
    expect(JSON.stringify(window.view)).toContain(
      'Only the channels Tenderbot is in are listed. /invite @Tenderbot in another adds it here.',
    );
    const inBids = bot.slack.messagesIn('C0BIDS').length;
    const inDm = dm(MEMBER).length;
    await bot.slack.submitView(MEMBER, window.id, {
      [HomeIds.channelInput]: 'C0BIDS',
      [HomeIds.cadenceInput]: 'hourly',
    });
    const confirmation = await eventually(
      () =>
        bot.slack
          .messagesIn('C0BIDS')
          .slice(inBids)
          .find((m) => m.text.startsWith('Subscribed')),
      'the subscription’s confirmation',
    );
    expect(textOf(confirmation)).toContain('Acme search');
    expect(textOf(confirmation)).toContain('every hour');
    // The person is told in their direct messages too, naming the channel.
    const told = await eventually(
      () =>
        dm(MEMBER)
          .slice(inDm)
          .find((m) => m.text.startsWith('Subscribed <#C0BIDS>')),
      'the direct message saying so',
    );
    expect(textOf(told)).toContain('Acme search');

    // The same again: said in the direct message by the channel's name, not as "this channel".
    await bot.slack.clickInView(MEMBER, (await home(MEMBER)).id, HomeIds.subscribeSaved);
    const again = await windowOf(MEMBER, HomeIds.channelCallback);
    const inDmAgain = dm(MEMBER).length;
    await bot.slack.submitView(MEMBER, again.id, {
      [HomeIds.channelInput]: 'C0BIDS',
      [HomeIds.cadenceInput]: 'hourly',
    });
    const kept = await eventually(
      () =>
        dm(MEMBER)
          .slice(inDmAgain)
          .find((m) => m.text.includes('already has that subscription')),
      'the answer to the same subscription again',
    );
    expect(kept.text).toMatch(/^<#C0BIDS> already has that subscription/);
  });

  it('Post in channel on a saved search posts what it finds there, with Run for everyone', async () => {
    const view = await home(MEMBER);
    await bot.slack.clickInView(MEMBER, view.id, HomeIds.postSaved);
    const window = await windowOf(MEMBER, HomeIds.channelCallback);
    expect(textOf(window.view)).toContain('Acme search 1');
    const inGeneral = bot.slack.messagesIn('C0GENERAL').length;
    await bot.slack.submitView(MEMBER, window.id, { [HomeIds.channelInput]: 'C0GENERAL' });
    const post = await eventually(
      () =>
        bot.slack
          .messagesIn('C0GENERAL')
          .slice(inGeneral)
          .find((m) => m.ephemeralTo === null && m.text.startsWith('Saved search')),
      'the saved search in #general',
    );
    expect(textOf(post)).toContain('Acme search 1');
    expect(said(post.blocks)).toContain(SavedSearchIds.run);
    // Run there answers whoever clicks it, in the channel, to them alone.
    const before = bot.slack.messagesIn('C0GENERAL', 'U0ADMIN').length;
    const sent = await bot.slack.clickInMessage('U0ADMIN', post, SavedSearchIds.run);
    const run = await eventually(
      () => bot.slack.answerTo(sent, 'C0GENERAL', 'U0ADMIN', before),
      'Run’s answer',
    );
    expect(run.ephemeralTo).toBe('U0ADMIN');
  });

  it('gives a guest only what a guest may use: Open and Run', async () => {
    const view = await home(GUEST);
    expect(rowButtons(view, 'home-bid:0')).toEqual(['Open']);
    expect(rowButtons(view, 'home-bookmark:0')).toEqual(['Open']);
    expect(rowButtons(view, 'home-saved:0')).toEqual(['Run']);
  });
});

describe('a guest’s own results', () => {
  it('carry no button a guest cannot use (no Bookmark, Share or Start a bid)', async () => {
    const results = await tenderCommand(bot, GUEST, 'C0GENERAL', 'search cleaning', 15_000);
    const blocks = said(results.blocks);
    expect(blocks).toContain(TenderIds.openOriginal);
    for (const id of [TenderIds.bookmark, TenderIds.removeBookmark, TenderIds.share, PipelineIds.startBid])
      expect(blocks).not.toContain(id);
    const shown = await tenderCommand(bot, GUEST, 'C0GENERAL', `show ${TENDER_A}`, 15_000);
    for (const id of [TenderIds.bookmark, TenderIds.removeBookmark, TenderIds.share, PipelineIds.startBid])
      expect(said(shown.blocks)).not.toContain(id);
    const bookmarks = await tenderCommand(bot, GUEST, 'C0GENERAL', 'bookmarks', 15_000);
    expect(said(bookmarks.blocks)).toContain(TENDER_A);
    for (const id of [TenderIds.bookmark, TenderIds.removeBookmark, TenderIds.share, PipelineIds.startBid])
      expect(said(bookmarks.blocks)).not.toContain(id);
    // A member's results keep them.
    const member = await tenderCommand(bot, MEMBER, 'C0GENERAL', 'search cleaning', 15_000);
    expect(said(member.blocks)).toContain(PipelineIds.startBid);
  });
});
