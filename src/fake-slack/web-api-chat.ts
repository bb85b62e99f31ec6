import { messageRefusal } from './block-rules.ts';
import { linksIn } from './links.ts';
import { BOT_USER_ID, type FakeMessage, type Unfurl } from './types.ts';
import type { Args, WebAnswer } from './web-api-types.ts';
import { unfurlEntities } from './work-objects.ts';
import type { Workspace } from './workspace.ts';

/** A message as the Web API shows it (`chat.postMessage`'s answer, `conversations.history`). */
export function messageJson(message: FakeMessage, withMetadata: boolean): Record<string, unknown> {
  return {
    type: 'message',
    ts: message.ts,
    user: message.authorId,
    ...(message.authorId === BOT_USER_ID ? { bot_id: 'B0BOT', app_id: 'A0TENDERBOT' } : {}),
    text: message.text,
    blocks: message.blocks,
    ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
    ...(message.unfurls ? { attachments: Object.values(message.unfurls) } : {}),
    ...(withMetadata && message.metadata ? { metadata: message.metadata } : {}),
  };
}

/**
 * Where a message may not be posted, as Slack refuses it: an unknown channel, an archived one,
 * or one the bot is not in (the app has `chat:write`, not `chat:write.public`).
 */
function postRefusal(workspace: Workspace, channel: string): WebAnswer | null {
  if (!workspace.hasChannel(channel)) return { ok: false, error: 'channel_not_found' };
  if (workspace.archived.has(channel)) return { ok: false, error: 'is_archived' };
  if (!workspace.isMember(channel)) return { ok: false, error: 'not_in_channel' };
  return null;
}

/** Slack's refusal of a message's text and blocks (block-rules.ts), with its problems, or null. */
function contentRefusal(args: Args, needsContent = true): WebAnswer | null {
  const refusal = messageRefusal(args.text, args.blocks, { needsContent });
  if (!refusal) return null;
  return { ok: false, error: refusal.error, response_metadata: { messages: refusal.messages } };
}

/** The `chat.*` methods the app calls, answered as Slack does. */
export function chatMethod(workspace: Workspace, method: string, args: Args): WebAnswer | null {
  switch (method) {
    case 'chat.postMessage': {
      // A user id posts into that person's direct messages with the app; the answer names the DM.
      const channel = workspace.resolveChannel(args.channel);
      const refusal = postRefusal(workspace, channel) ?? contentRefusal(args);
      if (refusal) return refusal;
      // A reply goes under a parent that exists in that channel, as in Slack.
      if (args.thread_ts) {
        const parent = workspace.findMessage(channel, args.thread_ts);
        if (!parent || parent.deleted || parent.ephemeralTo !== null)
          return { ok: false, error: 'thread_not_found' };
      }
      const message = workspace.postMessage(
        channel,
        args.text ?? '',
        args.blocks ?? [],
        null,
        args.thread_ts ?? null,
        args.metadata,
      );
      return { ok: true, channel: message.channel, ts: message.ts, message: messageJson(message, true) };
    }
    case 'chat.postEphemeral': {
      const channel = workspace.resolveChannel(args.channel);
      const refusal = postRefusal(workspace, channel);
      if (refusal) return refusal;
      // Slack shows an ephemeral message only to someone in the channel.
      if (!workspace.users.some((user) => user.id === args.user))
        return { ok: false, error: 'user_not_found' };
      if (!workspace.membersOf(channel).has(args.user)) return { ok: false, error: 'user_not_in_channel' };
      const content = contentRefusal(args);
      if (content) return content;
      const message = workspace.postMessage(
        channel,
        args.text ?? '',
        args.blocks ?? [],
        args.user,
        args.thread_ts ?? null,
      );
      return { ok: true, message_ts: message.ts };
    }
    case 'chat.update': {
      const channel = workspace.resolveChannel(args.channel);
      const message = workspace.findMessage(channel, args.ts);
      // Slack cannot update an ephemeral message through chat.update: only through its response_url.
      if (!message || message.deleted || message.ephemeralTo !== null)
        return { ok: false, error: 'message_not_found' };
      // Only the app's own messages: a person's, or Slackbot's, is not the app's to change.
      if (message.authorId !== BOT_USER_ID) return { ok: false, error: 'cant_update_message' };
      if (workspace.archived.has(channel)) return { ok: false, error: 'is_archived' };
      const content = contentRefusal(args);
      if (content) return content;
      message.text = args.text ?? message.text;
      message.blocks = args.blocks ?? message.blocks;
      if (args.metadata) message.metadata = args.metadata;
      return { ok: true, channel: message.channel, ts: message.ts, text: message.text };
    }
    case 'chat.delete': {
      const message = workspace.findMessage(workspace.resolveChannel(args.channel), args.ts);
      if (!message || message.ephemeralTo !== null) return { ok: false, error: 'message_not_found' };
      if (message.authorId !== BOT_USER_ID) return { ok: false, error: 'cant_delete_message' };
      message.deleted = true;
      return { ok: true, channel: message.channel, ts: message.ts };
    }
    case 'chat.getPermalink': {
      const message = workspace.findMessage(workspace.resolveChannel(args.channel), args.message_ts);
      if (!message || message.deleted || message.ephemeralTo !== null)
        return { ok: false, error: 'message_not_found' };
      const ts = `p${message.ts.replace('.', '')}`;
      const thread = message.threadTs ? `?thread_ts=${message.threadTs}&cid=${message.channel}` : '';
      return {
        ok: true,
        channel: message.channel,
        permalink: `https://${workspace.domain}.slack.com/archives/${message.channel}/${ts}${thread}`,
      };
    }
    case 'chat.unfurl':
      return unfurl(workspace, args);
    default:
      return null;
  }
}

