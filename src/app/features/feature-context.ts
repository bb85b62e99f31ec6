import { randomUUID } from 'node:crypto';
import type { RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { failureMessage, type Message } from '../blocks/messages.ts';
import type { BotConfig } from '../config.ts';
import type { KeyCipher } from '../security/key-cipher.ts';
import { describeFailure } from '../services/describe-failure.ts';
import type { SlackUsers } from '../services/slack-users.ts';
import type { WorkspaceClients } from '../services/workspace-clients.ts';
import type { BotStore } from '../storage/bot-store.ts';

/** What every feature needs, built once at start. */
export interface FeatureContext {
  config: BotConfig;
  clients: WorkspaceClients;
  users: SlackUsers;
  store: BotStore;
  cipher: KeyCipher;
  logger: Logger;
  clock: () => Date;
}

/** Who asked, where, and how to answer them. */
export interface Request {
  teamId: string;
  userId: string;
  channelId: string;
  respond: RespondFn;
  slack: WebClient;
}

/** An answer only the asker sees; `replace` redraws the message a click came from. */
export async function reply(request: Request, message: Message, replace = false): Promise<void> {
  await request.respond({
    response_type: 'ephemeral',
    replace_original: replace,
    text: message.text,
    blocks: message.blocks,
  });
}

/**
 * Runs a feature; any failure becomes a sentence with a reference id that is also in the log,
 * and "Try again" when trying again may help (the command to retry is given).
 */
export async function withFailures(
  context: FeatureContext,
  request: Request,
  what: string,
  retryCommand: string | null,
  work: () => Promise<void>,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    const reference = randomUUID().slice(0, 8);
    const { sentence, retryable } = describeFailure(error);
    context.logger.warn(
      { err: error, reference, teamId: request.teamId, userId: request.userId, what },
      'request failed',
    );
    await reply(request, failureMessage(sentence, reference, retryable ? retryCommand : null)).catch(
      (replyError) =>
        context.logger.error({ err: replyError, reference }, 'could not tell the user about a failure'),
    );
  }
}

/** Guests may read but every write refuses them, with a sentence. */
export async function refuseGuests(
  context: FeatureContext,
  request: Request,
  action: string,
): Promise<boolean> {
  const facts = await context.users.facts(request.userId);
  if (!facts.isGuest) return false;
  await request.respond({
    response_type: 'ephemeral',
    replace_original: false,
    text: `Guests can read tenders but cannot ${action}. Ask a member of the workspace to do it for you.`,
  });
  return true;
}
