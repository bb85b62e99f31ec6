import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  changePipelineStatus,
  changeStageStatus,
  postCard,
  postCardFromList,
  setArchived,
} from '../../../../src/app/features/bids/card-changes.ts';
import type { FeatureContext, SlackRequest } from '../../../../src/app/shared/feature-context.ts';
import { openBotStore } from '../../../../src/app/storage/open-bot-store.ts';
import { eventually } from '../../../support/bot.ts';
import { KEYS } from '../../../support/fixture.ts';
import { type HandlerHarness, linkOwnKey, startHandlerHarness } from '../../../support/handler-context.ts';
import { textOf } from '../../../support/slack-text.ts';
import { bidNow, cardsOf, newBid, stageAt } from './handler-support.ts';

const BIDS = 'C0BIDS';
const GENERAL = 'C0GENERAL';

let harness: HandlerHarness;
beforeAll(async () => {
  harness = await startHandlerHarness();
  // Max (U0MEMBER) linked Alice's own key: she may only view Bob's bid (pl-bob).
  await linkOwnKey(harness, 'U0MEMBER', KEYS.aliceAcme);
}, 60_000);
afterAll(async () => harness?.close());

/** Posts the bid's card in #bids as the admin (the workspace's key) and answers the card. */
async function postedCard(pipelineId: string) {
  await postCard(harness.context, harness.request({ channelId: BIDS }), pipelineId);
  const card = cardsOf(harness, BIDS, pipelineId).at(-1);
  if (!card) throw new Error('no card was posted');
  return card;
}

describe('postCard (/tender pipeline <id>)', () => {
  it('posts the card for everyone in the channel and remembers it; a command gets no extra answer', async () => {
    const bid = await newBid(harness, 'Card posting bid');
    const request = harness.request({ channelId: BIDS });
    await postCard(harness.context, request, bid.id);
    const cards = cardsOf(harness, BIDS, bid.id);
    expect(cards).toHaveLength(1);
    expect(textOf(cards[0])).toContain('Card posting bid');
    expect(request.answers).toEqual([]);
    const remembered = await harness.context.store.pipelineMessages(harness.slack.teamId, bid.id);
    expect(remembered.map((place) => [place.channelId, place.ts])).toEqual([[BIDS, cards[0]?.ts]]);
  });

  it('a bid the key cannot see: says so naming the id, posts nothing', async () => {
    const request = harness.request({ channelId: BIDS });
    await postCard(harness.context, request, 'pl-beta');
    expect(request.said()).toContain('No bid `pl-beta` can be seen with this workspace’s key');
    expect(cardsOf(harness, BIDS, 'pl-beta')).toEqual([]);
    expect(await harness.context.store.pipelineMessages(harness.slack.teamId, 'pl-beta')).toEqual([]);
  });

  it('a channel Tenderbot is not in: asks to invite it, remembers nothing', async () => {
    const bid = await newBid(harness, 'Uninvited bid');
    await harness.slack.removeApp(GENERAL);
    try {
      const request = harness.request({ channelId: GENERAL });
      await postCard(harness.context, request, bid.id);
      expect(request.said()).toContain('Invite Tenderbot to <#C0GENERAL> first');
      expect(await harness.context.store.pipelineMessages(harness.slack.teamId, bid.id)).toEqual([]);
    } finally {
      await harness.slack.addApp(GENERAL);
    }
  });

  it('a guest is refused and nothing is posted', async () => {
    const bid = await newBid(harness, 'Guest card bid');
    const request = harness.request({ userId: 'U0GUEST', channelId: BIDS });
    await postCard(harness.context, request, bid.id);
    expect(request.said()).toBe(
      'Guests can read tenders but cannot post bid cards in a channel. Ask a member of the workspace to do it for you.',
    );
    expect(cardsOf(harness, BIDS, bid.id)).toEqual([]);
  });
});

