import { request } from 'undici';
import type { AppChat, AppRespond, OutgoingMessage, RespondMessage } from './app-slack.ts';

/** The chat methods an answer without a response_url needs. */
type AnswerChat = { chat: Pick<AppChat, 'postMessage' | 'postEphemeral' | 'update'> };

/**
 * Tells the person behind a request: through its response_url when it has one (commands, clicks),
 * else where they are, as `respondWithoutResponseUrl` does, with `token`, the bot token of the
 * request's workspace (the client's own when not given).
 */
export async function tellPerson(
  client: AnswerChat,
  body: unknown,
  message: OutgoingMessage,
  token?: string,
): Promise<void> {
  const responseUrl = fieldsOf(body).response_url;
  if (typeof responseUrl === 'string' && /^https?:\/\//.test(responseUrl)) {
    const answer = await request(responseUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, ...message }),
      headersTimeout: 5000,
      bodyTimeout: 5000,
    });
    await answer.body.dump();
    return;
  }
  await respondWithoutResponseUrl(client, body, token)({ response_type: 'ephemeral', ...message });
}

/** What an answer shows: its text and blocks. */
type Content = { text: RespondMessage['text']; blocks?: RespondMessage['blocks'] };

/**
 * A `respond` for a request Slack sent without a response_url (a click in the Home tab or in a
 * modal, a global shortcut, a view submission; a forged or replayed body): the answer goes to the
 * person alone where they are. From a message in a channel, an ephemeral message there (in their
 * direct messages if Slack refuses it, say they left the channel), even for an answer meant for
 * the whole channel; otherwise a message in their direct messages with the app, where an answer
 * that replaces (a result after "still trying…") updates the last one this respond posted. Nobody
 * to tell (no user in the body): nothing is sent.
 */
export function respondWithoutResponseUrl(client: AnswerChat, body: unknown, token?: string): AppRespond {
  const { userId, channelId, threadTs } = placeOf(body);
  const auth = token ? { token } : {};
  let last: { channel: string; ts: string } | null = null;
  const inDirectMessages = async (message: RespondMessage, content: Content, to: string) => {
    if (message.replace_original && last) {
      await client.chat.update({ channel: last.channel, ts: last.ts, ...content, ...auth });
      return;
    }
    const posted = await client.chat.postMessage({ channel: to, ...content, unfurl_links: false, ...auth });
    if (posted.channel && posted.ts) last = { channel: posted.channel, ts: posted.ts };
  };
  return async (message) => {
    // Only a response_url can delete the message a click came from; there is nothing to say.
    if (message.delete_original || !userId) return;
    const content = { text: message.text, ...(message.blocks ? { blocks: message.blocks } : {}) };
    // A direct message (`D…`) is answered in the person's own with the app, named by them: a
    // `D…` id may be a conversation between two people, where the app cannot post.
    if (!channelId || channelId.startsWith('D')) return inDirectMessages(message, content, userId);
    const thread = threadTs ? { thread_ts: threadTs } : {};
    // Never for the whole channel, even when asked (`in_channel`): Slack sends a response_url with
    // every click on a channel's message, so a body without one names a channel nobody vouched for.
    try {
      await client.chat.postEphemeral({ channel: channelId, user: userId, ...content, ...thread, ...auth });
    } catch {
      await inDirectMessages(message, content, userId);
    }
  };
}

/**
 * Who sent a body, and the channel of the message they acted on or typed in: none for a click in
 * a view (the Home tab, a modal), which belongs to no channel.
 */
function placeOf(body: unknown): {
  userId: string | null;
  channelId: string | null;
  threadTs: string | null;
} {
  const fields = fieldsOf(body);
  const user = fieldsOf(fields.user);
  const event = fieldsOf(fields.event);
  const container = fieldsOf(fields.container);
  const inView = container.type === 'view' || fields.view !== undefined;
  const channel = fieldsOf(fields.channel);
  return {
    userId: firstText(fields.user_id, user.id, event.user),
    channelId: inView ? null : firstText(channel.id, container.channel_id, fields.channel_id),
    threadTs: inView ? null : firstText(container.thread_ts),
  };
}

function fieldsOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function firstText(...candidates: unknown[]): string | null {
  return (
    candidates.find((candidate): candidate is string => typeof candidate === 'string' && candidate !== '') ??
    null
  );
}
