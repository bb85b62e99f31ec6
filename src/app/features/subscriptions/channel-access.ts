import type { SlackRequest } from '../../shared/feature-context.ts';

/** Why nothing can be posted in a channel now: it is archived, or Tenderbot is not in it. */
export type ChannelOut = 'archived' | 'out';

/**
 * Why Slack says nothing can be posted in `channelId` now: archived, or Tenderbot not a member (a
 * private channel it is not in is not found at all); null when it can, or cannot tell (a post
 * itself then finds out).
 */
export async function tenderbotIsOut(
  request: Pick<SlackRequest, 'slack'>,
  channelId: string,
): Promise<ChannelOut | null> {
  try {
    const answer = await request.slack.conversations.info({ channel: channelId });
    if (answer.channel?.is_archived) return 'archived';
    return answer.channel?.is_member === false ? 'out' : null;
  } catch (error) {
    return (error as { data?: { error?: string } }).data?.error === 'channel_not_found' ? 'out' : null;
  }
}