describe('postCardFromList ("Post in channel" on the list of bids)', () => {
  it('posts the card and tells the person who clicked', async () => {
    const bid = await newBid(harness, 'Posted from the list');
    const request = harness.request({ channelId: BIDS, kind: 'click' });
    await postCardFromList(harness.context, request, bid.id);
    expect(cardsOf(harness, BIDS, bid.id)).toHaveLength(1);
    expect(request.said()).toBe('Posted the card of *Posted from the list* in <#C0BIDS>.');
  });

  it('a bid gone from sight is named as its card named it (BID-n), never by the service’s id', async () => {
    const request = harness.request({ channelId: BIDS, kind: 'click' });
    const gone = '0d9f3c1e-5b7a-4c2d-9e8f-1a2b3c4d5e6f';
    // Shown once (its reference given then), deleted since.
    const number = (await harness.context.store.bidReferenceNumbers(request.teamId, [gone])).get(gone);
    await postCardFromList(harness.context, request, gone);
    expect(request.said()).toContain(`No bid \`BID-${number}\` can be seen`);
    expect(request.said()).not.toContain(gone);
  });

  it('a service id nobody was shown (a stale or forged button) is named by nothing, and given no reference', async () => {
    const request = harness.request({ channelId: BIDS, kind: 'click' });
    const never = '00000000-0000-4000-8000-000000000000';
    await postCardFromList(harness.context, request, never);
    expect(request.said()).toMatch(/^That bid cannot be seen with this workspace’s key: it may be deleted/);
    expect(request.said()).not.toMatch(/BID-|00000000/);
    expect(await harness.context.store.givenBidReferenceNumbers(request.teamId, [never])).toEqual(new Map());
  });

  it('a forged id: says it cannot be seen, posts nothing', async () => {
    const request = harness.request({ channelId: BIDS, kind: 'click' });
    await postCardFromList(harness.context, request, 'pl-forged-000');
    expect(request.said()).toContain('No bid `pl-forged-000`');
    expect(cardsOf(harness, BIDS, 'pl-forged-000')).toEqual([]);
  });
});

describe('changeStageStatus (a stage’s select on the card, or /tender pipeline stage)', () => {
  it('moves the stage, redraws the card and tells the change under it', async () => {
    const bid = await newBid(harness, 'Stage change bid');
    const card = await postedCard(bid.id);
    const stage = stageAt(bid, 1);
    const request = harness.request({ channelId: BIDS, kind: 'click' });
    await changeStageStatus(
      harness.context,
      request,
      { p: bid.id, s: stage.id, v: 'completed' },
      { channelId: BIDS, ts: card.ts },
    );
    expect(stageAt(await bidNow(harness, bid.id), 1).status).toBe('completed');
    // A click is answered by the card itself: no ephemeral answer.
    expect(request.answers).toEqual([]);
    // The line is queued behind the channel's other lines (Slack's pace), posted after the click.
    const line = await eventually(
      () =>
        harness.slack
          .threadOf(BIDS, card.ts)
          .find((message) => message.ts !== card.ts && textOf(message).includes('moved stage 1')),
      'the line under the card',
    );
    expect(textOf(line)).toMatch(/<@U0ADMIN> moved stage 1, Qualify, of Stage change bid to Completed/);
    expect(harness.slack.callsOf('chat.update').some((call) => JSON.stringify(call).includes(card.ts))).toBe(
      true,
    );
  });

  it('a status it already has: says nothing changed, writes nothing', async () => {
    const bid = await newBid(harness, 'Unchanged stage bid');
    const stage = stageAt(bid, 2);
    const request = harness.request({ channelId: BIDS });
    await changeStageStatus(harness.context, request, { p: bid.id, s: stage.id, v: stage.status }, null);
    expect(request.said()).toContain('Stage 2, Write, is already');
    expect(request.said()).toContain('nothing changed');
    expect((await bidNow(harness, bid.id)).updatedAt).toBe(bid.updatedAt);
  });

  it('a key that may only view the bid: the service refuses, said as such, the stage unchanged', async () => {
    const before = await bidNow(harness, 'pl-bob');
    const stage = stageAt(before, 1);
    const wanted = stage.status === 'blocked' ? 'pending' : 'blocked';
    const request = harness.request({ userId: 'U0MEMBER', channelId: BIDS });
    await changeStageStatus(harness.context, request, { p: 'pl-bob', s: stage.id, v: wanted }, null);
    expect(request.said()).toContain('The service did not let you change this bid with your own key');
    expect(stageAt(await bidNow(harness, 'pl-bob'), 1).status).toBe(stage.status);
  });
});

describe('changePipelineStatus (the bid’s status on the card, or /tender pipeline status)', () => {
  it('sets the status, and a command is told the card was redrawn', async () => {
    const bid = await newBid(harness, 'Status change bid');
    await postedCard(bid.id);
    const request = harness.request({ channelId: BIDS });
    await changePipelineStatus(harness.context, request, { p: bid.id, v: 'bidding' }, null);
    expect((await bidNow(harness, bid.id)).status).toBe('bidding');
    expect(request.said()).toContain('The bid’s status is now');
    expect(request.said()).toContain("Its card shows it now, with a note in the card's thread.");
  });

  it('Submitted: refused (only the service’s workflow submits), the status unchanged', async () => {
    const bid = await newBid(harness, 'Not to be submitted');
    const request = harness.request({ channelId: BIDS });
    await changePipelineStatus(harness.context, request, { p: bid.id, v: 'submitted' }, null);
    expect(request.said()).toContain(
      'A bid can only be marked Submitted through the Procurement Intelligence Service’s own submission workflow',
    );
    expect((await bidNow(harness, bid.id)).status).toBe(bid.status);
  });

  it('a guest is refused and nothing is written', async () => {
    const bid = await newBid(harness, 'Guest status bid');
    const request = harness.request({ userId: 'U0GUEST', channelId: BIDS });
    await changePipelineStatus(harness.context, request, { p: bid.id, v: 'bidding' }, null);
    expect(request.said()).toBe(
      'Guests can read tenders but cannot change bids. Ask a member of the workspace to do it for you.',
    );
    expect((await bidNow(harness, bid.id)).status).toBe(bid.status);
  });
});

