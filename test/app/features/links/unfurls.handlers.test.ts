import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toggleUnfurlBookmark, unfurlLinks } from '../../../../src/app/features/links/unfurls.ts';
import { shareTender } from '../../../../src/app/features/tenders/share-tender.ts';
import { TenderIds, UNFURL_IDS } from '../../../../src/app/shared/ids.ts';
import { eventually } from '../../../support/bot.ts';
import { KEYS, TENDER_A, TENDER_B } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';

let harness: HandlerHarness;
let titles: Record<string, string>;

beforeAll(async () => {
  harness = await startHandlerHarness();
  titles = {};
  for (const id of [TENDER_A, TENDER_B]) {
    const answer = await harness.sandbox.call('GET', `/v1/tenders/${id}`, { key: KEYS.carolMemberAcme });
    titles[id] = answer.body.data.title;
  }
});
afterAll(async () => {
  await harness?.close();
});

/** The service's own link to a tender, as a person pastes it. */
const linkTo = (tenderId: string) => `${harness.sandbox.baseUrl}/v1/tenders/${tenderId}`;

/** A person's message in a channel with one link, and what `link_shared` says of it. */
function pasted(url: string, channel = 'C0BIDS', teamId = harness.slack.teamId) {
  const message = harness.slack.postAsUser('U0MEMBER', channel, `Look at <${url}>`);
  return {
    message,
    shared: { teamId, channel, messageTs: message.ts, userId: 'U0MEMBER', links: [{ url }] },
  };
}

/** What Tenderbot said to `userId` alone in `channel`, oldest first. */
function saidPrivately(channel: string, userId: string): string[] {
  return harness.slack
    .messagesIn(channel, userId)
    .filter((message) => message.ephemeralTo === userId)
    .map((message) => message.text);
}

/** The workspace's bookmarks as the service holds them (the default key is Carol's). */
async function workspaceBookmarks(): Promise<string[]> {
  const answer = await harness.sandbox.call('GET', '/v1/bookmarks', { key: KEYS.carolMemberAcme });
  return answer.body.data.map((bookmark: { tenderId: string }) => bookmark.tenderId);
}

describe('unfurlLinks', () => {
  it('turns a link to a tender the service holds into its compact card under the message', async () => {
    expect(titles[TENDER_A]).toBeTruthy();
    const url = linkTo(TENDER_A);
    const { message, shared } = pasted(url);
    await unfurlLinks(harness.context, harness.request().slack, shared);
    const preview = JSON.stringify(message.unfurls?.[url]?.blocks);
    expect(preview).toContain(JSON.stringify(titles[TENDER_A]).slice(1, -1));
    // The workspace bookmarked it already (the fixture): the preview offers to remove it.
    expect(preview).toContain(UNFURL_IDS.removeBookmark);
    expect(preview).not.toContain(TenderIds.share);
  });

  it('leaves a link alone when the workspace’s key cannot read it, or the service does not hold it', async () => {
    const before = harness.slack.callsOf('chat.unfurl').length;
    // A workspace whose stored key the service refuses (expired): the look-up fails, nothing is shown.
    await harness.context.store.saveConnection({
      teamId: 'T0EXPIRED',
      encryptedApiKey: harness.context.cipher.encrypt(KEYS.aliceExpired),
      serviceUrl: null,
      connectedBy: 'U0ADMIN',
      connectedAt: new Date().toISOString(),
    });
    const unreadable = pasted(linkTo(TENDER_A), 'C0BIDS', 'T0EXPIRED');
    await unfurlLinks(harness.context, harness.request().slack, unreadable.shared);
    const unknown = pasted(linkTo('ocds-tbdemo-9999999'));
    await unfurlLinks(harness.context, harness.request().slack, unknown.shared);
    const elsewhere = pasted('https://example.com/tenders/1');
    await unfurlLinks(harness.context, harness.request().slack, elsewhere.shared);
    expect(unreadable.message.unfurls).toBeUndefined();
    expect(unknown.message.unfurls).toBeUndefined();
    expect(elsewhere.message.unfurls).toBeUndefined();
    expect(harness.slack.callsOf('chat.unfurl')).toHaveLength(before);
  });

  it('tells the person who posted a notice link the service does not hold why no card came, and only then', async () => {
    const before = saidPrivately('C0BIDS', 'U0MEMBER').length;
    const beforeAdmin = saidPrivately('C0BIDS', 'U0ADMIN').length;
    const unknown = pasted(linkTo('ocds-tbdemo-9999999'));
    await unfurlLinks(harness.context, harness.request().slack, unknown.shared);
    const said = saidPrivately('C0BIDS', 'U0MEMBER').slice(before);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(
      `No card for <${linkTo('ocds-tbdemo-9999999')}|that link>: the Procurement Intelligence Service does not hold it`,
    );
    expect(said[0]).toContain('`/tender search`');
    expect(unknown.message.unfurls).toBeUndefined();
    // Nobody else sees it.
    expect(saidPrivately('C0BIDS', 'U0ADMIN')).toHaveLength(beforeAdmin);

    // In a thread: said in that thread.
    const parent = harness.slack.postAsUser('U0MEMBER', 'C0BIDS', 'a thread');
    const url = linkTo('ocds-tbdemo-9999994');
    const reply = harness.slack.postAsUser('U0MEMBER', 'C0BIDS', `<${url}>`, parent.ts);
    await unfurlLinks(harness.context, harness.request().slack, {
      teamId: harness.slack.teamId,
      channel: 'C0BIDS',
      messageTs: reply.ts,
      threadTs: parent.ts,
      userId: 'U0MEMBER',
      links: [{ url }],
    });
    const inThread = harness.slack
      .threadOf('C0BIDS', parent.ts)
      .filter((message) => message.ephemeralTo === 'U0MEMBER' && message.text.includes('No card'));
    expect(inThread).toHaveLength(1);

    // Two not held in one message: one sentence for both.
    const two = harness.slack.postAsUser('U0MEMBER', 'C0BIDS', 'two');
    const urls = [linkTo('ocds-tbdemo-9999998'), linkTo('ocds-tbdemo-9999997')];
    await unfurlLinks(harness.context, harness.request().slack, {
      teamId: harness.slack.teamId,
      channel: 'C0BIDS',
      messageTs: two.ts,
      userId: 'U0MEMBER',
      links: urls.map((url) => ({ url })),
    });
    expect(saidPrivately('C0BIDS', 'U0MEMBER').at(-1)).toContain('No cards for 2 of those notice links');

    // Nothing said: a look-up that failed (the key is refused), a link still in the composer, a
    // link that is no notice, and a notice the service holds.
    const count = saidPrivately('C0BIDS', 'U0MEMBER').length;
    const unreadable = pasted(linkTo('ocds-tbdemo-9999996'), 'C0BIDS', 'T0EXPIRED');
    await unfurlLinks(harness.context, harness.request().slack, unreadable.shared);
    const composing = pasted(linkTo('ocds-tbdemo-9999995'));
    await unfurlLinks(harness.context, harness.request().slack, {
      ...composing.shared,
      channel: 'COMPOSER',
      unfurlId: 'U-1',
      source: 'composer',
    });
    const elsewhere = pasted('https://example.com/tenders/1');
    await unfurlLinks(harness.context, harness.request().slack, elsewhere.shared);
    const held = pasted(linkTo(TENDER_B));
    await unfurlLinks(harness.context, harness.request().slack, held.shared);
    expect(saidPrivately('C0BIDS', 'U0MEMBER')).toHaveLength(count);
  });
});

