import type { Authorize, AuthorizeResult } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';

/** Slack did not say whose the bot token is (auth.test failed): the request cannot be answered as the bot. */
export class BotIdentityUnknownError extends Error {
  override name = 'BotIdentityUnknownError';
}

/**
 * Bolt's `authorize` for one workspace's bot token (SLACK_BOT_TOKEN). Given `token`, Bolt asks
 * Slack's auth.test once, as the app is built, and keeps the answer, a failure too: Slack out of
 * reach at that moment crashed the process (the promise failed with nothing waiting on it), and
 * would have failed every request after. This asks at the first request, keeps a success, and asks
 * again after a failure, so the app starts and heals without Slack.
 */
export function botTokenAuthorize(client: WebClient, botToken: string): Authorize<boolean> {
  let identity: Promise<Pick<AuthorizeResult, 'botId' | 'botUserId'>> | null = null;
  return async (source): Promise<AuthorizeResult> => {
    identity ??= client.auth.test({ token: botToken }).then((answer) => ({
      botId: answer.bot_id,
      botUserId: answer.user_id,
    }));
    const asked = identity;
    try {
      return { isEnterpriseInstall: source.isEnterpriseInstall, botToken, ...(await asked) };
    } catch (error) {
      // Only the failed question is forgotten: a later success another request started is kept.
      if (identity === asked) identity = null;
      throw new BotIdentityUnknownError('Slack did not answer auth.test for the bot token', { cause: error });
    }
  };
}
