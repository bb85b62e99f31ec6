import { BOT_USER_ID } from './types.ts';
import { messageJson } from './web-api-chat.ts';
import type { Args, WebAnswer } from './web-api-types.ts';
import { compareTs, type Workspace } from './workspace.ts';

/** Messages a history call gives: as to a Marketplace app, and as to one outside it (changelog 2025-05-29). */
const MARKETPLACE_HISTORY = { defaultLimit: 100, maxLimit: 999 };
const UNLISTED_HISTORY = { defaultLimit: 15, maxLimit: 15 };

/** Slack's booleans arrive as `true`, `1` or `"true"` (form-encoded) alike. */
function flag(value: unknown): boolean {
  return value === true || value === 1 || value === 'true' || value === '1';
}

/** The `conversations.*` methods the app calls, answered as Slack does. */
export function conversationsMethod(workspace: Workspace, method: string, args: Args): WebAnswer | null {
  switch (method) {
    case 'conversations.members':
      return {
        ok: true,
        members: [...workspace.membersOf(args.channel)],
        response_metadata: { next_cursor: '' },
      };
    case 'conversations.join': {
      if (!workspace.hasChannel(args.channel)) return { ok: false, error: 'channel_not_found' };
      if (workspace.archived.has(args.channel)) return { ok: false, error: 'is_archived' };
      workspace.membersOf(args.channel).add(BOT_USER_ID);
      workspace.botIn.add(args.channel);
      return { ok: true, channel: { id: args.channel, name: workspace.channel(args.channel).name } };
    }
    case 'users.conversations':
      // The channels the app is in (the bot token's own), archived ones left out when asked.
      return {
        ok: true,
        channels: workspace.channels
          .filter((channel) => workspace.botIn.has(channel.id))
          .filter((channel) => !(flag(args.exclude_archived) && workspace.archived.has(channel.id)))
          .map((channel) => ({ id: channel.id, name: channel.name, is_private: channel.isPrivate ?? false })),
        response_metadata: { next_cursor: '' },
      };
    case 'conversations.open': {
      // The app's direct messages with one person (`users` names one user id).
      const userId = String(args.users ?? '').split(',')[0] ?? '';
      if (!workspace.users.some((user) => user.id === userId)) return { ok: false, error: 'user_not_found' };
      return { ok: true, channel: { id: `D${userId}` } };
    }
    case 'conversations.info': {
      if (!workspace.hasChannel(args.channel)) return { ok: false, error: 'channel_not_found' };
      const channel = workspace.channel(args.channel);
      const dmUser = workspace.dmUser(channel.id);
      if (dmUser)
        return { ok: true, channel: { id: channel.id, is_im: true, user: dmUser, is_member: true } };
      return {
        ok: true,
        channel: {
          id: channel.id,
          name: channel.name,
          is_channel: !channel.isPrivate,
          is_group: channel.isPrivate ?? false,
          is_im: false,
          is_private: channel.isPrivate ?? false,
          is_archived: workspace.archived.has(channel.id),
          is_member: workspace.botIn.has(channel.id),
        },
      };
    }
    case 'conversations.replies': {
      const parent = workspace.findMessage(args.channel, args.ts);
      if (!parent || parent.deleted) return { ok: false, error: 'thread_not_found' };
      const replies = workspace.threadOf(args.channel, args.ts);
      return {
        ok: true,
        messages: [parent, ...replies].map((message) => ({
          type: 'message',
          ts: message.ts,
          text: message.text,
          user: message.authorId,
          ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
        })),
        has_more: false,
      };
    }
    case 'conversations.history':
      return history(workspace, args);
    default:
      return null;
  }
}

/**
 * `conversations.history`: a channel's top-level messages (no thread replies, ephemeral or
 * deleted messages), newest first, between `oldest` and `latest` (exclusive unless `inclusive`),
 * `limit` at a time with an opaque cursor: at most 15 (also the default) for an app outside the
 * Marketplace, a bigger `limit` clamped to 15 with `has_more` and a cursor for the rest, as Slack
 * serves it since 2025-05-29; 100 by default and at most 999 for a Marketplace app. Metadata is included only
 * with `include_all_metadata`, as SLACK.md says. An archived channel's history reads as any other.
 */
function history(workspace: Workspace, args: Args): WebAnswer {
  const channel = String(args.channel ?? '');
  if (!workspace.hasChannel(channel)) return { ok: false, error: 'channel_not_found' };
  if (!workspace.isMember(channel)) return { ok: false, error: 'not_in_channel' };
  const served = workspace.marketplaceApp ? MARKETPLACE_HISTORY : UNLISTED_HISTORY;
  const limit = Math.min(Math.max(Number(args.limit) || served.defaultLimit, 1), served.maxLimit);
  const inclusive = flag(args.inclusive);
  const oldest = args.oldest ? String(args.oldest) : null;
  const latest = args.latest ? String(args.latest) : null;
  let before: string | null = null;
  if (args.cursor) {
    const decoded = Buffer.from(String(args.cursor), 'base64').toString('utf8');
    if (!decoded.startsWith('next_ts:')) return { ok: false, error: 'invalid_cursor' };
    before = decoded.slice('next_ts:'.length);
  }
  const inRange = workspace.messages
    .map((message, index) => ({ message, index }))
    .filter(({ message }) => {
      if (message.channel !== channel || message.deleted || message.ephemeralTo !== null) return false;
      if (message.threadTs !== null && message.threadTs !== message.ts) return false;
      if (oldest && compareTs(message.ts, oldest) < (inclusive ? 0 : 1)) return false;
      if (latest && compareTs(message.ts, latest) > (inclusive ? 0 : -1)) return false;
      return !(before && compareTs(message.ts, before) >= 0);
    })
    .sort((a, b) => compareTs(b.message.ts, a.message.ts) || b.index - a.index)
    .map(({ message }) => message);
  const page = inRange.slice(0, limit);
  const hasMore = inRange.length > limit;
  const last = page.at(-1);
  const withMetadata = flag(args.include_all_metadata);
  return {
    ok: true,
    messages: page.map((message) => {
      const replies = workspace.threadOf(channel, message.ts);
      return {
        ...messageJson(message, withMetadata),
        ...(replies.length > 0 ? { thread_ts: message.ts, reply_count: replies.length } : {}),
      };
    }),
    has_more: hasMore,
    pin_count: 0,
    response_metadata: {
      next_cursor: hasMore && last ? Buffer.from(`next_ts:${last.ts}`).toString('base64') : '',
    },
  };
}
