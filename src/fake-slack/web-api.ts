import { functionsMethod, noteRunPost } from './functions.ts';
import { chatMethod } from './web-api-chat.ts';
import { conversationsMethod } from './web-api-conversations.ts';
import type { Args, WebAnswer } from './web-api-types.ts';
import { viewsMethod } from './web-api-views.ts';
import { workObjectsMethod } from './work-objects.ts';
import type { Workspace } from './workspace.ts';

export type { Args, WebAnswer } from './web-api-types.ts';

/**
 * The Web API methods the app calls, answered as Slack does (../shared/SLACK.md), reading and
 * changing the workspace: `chat.*` (web-api-chat.ts), `conversations.*`
 * (web-api-conversations.ts), `views.*` (web-api-views.ts), and the few others here. An unknown
 * method is Slack's `unknown_method`.
 */
export function webApi(workspace: Workspace, method: string, args: Args): WebAnswer {
  const family =
    chatMethod(workspace, method, args) ??
    conversationsMethod(workspace, method, args) ??
    viewsMethod(workspace, method, args) ??
    functionsMethod(workspace, method, args) ??
    workObjectsMethod(workspace, method, args);
  if (family) {
    // The call was recorded (with its token) just before this one answers it: a step's post is noted.
    if (method === 'chat.postMessage') noteRunPost(workspace, workspace.calls.at(-1)?.token, family);
    return family;
  }
  switch (method) {
    case 'auth.test':
      return {
        ok: true,
        url: `https://${workspace.domain}.slack.com/`,
        team: workspace.teamName,
        user: 'tenderbot',
        team_id: workspace.teamId,
        user_id: 'U0BOT',
        bot_id: 'B0BOT',
        ...(workspace.enterprise
          ? { enterprise_id: workspace.enterprise.id, is_enterprise_install: workspace.orgWideInstall }
          : {}),
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
          ...timeZone(user.tz ?? 'Europe/London', workspace.now()),
        },
      };
    }
    case 'team.info':
      return { ok: true, team: { id: workspace.teamId, name: workspace.teamName, domain: workspace.domain } };
    default:
      return { ok: false, error: 'unknown_method' };
  }
}

/** Arguments that travel as JSON strings in a form-encoded call. */
const JSON_ARGUMENTS = new Set(['blocks', 'view', 'attachments', 'metadata', 'unfurls']);

/**
 * A person's time zone as `users.info` gives it: the IANA name, its long name, and its offset
 * from UTC in seconds at `instant` (so British Summer Time is 3600, Greenwich Mean Time 0).
 */
export function timeZone(tz: string, instant: number): { tz: string; tz_label: string; tz_offset: number } {
  const part = (timeZoneName: 'long' | 'longOffset') =>
    new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName })
      .formatToParts(instant)
      .find((candidate) => candidate.type === 'timeZoneName')?.value ?? '';
  const offset = /GMT([+-])(\d{2}):(\d{2})/.exec(part('longOffset'));
  const seconds = offset
    ? (Number(offset[2]) * 3600 + Number(offset[3]) * 60) * (offset[1] === '-' ? -1 : 1)
    : 0;
  return { tz, tz_label: part('long'), tz_offset: seconds };
}

/** Web API arguments: form-encoded with JSON strings for blocks and views, or a JSON body. */
export function parseArgs(raw: string, contentType: string): Record<string, unknown> {
  if (contentType.includes('application/json')) {
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    // A JSON body may still carry blocks or metadata as a JSON string; Slack reads both.
    for (const name of JSON_ARGUMENTS)
      if (typeof body[name] === 'string') body[name] = safeJson(body[name] as string);
    return body;
  }
  const args: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(raw)) {
    args[name] = JSON_ARGUMENTS.has(name) ? safeJson(value) : value;
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
