/* "Share in channel": one tender's card posted for everyone, once however often it is clicked. */
import { bookmarkedIds } from '../../shared/bookmarked-ids.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { inChannel, refuseGuests } from '../../shared/feature-context.ts';
import { firstWithin } from '../../shared/repeat-guard.ts';
import { channelLink, mrkdwn } from '../../shared/views/mrkdwn.ts';
import { rememberSharedCard } from './shared-cards.ts';
import { sharedTenderMessage } from './views/search-messages.ts';

/** A second share of one tender in one channel within this is a repeat (a double click), not posted again. */
const REPEAT_SHARE_MS = 60_000;

/** "Share in channel": one card for everyone. */
export async function shareTender(
  context: FeatureContext,
  request: SlackRequest,
  tenderId: string,
): Promise<void> {
  if (await refuseGuests(context, request, 'share tenders in a channel')) return;
  // A card in direct messages (an older one, or drawn where the app could not tell): no channel to share in.
  if (!inChannel(request)) {
    await request.respond({
      response_type: 'ephemeral',
      replace_original: false,
      text: mrkdwn`Sharing works from a channel: run the search there (\`/tender search …\`) and press *Share in channel* on the card.`,
    });
    return;
  }
  // Claimed before anything is read: a repeat costs the service nothing.
  const claim = await firstWithin(
    context.store,
    `share:${request.teamId}:${request.channelId}:${tenderId}`,
    REPEAT_SHARE_MS,
    context.clock(),
  );
  if (!claim.first) {
    await request.respond({
      response_type: 'ephemeral',
      replace_original: false,
      text: mrkdwn`This tender was shared in this channel moments ago, so it was not posted again.`,
    });
    return;
  }
  try {
    // The channel's card shows the workspace's list, whoever shares it.
    const { client } = await context.clients.forTeam(request.teamId);
    const [tender, bookmarked] = await Promise.all([client.tenders.get(tenderId), bookmarkedIds(client)]);
    const message = sharedTenderMessage(tender, request.userId, bookmarked.has(tender.id), context.clock());
    const posted = await request.slack.chat.postMessage({
      channel: request.channelId,
      text: message.text,
      blocks: message.blocks,
      unfurl_links: false,
    });
    // Remembered, so a bookmark changed anywhere redraws it; a card not remembered is only not redrawn.
    if (posted.ts)
      await rememberSharedCard(context, {
        teamId: request.teamId,
        channelId: request.channelId,
        ts: posted.ts,
        tenderId: tender.id,
        sharedBy: request.userId,
      }).catch((error) => context.logger.warn({ err: error }, 'could not remember a shared tender card'));
  } catch (error) {
    // Not posted, so not a share: the next click goes ahead.
    await claim.release();
    if ((error as { data?: { error?: string } }).data?.error === 'not_in_channel') {
      await request.respond({
        response_type: 'ephemeral',
        replace_original: false,
        text: mrkdwn`Invite Tenderbot to this channel first (\`/invite @Tenderbot\`), then share again.`,
      });
      return;
    }
    throw error;
  }
  await request.respond({
    response_type: 'ephemeral',
    replace_original: false,
    // Named: shared from the Home tab, the confirmation comes in direct messages, away from it.
    text: mrkdwn`Shared in ${channelLink(request.channelId)}.`,
  });
}
