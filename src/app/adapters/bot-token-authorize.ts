import type { Authorize, AuthorizeResult } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { slackErrorOf } from '../shared/errors.ts';

/** Slack did not say whose the bot token is (auth.test failed): the request cannot be answered as the bot. */
export class BotIdentityUnknownError extends Error {
  override name = 'BotIdentityUnknownError';
}

/** Slack's answers to auth.test that mean the token itself is refused, not that Slack is having a bad moment. */
const TOKEN_REFUSED = new Set([
  'invalid_auth',
  'not_authed',
  'token_revoked',
  'token_expired',
  'account_inactive',
  'not_allowed_token_type',
]);

/** The error Slack answered auth.test with when it refused the token itself; null otherwise. */
export function refusedTokenError(slackAnswer: unknown): string | null {
  const error = slackErrorOf(slackAnswer);
  return error !== null && TOKEN_REFUSED.has(error) ? error : null;
}

export interface BotTokenAuthorization {
  authorize: Authorize<boolean>;
  /** Asks Slack at start (the first request then finds the answer kept), and says in the log what is wrong. */
  checkAtStart(logger: Logger): void;
}

/**
 * Bolt's `authorize` for one workspace's bot token (SLACK_BOT_TOKEN). Given `token`, Bolt asks
 * Slack's auth.test once, as the app is built, and keeps the answer, a failure too: Slack out of
 * reach at that moment crashed the process (the promise failed with nothing waiting on it), and
 * would have failed every request after. This keeps a success and asks again after a failure, so
 * the app starts and heals without Slack; requests asking at the same moment share one question.
 */
export function botTokenAuthorization(client: WebClient, botToken: string): BotTokenAuthorization {
  let identity: Promise<Pick<AuthorizeResult, 'botId' | 'botUserId'>> | null = null;
  const ask = async () => {
    identity ??= client.auth.test({ token: botToken }).then((answer) => ({
      botId: answer.bot_id,
      botUserId: answer.user_id,
    }));
    const asked = identity;
    try {
      return await asked;
    } catch (error) {
      // Only the failed question is forgotten: a later one another request started is kept.
      if (identity === asked) identity = null;
      throw new BotIdentityUnknownError('Slack did not confirm the bot token (auth.test)', { cause: error });
    }
  };
  return {
    authorize: async (source) => ({
      isEnterpriseInstall: source.isEnterpriseInstall,
      botToken,
      ...(await ask()),
    }),
    checkAtStart: (logger) => {
      ask().catch((error: BotIdentityUnknownError) => {
        const refused = refusedTokenError(error.cause);
        if (refused)
          logger.error(
            { slackError: refused },
            'Slack refused SLACK_BOT_TOKEN: every request is told so until it is replaced',
          );
        else
          logger.warn(
            { err: error.cause },
            'Slack did not confirm SLACK_BOT_TOKEN at start: it is asked again at the first request',
          );
      });
    },
  };
}
