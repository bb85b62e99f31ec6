import type { Workspace } from './workspace.ts';

/**
 * A POST to a response_url: replaces, deletes, or adds a message, ephemeral unless in_channel.
 * A click's response_url belongs to the clicked message; a command's, to what it posted last
 * (Slack lets a command's later answer replace its earlier one).
 */
// biome-ignore lint/suspicious/noExplicitAny: the body of a response_url POST.
export function respondAt(workspace: Workspace, responseId: string, body: any): Record<string, unknown> {
  const [channel, userId, originalTs] = Buffer.from(responseId, 'base64url').toString('utf8').split('|');
  if (!channel || !userId) return { ok: false, error: 'invalid_response_url' };
  workspace.calls.push({
    method: 'response_url',
    args: { ...body, channel, user: userId, originalTs: originalTs || null },
  });
  const original = originalTs
    ? workspace.messages.find((message) => message.ts === originalTs && message.channel === channel)
    : workspace.postedThrough.get(responseId);
  if (body.delete_original && original) {
    original.deleted = true;
    return { ok: true };
  }
  if (body.replace_original && original) {
    original.text = body.text ?? original.text;
    original.blocks = body.blocks ?? [];
    if (body.response_type === 'in_channel') original.ephemeralTo = null;
    return { ok: true };
  }
  const ephemeralTo = body.response_type === 'in_channel' ? null : userId;
  const posted = workspace.postMessage(
    channel,
    body.text ?? '',
    body.blocks ?? [],
    ephemeralTo,
    body.thread_ts ?? null,
  );
  if (!originalTs) workspace.postedThrough.set(responseId, posted);
  return { ok: true };
}