/**
 * `chat.unfurl`: previews for links a person posted, named by channel and ts or by the
 * `unfurl_id` and `source` of the `link_shared` event. A second call for the same message
 * replaces the previews of the URLs it names, as Slack's does.
 */
function unfurl(workspace: Workspace, args: Args): WebAnswer {
  let message: FakeMessage | undefined;
  if (args.unfurl_id !== undefined || args.source !== undefined) {
    if (!args.unfurl_id || !['composer', 'conversations_history'].includes(args.source))
      return { ok: false, error: 'invalid_arguments' };
    message = workspace.unfurlIds.get(args.unfurl_id);
  } else {
    if (!args.channel || !args.ts) return { ok: false, error: 'invalid_arguments' };
    if (!workspace.hasChannel(args.channel)) return { ok: false, error: 'cannot_find_channel' };
    message = workspace.findMessage(args.channel, args.ts);
  }
  if (!message || message.deleted) return { ok: false, error: 'cannot_unfurl_message' };
  // Work Objects: `metadata.entities` (work-objects.ts), alone or beside `unfurls`.
  const entities = unfurlEntities(workspace, message, args.metadata);
  if (entities && (!entities.ok || args.unfurls === undefined)) return entities;
  const unfurls = args.unfurls as Record<string, Unfurl> | undefined;
  if (!unfurls || typeof unfurls !== 'object' || Array.isArray(unfurls))
    return { ok: false, error: 'invalid_unfurls_format' };
  const links = linksIn(message.text);
  if (Object.keys(unfurls).some((url) => !links.includes(url)))
    return { ok: false, error: 'cannot_unfurl_url' };
  // Each preview's blocks are held to a message's limits, as Slack holds them.
  for (const [url, preview] of Object.entries(unfurls)) {
    if (!preview || typeof preview !== 'object') return { ok: false, error: 'invalid_unfurls_format' };
    const refusal = messageRefusal(preview.text, preview.blocks, { needsContent: false });
    if (refusal)
      return {
        ok: false,
        error: refusal.error,
        response_metadata: { messages: refusal.messages.map((line) => `${line} (unfurl of ${url})`) },
      };
  }
  message.unfurls = { ...message.unfurls, ...unfurls };
  return { ok: true };
}
