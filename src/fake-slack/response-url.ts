import { messageRefusal } from './block-rules.ts';
import type { Workspace } from './workspace.ts';

/** Slack lets a response_url be used 5 times within 30 minutes of when it was given out. */
export const RESPONSE_URL_USES = 5;
export const RESPONSE_URL_LIFETIME_MS = 30 * 60_000;

/** What a response_url answers: Slack's HTTP status and body. */
export interface ResponseUrlAnswer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * A POST to a response_url: replaces, deletes, or adds a message, ephemeral unless in_channel.
 * A click's response_url belongs to the clicked message; a command's, to what it posted last
 * (Slack lets a command's later answer replace its earlier one). As Slack does, it refuses (an
 * error status, nothing posted) a URL it never gave out (404 `invalid_url`), a sixth use (404
 * `used_url`), a use after 30 minutes (404 `expired_url`), and a body Slack would not post
 * (400 `no_text`, `msg_too_long`, `invalid_blocks`).
 */
// biome-ignore lint/suspicious/noExplicitAny: the body of a response_url POST.
export function respondAt(workspace: Workspace, responseId: string, body: any): ResponseUrlAnswer {
  const [channel, userId, originalTs] = Buffer.from(responseId, 'base64url').toString('utf8').split('|');
  const issued = workspace.responseUrls.get(responseId);
  const refuse = (status: number, error: string, messages: string[] = []): ResponseUrlAnswer => {
    // Kept apart from the used ones, which tests count as what the app said.
    workspace.calls.push({ method: 'response_url.refused', args: { ...body, channel, user: userId }, error });
    return {
      status,
      body: { ok: false, error, ...(messages.length > 0 ? { response_metadata: { messages } } : {}) },
    };
  };
  if (!channel || !userId || !issued) return refuse(404, 'invalid_url');
  if (workspace.now() - issued.issuedAt > RESPONSE_URL_LIFETIME_MS) return refuse(404, 'expired_url');
  if (issued.uses >= RESPONSE_URL_USES) return refuse(404, 'used_url');
  issued.uses++;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return refuse(400, 'invalid_payload');
  if (!body.delete_original) {
    const refusal = messageRefusal(body.text, body.blocks);
    if (refusal) return refuse(400, refusal.error, refusal.messages);
  }
  workspace.calls.push({
    method: 'response_url',
    args: { ...body, channel, user: userId, originalTs: originalTs || null },
  });
  const original = originalTs
    ? workspace.messages.find((message) => message.ts === originalTs && message.channel === channel)
    : workspace.postedThrough.get(responseId);
  if (body.delete_original && original) {
    original.deleted = true;
    return { status: 200, body: { ok: true } };
  }
  if (body.replace_original && original) {
    original.text = body.text ?? original.text;
    original.blocks = body.blocks ?? [];
    if (body.response_type === 'in_channel') original.ephemeralTo = null;
    return { status: 200, body: { ok: true } };
  }
  const ephemeralTo = body.response_type === 'in_channel' ? null : userId;
  const posted = workspace.postMessage(
    channel,
    body.text ?? '',
    body.blocks ?? [],
    ephemeralTo,
    body.thread_ts ?? null,
  );
  posted.postedThrough = `${workspace.baseUrl}/response/${responseId}`;
  if (!originalTs) workspace.postedThrough.set(responseId, posted);
  return { status: 200, body: { ok: true } };
}
