/*
 * The buttons of the Home tab's rows. The Home tab has no channel: what a button opens comes in the
 * person's direct messages with Tenderbot, and what it posts goes to a channel chosen in a window.
 */
import { cutText } from '../../../shared/cut-text.ts';
import type { AppSlack } from '../../adapters/app-slack.ts';
import { filtersOf } from '../../shared/commands/saved-search-filters.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { refuseGuests, reply } from '../../shared/feature-context.ts';
import { HomeIds } from '../../shared/ids.ts';
import { decodeText, encode, type StateOf } from '../../shared/values/codec.ts';
import { searchHeading } from '../../shared/views/describe-search.ts';
import { sentenceMessage } from '../../shared/views/messages.ts';
import { channelLink, mrkdwn, safeText } from '../../shared/views/mrkdwn.ts';
import { section } from '../../shared/views/tender-card.ts';
import type { Subscription } from '../../storage/bot-store.ts';
import { postCard } from '../bids/index.ts';
import { directMessageRequest } from '../links/index.ts';
import { subscriptionCommand, subscriptionSummary } from '../subscriptions/index.ts';
import { shareTender, showCommand, showSearchPage } from '../tenders/index.ts';
import { channelModal, describedTarget, HOME_CADENCES, type OfferedChannel } from './views/channel-modal.ts';
import { savedSearchPost } from './views/saved-search-post.ts';

/** A click on the Home tab: the person, and answers in their direct messages with Tenderbot. */
export async function homeRequest(slack: AppSlack, teamId: string, userId: string): Promise<SlackRequest> {
  // A workspace installed before im:write was asked for cannot open it: posting to the person's
  // id still reaches their direct messages, only without the channel's id.
  const opened = await slack.conversations.open({ users: userId }).catch(() => null);
  const channelId = opened?.channel?.id;
  // The direct message's own id: a search answered there knows it has no channel to share into.
  return directMessageRequest(slack, { teamId, userId, ...(channelId ? { channelId } : {}) });
}

/**
 * How a Home button's work ended, for the notice at the top of the Home tab: `done`, `refused`
 * (a sentence said why, in the person's messages), or `answered` (another feature answered there,
 * and only that answer says whether it worked).
 */
export type HomeOutcome = 'done' | 'refused' | 'answered';

/** Open on a bid: its live card in the person's direct messages, as "Post in channel" posts one. */
export async function openBid(
  context: FeatureContext,
  request: SlackRequest,
  id: string,
): Promise<HomeOutcome> {
  // Without the direct message's id (no im:write), the card goes to the person's id, not remembered as one place.
  const where = { ...request, channelId: request.channelId || request.userId, kind: 'command' as const };
  return (await postCard(context, where, id, { direct: true })) ? 'done' : 'refused';
}

/** Open on a bookmark: the tender in full, in the person's direct messages. */
export async function openTender(
  context: FeatureContext,
  request: SlackRequest,
  id: string,
): Promise<HomeOutcome> {
  await showCommand(context, request, id);
  return 'answered';
}

/** Run on a saved search: its first page, in the person's direct messages. */
export async function runSaved(
  context: FeatureContext,
  request: SlackRequest,
  id: string,
): Promise<HomeOutcome> {
  const { client } = await context.clients.forPerson(request.teamId, request.userId);
  const saved = await client.savedSearches.get(id);
  const name = saved.name.trim();
  await showSearchPage(
    context,
    request,
    { f: filtersOf(saved), o: 0, ...(name ? { n: cutText(name, 200) } : {}) },
    false,
  );
  return 'answered';
}

/** Post in channel or Subscribe: "Which channel?", offering the channels Tenderbot is in. */
export async function askChannel(
  context: FeatureContext,
  request: SlackRequest,
  args: { kind: StateOf<'homeChannel'>['k']; id: string; subscribe: boolean; triggerId: string },
): Promise<HomeOutcome> {
  if (await refuseGuests(context, request, args.subscribe ? 'subscribe channels' : 'post in channels'))
    return 'refused';
  const { client } = await context.clients.forPerson(request.teamId, request.userId);
  // The name people know it by, said in the window (and kept for the answer after).
  const name =
    args.kind === 'bid'
      ? (await client.pipelines.get(args.id)).name
      : args.kind === 'tender'
        ? (await client.tenders.get(args.id)).title
        : (await client.savedSearches.get(args.id)).name;
  const state = { k: args.kind, id: args.id, s: args.subscribe, n: cutText(name, 200) };
  await request.slack.views.open({
    trigger_id: args.triggerId,
    view: channelModal({
      privateMetadata: encode('homeChannel', state, 'metadata'),
      what: describedTarget(args.kind, name),
      subscribe: args.subscribe,
      channels: await channelsOfTenderbot(request.slack),
    }),
  });
  return 'done';
}