describe('setArchived (Archive and Restore on the card, or /tender pipeline archive|restore)', () => {
  it('archives, then a change to the archived bid is refused with how to restore, then restores', async () => {
    const bid = await newBid(harness, 'Archive round trip');
    const archive = harness.request({ channelId: BIDS });
    await setArchived(harness.context, archive, bid.id, true, null);
    expect(archive.said()).toContain('Archived the bid.');
    expect((await bidNow(harness, bid.id)).archived).toBe(true);

    const change = harness.request({ channelId: BIDS });
    await changePipelineStatus(harness.context, change, { p: bid.id, v: 'bidding' }, null);
    expect(change.said()).toMatch(/Restore it first with `\/tender pipeline restore BID-\d+`/);
    expect((await bidNow(harness, bid.id)).status).toBe(bid.status);

    const restore = harness.request({ channelId: BIDS });
    await setArchived(harness.context, restore, bid.id, false, null);
    expect(restore.said()).toContain('Restored the bid.');
    expect((await bidNow(harness, bid.id)).archived).toBe(false);
  });

  /**
   * Two clicks on Archive at once on a new bid's card, each through its copy of the app: what each
   * click was told, and how many "archived" lines are under the card once a restore's line is
   * (both changes' lines would have been written by then: they follow the redraw in its turn).
   */
  async function doubleArchive(name: string, copies: [FeatureContext, FeatureContext]) {
    const bid = await newBid(harness, name);
    const card = await postedCard(bid.id);
    const place = { channelId: BIDS, ts: card.ts };
    const clicks = copies.map(() => harness.request({ channelId: BIDS, kind: 'click' }));
    await Promise.all(
      copies.map((copy, index) => setArchived(copy, clicks[index] as SlackRequest, bid.id, true, place)),
    );
    const archived = (await bidNow(harness, bid.id)).archived;
    const archivedLines = () =>
      harness.slack
        .threadOf(BIDS, card.ts)
        .filter((message) => message.ts !== card.ts && textOf(message).includes(`archived ${name}`));
    await eventually(() => archivedLines()[0], 'the line under the card');
    await setArchived(harness.context, harness.request({ channelId: BIDS }), bid.id, false, place);
    await eventually(
      () =>
        harness.slack.threadOf(BIDS, card.ts).find((message) => textOf(message).includes(`restored ${name}`)),
      'the restore’s line',
    );
    return {
      archived,
      told: clicks.map((click) => click.said()).filter(Boolean),
      lines: archivedLines().length,
    };
  }

  it('a double click on Archive (two clicks at once) archives once, with one line under the card; the second is told', async () => {
    const twice = await doubleArchive('Double archive', [harness.context, harness.context]);
    expect(twice.archived).toBe(true);
    expect(twice.told).toEqual(['That bid is archived already: nothing changed.']);
    expect(twice.lines).toBe(1);
  });

  it('a double click that reaches two copies of the app archives once, with one line under the card', async () => {
    // Another copy: its own store on the same data (so its own queue in the process), the same service.
    const otherStore = openBotStore(harness.context.config.DATABASE_URL);
    try {
      const twice = await doubleArchive('Two copies archive', [
        harness.context,
        { ...harness.context, store: otherStore },
      ]);
      expect(twice.archived).toBe(true);
      expect(twice.told).toEqual(['That bid is archived already: nothing changed.']);
      expect(twice.lines).toBe(1);
    } finally {
      await otherStore.close();
    }
  });

  it('restoring a bid that is not archived: says there is nothing to restore', async () => {
    const bid = await newBid(harness, 'Never archived');
    const request = harness.request({ channelId: BIDS });
    await setArchived(harness.context, request, bid.id, false, null);
    expect(request.said()).toBe('That bid is not archived: there is nothing to restore.');
    expect((await bidNow(harness, bid.id)).archived).toBe(false);
  });
});