describe('toggleUnfurlBookmark', () => {
  it('bookmarks for the workspace and redraws the preview for everyone, and the tender’s shared cards', async () => {
    await shareTender(
      harness.context,
      harness.request({ userId: 'U0ADMIN', channelId: 'C0GENERAL', kind: 'click' }),
      TENDER_B,
    );
    const sharedCard = harness.slack
      .messagesIn('C0GENERAL')
      .filter((each) => each.ephemeralTo === null)
      .at(-1);
    expect(JSON.stringify(sharedCard?.blocks)).toContain(TenderIds.bookmark);
    const url = linkTo(TENDER_B);
    const { message, shared } = pasted(url);
    await unfurlLinks(harness.context, harness.request().slack, shared);
    expect(JSON.stringify(message.unfurls?.[url]?.blocks)).toContain(UNFURL_IDS.bookmark);
    const request = harness.request({ userId: 'U0MEMBER', channelId: 'C0BIDS', kind: 'click' });
    await toggleUnfurlBookmark(harness.context, request, {
      tenderId: TENDER_B,
      add: true,
      url,
      messageTs: message.ts,
    });
    expect(request.said()).toContain('for the workspace');
    expect(await workspaceBookmarks()).toContain(TENDER_B);
    expect(JSON.stringify(message.unfurls?.[url]?.blocks)).toContain(UNFURL_IDS.removeBookmark);
    await eventually(
      () =>
        JSON.stringify(
          harness.slack.messagesIn('C0GENERAL').find((each) => each.ts === sharedCard?.ts)?.blocks,
        ).includes(TenderIds.removeBookmark),
      'the shared card redrawn',
    );
  });

  it('refuses a guest, and the workspace’s bookmarks stay as they were', async () => {
    const request = harness.request({ userId: 'U0GUEST', channelId: 'C0BIDS', kind: 'click' });
    await toggleUnfurlBookmark(harness.context, request, {
      tenderId: TENDER_B,
      add: false,
      url: null,
      messageTs: null,
    });
    expect(request.said()).toContain('Guests can read tenders but cannot remove bookmarks');
    expect(await workspaceBookmarks()).toContain(TENDER_B);
  });
});
