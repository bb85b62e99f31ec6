import { randomBytes } from 'node:crypto';
import type { Workspace } from './workspace.ts';

// biome-ignore lint/suspicious/noExplicitAny: Web API arguments are loose JSON.
type Args = Record<string, any>;

/** A new view's state as Slack stores it: no input values yet, and a fresh hash. */
function stored(workspace: Workspace, view: Args, id: string): Args {
  return {
    ...view,
    id,
    team_id: workspace.teamId,
    state: { values: {} },
    hash: randomBytes(4).toString('hex'),
  };
}

/**
 * The Web API methods the app calls, answered as Slack does (../shared/SLACK.md), reading and
 * changing the workspace. An unknown method is Slack's `unknown_method`.
 */
export function webApi(workspace: Workspace, method: string, args: Args): Record<string, unknown> {
  switch (method) {
    case 'auth.test':
      return {
        ok: true,
        url: 'https://tenderbot-fake.slack.com/',
        team: 'Tenderbot Fake',
        user: 'tenderbot',
        team_id: workspace.teamId,
        user_id: 'U0BOT',
        bot_id: 'B0BOT',
      };
    case 'users.info': {
      const user = workspace.users.find((candidate) => candidate.id === args.user);
      if (!user) return { ok: false, error: 'user_not_found' };
      return {
        ok: true,
        user: {
          id: user.id,
          team_id: workspace.teamId,
          name: user.name,
          real_name: user.realName,
          is_admin: user.isAdmin ?? false,
          is_owner: user.isOwner ?? false,
          is_restricted: user.isRestricted ?? false,
          is_ultra_restricted: user.isUltraRestricted ?? false,
          is_bot: false,
          profile: { real_name: user.realName, display_name: user.name },
        },
      };
    }
    case 'conversations.members':
      return {
        ok: true,
        members: [...workspace.membersOf(args.channel)],
        response_metadata: { next_cursor: '' },
      };
    case 'conversations.join': {
      if (!workspace.hasChannel(args.channel)) return { ok: false, error: 'channel_not_found' };
      workspace.membersOf(args.channel).add('U0BOT');
      return { ok: true, channel: { id: args.channel, name: workspace.channel(args.channel).name } };
    }
    case 'team.info':
      return { ok: true, team: { id: workspace.teamId, name: 'Tenderbot Fake', domain: 'tenderbot-fake' } };
    case 'conversations.info': {
      const channel = workspace.channels.find((candidate) => candidate.id === args.channel);
      return channel
        ? { ok: true, channel: { id: channel.id, name: channel.name, is_channel: true, is_member: true } }
        : { ok: false, error: 'channel_not_found' };
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
    case 'chat.postMessage': {
      if (!workspace.hasChannel(args.channel)) return { ok: false, error: 'channel_not_found' };
      // A reply goes under a parent that exists in that channel, as in Slack.
      if (args.thread_ts) {
        const parent = workspace.findMessage(args.channel, args.thread_ts);
        if (!parent || parent.deleted || parent.ephemeralTo !== null)
          return { ok: false, error: 'thread_not_found' };
      }
      const message = workspace.postMessage(
        args.channel,
        args.text ?? '',
        args.blocks ?? [],
        null,
        args.thread_ts ?? null,
        args.metadata,
      );
      return {
        ok: true,
        channel: message.channel,
        ts: message.ts,
        message: {
          ts: message.ts,
          text: message.text,
          blocks: message.blocks,
          ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
          ...(message.metadata ? { metadata: message.metadata } : {}),
        },
      };
    }
    case 'chat.postEphemeral': {
      const message = workspace.postMessage(
        args.channel,
        args.text ?? '',
        args.blocks ?? [],
        args.user,
        args.thread_ts ?? null,
      );
      return { ok: true, message_ts: message.ts };
    }
    case 'chat.update': {
      const message = workspace.findMessage(args.channel, args.ts);
      // Slack cannot update an ephemeral message through chat.update: only through its response_url.
      if (!message || message.deleted || message.ephemeralTo !== null)
        return { ok: false, error: 'message_not_found' };
      message.text = args.text ?? message.text;
      message.blocks = args.blocks ?? message.blocks;
      if (args.metadata) message.metadata = args.metadata;
      return { ok: true, channel: message.channel, ts: message.ts, text: message.text };
    }
    case 'chat.delete': {
      const message = workspace.findMessage(args.channel, args.ts);
      if (!message || message.ephemeralTo !== null) return { ok: false, error: 'message_not_found' };
      message.deleted = true;
      return { ok: true, channel: message.channel, ts: message.ts };
    }
    case 'chat.getPermalink': {
      const message = workspace.findMessage(args.channel, args.message_ts);
      if (!message || message.deleted || message.ephemeralTo !== null)
        return { ok: false, error: 'message_not_found' };
      const ts = `p${message.ts.replace('.', '')}`;
      const thread = message.threadTs ? `?thread_ts=${message.threadTs}&cid=${message.channel}` : '';
      return {
        ok: true,
        channel: message.channel,
        permalink: `https://tenderbot-fake.slack.com/archives/${message.channel}/${ts}${thread}`,
      };
    }
    case 'views.open':
    case 'views.push': {
      const trigger = workspace.takeTrigger(args.trigger_id);
      if ('error' in trigger) return { ok: false, error: trigger.error };
      // Slack keeps at most three views in a modal's stack.
      if (method === 'views.push' && workspace.openModals(trigger.userId).length >= 3)
        return { ok: false, error: 'push_limit_reached' };
      const id = workspace.newViewId();
      const view = stored(workspace, args.view, id);
      workspace.views.set(id, { id, view, userId: trigger.userId, kind: 'modal' });
      return { ok: true, view };
    }
    case 'views.update': {
      const existing = args.view_id
        ? workspace.views.get(args.view_id)
        : [...workspace.views.values()].find((view) => view.view.external_id === args.external_id);
      if (!existing) return { ok: false, error: 'not_found' };
      // With a hash, an update made from an older copy of the view is refused, as in Slack.
      if (args.hash && args.hash !== existing.view.hash) return { ok: false, error: 'hash_conflict' };
      existing.view = stored(workspace, args.view, existing.id);
      return { ok: true, view: existing.view };
    }
    case 'views.publish': {
      const existing = workspace.homeOf(args.user_id);
      if (existing && args.hash && args.hash !== existing.view.hash)
        return { ok: false, error: 'hash_conflict' };
      const id = existing?.id ?? workspace.newViewId();
      const view = { ...args.view, id, team_id: workspace.teamId, hash: randomBytes(4).toString('hex') };
      workspace.views.set(id, { id, view, userId: args.user_id, kind: 'home' });
      return { ok: true, view };
    }
    default:
      return { ok: false, error: 'unknown_method' };
  }
}

/** Web API arguments: form-encoded with JSON strings for blocks and views, or a JSON body. */
export function parseArgs(raw: string, contentType: string): Record<string, unknown> {
  if (contentType.includes('application/json'))
    return raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
  const args: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(raw)) {
    args[name] = ['blocks', 'view', 'attachments', 'metadata'].includes(name) ? safeJson(value) : value;
  }
  return args;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