/** The channels Tenderbot is in (it can post only there), by name. */
async function channelsOfTenderbot(slack: AppSlack): Promise<OfferedChannel[]> {
  const answer = await slack.users.conversations({
    types: 'public_channel,private_channel',
    exclude_archived: true,
    limit: 200,
  });
  return (answer.channels ?? [])
    .flatMap((channel) => (channel.id && channel.name ? [{ id: channel.id, name: channel.name }] : []))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** What the window was submitted with: the channel, and how often (a subscription). */
export function chosenInWindow(values: unknown): { channelId: string | null; cadence: string } {
  const read = (block: string, action: string) => {
    const state = (
      values as Record<string, Record<string, { selected_option?: { value?: unknown } | null }>>
    )?.[block]?.[action];
    const value = state?.selected_option?.value;
    return typeof value === 'string' ? value : null;
  };
  const channel = read(HomeIds.channelBlock, HomeIds.channelInput);
  const cadence = read(HomeIds.cadenceBlock, HomeIds.cadenceInput);
  return {
    channelId: channel && /^[CG][A-Z0-9]{1,30}$/.test(channel) ? channel : null,
    cadence: cadence && (HOME_CADENCES as readonly string[]).includes(cadence) ? cadence : 'daily',
  };
}

/**
 * The window submitted (already closed): posts the bid's card or the tender's, or subscribes the
 * channel to the saved search, as the command would. `request.channelId` is the channel chosen;
 * its answers come in the person's direct messages.
 */
export async function postInChosenChannel(
  context: FeatureContext,
  request: SlackRequest,
  metadata: string,
  cadence: string,
): Promise<HomeOutcome> {
  const target = decodeText('homeChannel', metadata);
  if (target.s) {
    // The confirmation is posted in the channel; the person, in their direct messages, is told too,
    // of the subscription this subscribe added (not one another subscribe added meanwhile).
    const added: Subscription[] = [];
    await subscriptionCommand(context, request, 'subscribe', `search ${target.id} ${cadence}`, (made) =>
      added.push(made),
    );
    const [made] = added;
    if (made) {
      const sentence = mrkdwn`Subscribed ${channelLink(request.channelId)}: *${subscriptionSummary(made)}*. It said so there; \`/tender subscriptions\` in the channel lists its subscriptions.`;
      await reply(request, { text: sentence, blocks: [section(sentence)] });
    }
    return 'answered';
  }
  if (target.k === 'tender') {
    await shareTender(context, request, target.id);
    return 'answered';
  }
  if (target.k === 'saved') return postSavedSearch(context, request, target.id);
  // The card as /tender pipeline posts it: its refusals (not in the channel, gone) said the same way.
  return (await postCard(context, request, target.id)) ? 'done' : 'refused';
}

/** Tenders a saved search posted in a channel shows as cards; Run there shows the rest. */
const SAVED_POST_CARDS = 5;

/** A saved search posted in a channel: what it finds now, and Run for anyone to page through it. */
async function postSavedSearch(
  context: FeatureContext,
  request: SlackRequest,
  id: string,
): Promise<HomeOutcome> {
  if (await refuseGuests(context, request, 'post saved searches in a channel')) return 'refused';
  const { client } = await context.clients.forPerson(request.teamId, request.userId);
  const saved = await client.savedSearches.get(id);
  const page = await client.tenders.search({ ...filtersOf(saved), limit: SAVED_POST_CARDS });
  const message = savedSearchPost({
    name: saved.name,
    heading: searchHeading(filtersOf(saved), undefined, undefined, page.valueRule),
    tenders: page.data,
    total: page.pagination.total,
    savedId: saved.id,
    postedBy: request.userId,
    now: context.clock(),
  });
  await request.slack.chat.postMessage({
    channel: request.channelId,
    text: message.text,
    blocks: message.blocks,
    unfurl_links: false,
  });
  await request.respond({
    response_type: 'ephemeral',
    replace_original: false,
    ...sentenceMessage(
      mrkdwn`Posted the saved search *${safeText(saved.name, 200)}* in ${channelLink(request.channelId)}.`,
    ),
  });
  return 'done';
}
