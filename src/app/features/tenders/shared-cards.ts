/*
 * Tender cards shared in channels follow the workspace's bookmarks: each card shared is remembered,
 * and a bookmark changed with the workspace's key (on any card, list, preview or form) redraws
 * every card of that tender shared in the workspace, so no channel keeps offering "Bookmark" for a
 * tender the workspace has bookmarked since.
 */
import type { AppSlack } from '../../adapters/app-slack.ts';
import { isMessageGone } from '../../adapters/slack-errors.ts';
import { bookmarkedIds } from '../../shared/bookmarked-ids.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { queuePerKey } from '../../shared/queue-per-key.ts';
import { type Mrkdwn, mention, mrkdwn } from '../../shared/views/mrkdwn.ts';
import { sharedTenderMessage } from './views/search-messages.ts';

/**
 * How many of a tender's shared cards are redrawn after a change, the newest first: a tender shared
 * in a hundred channels is redrawn where people most likely still read it, at Slack's pace.
 */
const CARDS_REDRAWN = 20;

/** One tender's redraws one after another, each reading the bookmarks when its turn comes. */
const inTurn = queuePerKey();

/** Remembers a card just shared, so that a later bookmark change redraws it. */
export async function rememberSharedCard(
  context: FeatureContext,
  card: { teamId: string; channelId: string; ts: string; tenderId: string; sharedBy: string },
): Promise<void> {
  await context.store.rememberSharedTenderCard(card, context.clock());
}

/**
 * Redraws the tender's shared cards in the workspace with its bookmark as the workspace's key now
 * reads it (a later change's redraw always lands last), but `drawn`, the card already redrawn by
 * the click itself. A card Slack says is gone is forgotten; any other failure is only logged: the
 * bookmark itself was changed.
 */
export function redrawSharedCards(
  context: FeatureContext,
  slack: AppSlack,
  teamId: string,
  tenderId: string,
  drawn: { channelId: string; ts: string } | null = null,
  /** Who changed the list, said in each redrawn card's thread (as the card clicked says it). */
  told: Mrkdwn | null = null,
): Promise<number> {
  return inTurn(`${teamId}\u0000${tenderId}`, async () => {
    const cards = (await context.store.sharedTenderCards(teamId, tenderId, CARDS_REDRAWN)).filter(
      (card) => !(drawn && card.channelId === drawn.channelId && card.ts === drawn.ts),
    );
    // Most tenders are shared nowhere: nothing is read for them.
    if (cards.length === 0) return 0;
    const { client } = await context.clients.forTeam(teamId);
    const [tender, bookmarks] = await Promise.all([client.tenders.get(tenderId), bookmarkedIds(client)]);
    const bookmarked = bookmarks.has(tenderId);
    let redrawn = 0;
    for (const card of cards) {
      const message = sharedTenderMessage(tender, card.sharedBy, bookmarked, context.clock());
      try {
        await slack.chat.update({
          channel: card.channelId,
          ts: card.ts,
          text: message.text,
          blocks: message.blocks,
        });
        redrawn++;
        if (told) await slack.chat.postMessage({ channel: card.channelId, thread_ts: card.ts, text: told });
      } catch (error) {
        if (isMessageGone(error)) await context.store.forgetSharedTenderCard(teamId, card.channelId, card.ts);
        else context.logger.warn({ err: error, teamId }, 'could not redraw a shared tender card');
      }
    }
    return redrawn;
  });
}

/** After a bookmark changed with the workspace's key: the shared cards redrawn once the clicker is answered. */
export function followBookmarkChange(
  context: FeatureContext,
  slack: AppSlack,
  change: { teamId: string; tenderId: string; userId: string; added: boolean },
  drawn: { channelId: string; ts: string } | null = null,
): void {
  const { teamId, tenderId } = change;
  // The same line as under the card clicked, so every card's thread tells the list's history.
  const told = bookmarkChangeLine(change.userId, change.added);
  void redrawSharedCards(context, slack, teamId, tenderId, drawn, told).catch((error) =>
    context.logger.warn({ err: error, teamId }, 'could not redraw the shared cards of a tender'),
  );
}

/** The line under a shared card saying who changed the workspace's bookmark of its tender. */
export function bookmarkChangeLine(userId: string, added: boolean): Mrkdwn {
  return added
    ? mrkdwn`${mention(userId)} bookmarked this tender.`
    : mrkdwn`${mention(userId)} removed this tender from the bookmarks.`;
}
