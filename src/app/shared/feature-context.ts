import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { NotFoundError, ValidationError } from '../../client/errors.ts';
import type { AppRespond, AppSlack, RespondMessage } from '../adapters/app-slack.ts';
import type { SlackUsers } from '../adapters/slack-users.ts';
import type { WorkspaceClients } from '../adapters/workspace-clients.ts';
import type { BotConfig } from '../config.ts';
import type { KeyCipher } from '../security/key-cipher.ts';
import type { BotStore } from '../storage/bot-store.ts';
import { NotConnectedError } from './errors.ts';
import { describeFailure } from './failure-sentences.ts';
import { StaleValueError } from './values/stale-value.ts';
import { failureMessage, type Message, sentenceMessage } from './views/messages.ts';
import { mrkdwn, text } from './views/mrkdwn.ts';

/** What every feature needs, built once at start. */
export interface FeatureContext {
  config: BotConfig;
  clients: WorkspaceClients;
  users: SlackUsers;
  store: BotStore;
  cipher: KeyCipher;
  logger: Logger;
  clock: () => Date;
  /** How long a person waits before hearing that the service is slow (about 3 s is Slack's patience). */
  slowNoticeMs: number;
  /** The subscriptions' scheduler: woken when a post is due now ("Send now"). */
  scheduler?: { wake(): void };
}

/** Who asked, where, and how to answer them. */
export interface SlackRequest {
  teamId: string;
  userId: string;
  channelId: string;
  /**
   * Answers the person: at the response_url, else where they are (an ephemeral message beside the
   * clicked message, or their direct messages: request-router.ts); never missing.
   */
  respond: AppRespond;
  slack: AppSlack;
  /** A command answers in a message of its own; a click answers in (or beside) the clicked message. */
  kind: 'command' | 'click';
}

export const SLOW_SENTENCE = mrkdwn`The tender service is slow to answer; still trying…`;

/**
 * A click's notice stays where it is (Slack cannot replace an ephemeral message beside the one
 * clicked), so it says only what stays true once the click is done.
 */
export const SLOW_CLICK_SENTENCE = mrkdwn`The tender service is slow to answer. Your click is being handled: its result shows when the service replies.`;

export const STALE_BUTTON_SENTENCE = mrkdwn`That button is out of date or was changed, so Tenderbot cannot tell what it was for. Run the search (or the command) again and use the new buttons.`;

export { StaleValueError };

/** An answer only the asker sees; `replace` redraws the message a click came from. */
export async function reply(request: SlackRequest, message: Message, replace = false): Promise<void> {
  await request.respond({
    response_type: 'ephemeral',
    replace_original: replace,
    text: message.text,
    blocks: message.blocks,
  });
}

/**
 * Runs a feature; any failure becomes a sentence with a reference id that is also in the log,
 * and "Try again" when trying again may help (the command to retry is given). When the service is
 * slow, the person hears so within `slowNoticeMs`; a command's answer then replaces that notice,
 * and a click's notice is worded to stay true beside its result.
 * For a click, a record that is gone or a value the service refuses is said to be about the button.
 */
export async function withFailures(
  context: FeatureContext,
  request: SlackRequest,
  what: string,
  retryCommand: string | null,
  work: (request: SlackRequest) => Promise<void>,
): Promise<void> {
  let answered = false;
  let notice: Promise<unknown> | null = null;
  const guarded: SlackRequest = {
    ...request,
    respond: async (message) => {
      answered = true;
      if (notice) {
        await notice.catch(() => undefined);
        // The notice was the command's answer so far: the real answer takes its place.
        if (request.kind === 'command') return request.respond(asReplacement(message));
      }
      return request.respond(message);
    },
  };
  const timer = setTimeout(() => {
    if (answered) return;
    notice = request
      .respond({
        response_type: 'ephemeral',
        replace_original: false,
        text: request.kind === 'command' ? SLOW_SENTENCE : SLOW_CLICK_SENTENCE,
      })
      .catch((error) => context.logger.warn({ err: error, what }, 'could not say that the service is slow'));
  }, context.slowNoticeMs);
  try {
    await work(guarded);
  } catch (error) {
    if (error instanceof NotConnectedError) {
      // A workspace that has not connected its key yet is a normal state: it is told how, as
      // guidance (no warning sign, no reference to quote).
      await reply(guarded, sentenceMessage(describeFailure(error).sentence)).catch((replyError) =>
        context.logger.error({ err: replyError }, 'could not say how to connect a key'),
      );
      return;
    }
    const reference = randomUUID().slice(0, 8);
    const stale =
      error instanceof StaleValueError ||
      (request.kind === 'click' && (error instanceof NotFoundError || error instanceof ValidationError));
    const { sentence, retryable } = stale
      ? { sentence: STALE_BUTTON_SENTENCE, retryable: false }
      : describeFailure(error);
    context.logger.warn(
      { err: error, reference, teamId: request.teamId, userId: request.userId, what },
      'request failed',
    );
    await reply(guarded, failureMessage(sentence, reference, retryable ? retryCommand : null)).catch(
      (replyError) =>
        context.logger.error({ err: replyError, reference }, 'could not tell the user about a failure'),
    );
  } finally {
    clearTimeout(timer);
  }
}

function asReplacement(message: RespondMessage): RespondMessage {
  return { ...message, replace_original: true };
}

/**
 * Whether a request came from a channel, where a card can be shared for everyone: not a direct
 * message (`D…`), and not an answer sent to a person's direct messages from elsewhere (a form's,
 * whose request names no channel).
 */
export function inChannel(request: Pick<SlackRequest, 'channelId'>): boolean {
  return request.channelId !== '' && !request.channelId.startsWith('D');
}

/** Guests may read but every write refuses them, with a sentence. */
export async function refuseGuests(
  context: FeatureContext,
  request: SlackRequest,
  action: string,
): Promise<boolean> {
  const facts = await context.users.facts(request.userId, request.teamId);
  if (!facts.isGuest) return false;
  await request.respond({
    response_type: 'ephemeral',
    replace_original: false,
    text: mrkdwn`Guests can read tenders but cannot ${text(action)}. Ask a member of the workspace to do it for you.`,
  });
  return true;
}
