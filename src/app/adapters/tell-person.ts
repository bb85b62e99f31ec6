import { request } from 'undici';
import type { AppChat, OutgoingMessage } from './app-slack.ts';

/**
 * Tells the person behind a request: through its response_url when it has one (commands, clicks),
 * else in a direct message (a modal submission, an event) with `token`, the bot token of the
 * request's workspace (the client's own when not given).
 */
export async function tellPerson(
  client: { chat: Pick<AppChat, 'postMessage'> },
  body: unknown,
  message: OutgoingMessage,
  token?: string,
): Promise<void> {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const responseUrl = fields.response_url;
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
  const user = fields.user as { id?: unknown } | undefined;
  const event = fields.event as { user?: unknown } | undefined;
  const userId = [fields.user_id, user?.id, event?.user].find(
    (candidate): candidate is string => typeof candidate === 'string' && candidate !== '',
  );
  if (userId)
    await client.chat.postMessage({
      channel: userId,
      text: message.text,
      blocks: message.blocks,
      ...(token ? { token } : {}),
    });
}
