import type { AppSlack } from '../../adapters/app-slack.ts';
import { connectionState } from '../../shared/connection-state.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { welcomeMessage } from './views/welcome-message.ts';

/**
 * `member_joined_channel` for Tenderbot itself: one short welcome, the first time only. The store
 * answers "first time" once per channel (also after the app is removed and added again), so two
 * copies of the app, or a retried event, post it once.
 */
export async function welcomeChannel(
  context: FeatureContext,
  slack: AppSlack,
  args: { teamId: string; channelId: string },
): Promise<boolean> {
  const first = await context.store.markChannelWelcomed(args.teamId, args.channelId, context.clock());
  if (!first) return false;
  const message = welcomeMessage(await connectionState(context, args.teamId));
  try {
    await slack.chat.postMessage({
      channel: args.channelId,
      text: message.text,
      blocks: message.blocks,
      unfurl_links: false,
    });
  } catch (error) {
    // Marked first so that a retry never posts twice; a channel that refuses the post is only logged.
    context.logger.warn(
      { err: error, teamId: args.teamId, channelId: args.channelId },
      'could not post the welcome',
    );
    return false;
  }
  return true;
}
