import { existsSync, readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import {
  type AppAnswer,
  BOT_USER_ID,
  type ExtraRoute,
  type FakeMessage,
  type FakeSlack,
  SLACKBOT_USER_ID,
} from '../fake-slack/fake-slack.ts';
import { typedText } from '../fake-slack/links.ts';
import { cutText } from '../shared/cut-text.ts';
import { BUILT_IN_COMMANDS, runBuiltInCommand } from './built-in-commands.ts';
import { addWorkflowRoutes } from './workflow-routes.ts';
import { inviteOnceInstalled } from './workspaces.ts';

const PUBLIC_DIR = join(import.meta.dirname, 'public');
const MANIFEST = join(import.meta.dirname, '../../manifest.yml');

/** A shortcut as the manifest declares it: in the ⚡ menu (global) or a message's "…" menu. */
export interface Shortcut {
  name: string;
  type: 'global' | 'message';
  callback_id: string;
}

/** Until the manifest declares its shortcuts, the two Tenderbot's reach feature answers. */
const DEFAULT_SHORTCUTS: Shortcut[] = [
  { name: 'Search tenders', type: 'global', callback_id: 'reach/search_tenders' },
  { name: 'Comment on a tender', type: 'message', callback_id: 'reach/comment_on_message' },
];

/** Tenderbot's own command, when a manifest names none. */
const DEFAULT_COMMANDS = ['/tender'];

/**
 * What Slack takes from the app's manifest: its slash commands, shortcuts and unfurl domains, so
 * the workbench offers what a workspace with the app installed would.
 */
export function manifestFeatures(path = MANIFEST): {
  commands: string[];
  shortcuts: Shortcut[];
  unfurlDomains: string[];
} {
  const features = existsSync(path)
    ? ((parse(readFileSync(path, 'utf8')) as { features?: Record<string, unknown> } | null)?.features ?? {})
    : {};
  const shortcuts = Array.isArray(features.shortcuts) ? (features.shortcuts as Shortcut[]) : [];
  const domains = Array.isArray(features.unfurl_domains) ? (features.unfurl_domains as string[]) : [];
  const commands = Array.isArray(features.slash_commands)
    ? (features.slash_commands as { command?: unknown }[])
        .map((entry) => (typeof entry.command === 'string' ? entry.command.toLowerCase() : ''))
        .filter((command) => command.startsWith('/'))
    : [];
  return {
    commands: commands.length > 0 ? commands : DEFAULT_COMMANDS,
    shortcuts: shortcuts.length > 0 ? shortcuts : DEFAULT_SHORTCUTS,
    unfurlDomains: domains,
  };
}

/**
 * What Slack does with a line typed as a slash command: the name of a command an app registered
 * is matched whatever its letter case (Slack's command names are lower case; a phone's capital
 * `/Tender` reaches the app as `/tender`), and any other name is refused by Slack itself, which
 * never sends it to an app.
 */
export function slashCommandOf(
  typed: string,
  registered: readonly string[],
): { command: string; text: string } | { unknown: string } {
  const match = /^(\S+)\s*([\s\S]*)$/.exec(typed.trim());
  const name = match?.[1] ?? typed.trim();
  const text = match?.[2] ?? '';
  const command = name.toLowerCase();
  return registered.includes(command) ? { command, text } : { unknown: name };
}

/** What the workbench says to a command of an app not installed in the workspace yet. */
function notInstalledSentence(command: string): string {
  return `\`${command}\` is Tenderbot’s command, and Tenderbot is not installed in this workspace yet. *Add Tenderbot to this workspace*, on the left, installs it.`;
}

/** Slackbot's answer to a command no app in the workspace has (Slack's own words, in short). */
export function unknownCommandSentence(typed: string): string {
  // The person's own characters, shown and never read as mrkdwn (`/<!channel>` notifies nobody).
  const name = cutText(typed, 81, '…')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/`/g, "'");
  return (
    `\`${name}\` is not a valid command. In Slack, all messages that start with the “/” character ` +
    'are interpreted as commands. If you are trying to send a message that starts with a “/” ' +
    'character, try adding a space before it.'
  );
}
const STATIC_FILES: Record<string, { file: string; contentType: string }> = {
  '/': { file: 'index.html', contentType: 'text/html; charset=utf-8' },
  '/workbench.js': { file: 'workbench.js', contentType: 'text/javascript; charset=utf-8' },
  '/block-kit.js': { file: 'block-kit.js', contentType: 'text/javascript; charset=utf-8' },
  '/message-parts.js': { file: 'message-parts.js', contentType: 'text/javascript; charset=utf-8' },
  '/frame.css': { file: 'frame.css', contentType: 'text/css; charset=utf-8' },
  '/workbench.css': { file: 'workbench.css', contentType: 'text/css; charset=utf-8' },
};

/**
 * The workbench's page and its small JSON API, served by the fake Slack itself: the page reads
 * the workspace as one person sees it and acts as that person (types commands, clicks, submits).
 */
export function addWorkbenchRoutes(
  fakeSlack: FakeSlack,
  options: { host?: string; postsPerSecondPerChannel?: number; manifestPath?: string } = {},
): void {
  const features = manifestFeatures(options.manifestPath);
  for (const workspace of fakeSlack.workspaces) {
    // The page is Slack as a person meets it: real time, and Slack's limit of about one post a
    // second per channel (a test that builds its own FakeSlack may have set another).
    workspace.postsPerSecondPerChannel ??= options.postsPerSecondPerChannel ?? 1;
    if (workspace.unfurlDomains.length === 0) workspace.unfurlDomains = features.unfurlDomains;
  }
  const allowedHosts = new Set(['127.0.0.1', 'localhost', '[::1]', options.host ?? '127.0.0.1']);
  const files = new Map(
    Object.entries(STATIC_FILES).map(([path, { file, contentType }]) => [
      path,
      { body: readFileSync(join(PUBLIC_DIR, file), 'utf8'), contentType },
    ]),
  );
  const welcomeAfterInstall = inviteOnceInstalled();
  const json = (status: number, body: unknown) => ({
    status,
    contentType: 'application/json; charset=utf-8',
    body: JSON.stringify(body),
  });

  const route: ExtraRoute = async ({ method, path, query, headers, body }) => {
    const file = method === 'GET' ? files.get(path) : undefined;
    if (file) return { status: 200, contentType: file.contentType, body: file.body };
    if (path === '/favicon.ico') return { status: 204, contentType: 'image/x-icon', body: '' };
    if (method === 'GET' && path === '/app_redirect') return appRedirectPage(fakeSlack, query.get('team'));
    if (!path.startsWith('/workbench/')) return null;
    const refusal = refusalOfForeignRequest(method, headers, allowedHosts);
    if (refusal) return json(refusal.status, { error: refusal.reason });
    const input = method === 'POST' ? parseBody(body) : {};
    if (input === null) return json(400, { error: 'the body must be a JSON object' });
    // The page shows one workspace of the fake Slack at a time (`team`; the first when not said).
    const teamId = (method === 'GET' ? query.get('team') : input.team) || fakeSlack.teamId;
    const named = fakeSlack.workspaces.find((workspace) => workspace.teamId === teamId);
    // A page opened on an address of a workspace no longer here (a bookmark from another start)
    // is shown the first workspace (the state says which); it never acts in an unknown one.
    const slack = named ?? (path === '/workbench/state' ? fakeSlack.workspaces[0] : undefined);
    if (!slack) return json(400, { error: 'unknown workspace' });
    // The workspace the person is in, as a browser stays signed in to it: Slack's install page
    // offers it first.
    slack.workspaceState.lastVisitedAt = Date.now();
    if (fakeSlack.oauthApp) welcomeAfterInstall(slack);
    const asked = (method === 'GET' ? query.get('user') : input.user) ?? '';
    const known = slack.users.some((user) => user.id === asked);
    // The page's first look at a workspace may name a person of another one: it is shown as this
    // workspace's first person (the state says who), and acts only as someone of this workspace.
    const userId = !known && path === '/workbench/state' ? (slack.users[0]?.id ?? '') : asked;
    if (!slack.users.some((user) => user.id === userId)) return json(400, { error: 'unknown user' });
    const messageOf = (channel: string | undefined, ts: string | undefined) =>
      slack.messages.find((candidate) => candidate.ts === ts && candidate.channel === channel);
    try {
      switch (`${method} ${path}`) {
        case 'GET /workbench/state':
          return json(
            200,
            stateFor(slack, fakeSlack, userId, knownChannel(slack, userId, query.get('channel')), features),
          );
        case 'POST /workbench/command': {
          const channel = input.channel ?? '';
          if (!canSee(slack, userId, channel)) return json(400, { error: 'unknown channel' });
          // As in Slack, only a line that starts with "/" is a command: " /tendr" is a message.
          const typedLine = (input.text ?? '').trimEnd();
          const text = typedLine.trim();
          if (typedLine.startsWith('/')) {
            const appInstalled = !fakeSlack.oauthApp || slack.botTokens.length > 0;
            const builtIn = slashCommandOf(text, BUILT_IN_COMMANDS);
            if ('command' in builtIn) {
              await runBuiltInCommand(slack, userId, channel, builtIn.command, builtIn.text, appInstalled);
              return json(200, { status: 200 });
            }
            const typed = slashCommandOf(text, features.commands);
            if ('command' in typed && !appInstalled) {
              // Slack knows an app's commands only where the app is installed: guidance, not a failure.
              slack.postAsSlackbot(userId, channel, notInstalledSentence(typed.command));
              return json(200, { status: 200, refused: true });
            }
            if ('unknown' in typed) {
              // Slack answers this itself, to the person alone; the app never hears of it.
              slack.postAsSlackbot(userId, channel, unknownCommandSentence(typed.unknown));
              return json(200, { status: 200, refused: true });
            }
            // An app that cannot be reached is Slack's "dispatch_failed", said to the person.
            const answer = await slack
              .slashCommand(userId, channel, typed.command, typed.text)
              .catch((): AppAnswer => ({ status: 0, text: '', json: null }));
            showCommandAnswer(slack, userId, channel, typed.command, answer);
            return json(200, { status: answer.status });
          }
          if (slack.isArchived(channel)) return json(409, { error: 'This channel is archived.' });
          // The events it causes (a DM, a link) reach the app in the background, as in Slack.
          slack.postAsUser(userId, channel, typedText(text));
          return json(200, { status: 200 });
        }
        case 'POST /workbench/click': {
          if (input.viewId)
            return json(
              200,
              await slack.clickInView(userId, input.viewId, input.actionId ?? '', {
                value: input.value,
                selectedOption: input.selectedOption,
              }),
            );
          const message = messageOf(input.channel, input.ts);
          if (!message) return json(404, { error: 'no such message' });
          const answer = await slack.clickInMessage(userId, message, input.actionId ?? '', {
            value: input.value,
            selectedOption: input.selectedOption,
          });
          return json(200, { status: answer.status });
        }
        case 'POST /workbench/submit': {
          const answer = await slack.submitView(userId, input.viewId ?? '', input.values ?? {});
          return json(200, {
            status: answer.status,
            errors: answer.json?.response_action === 'errors' ? answer.json.errors : null,
          });
        }
        case 'POST /workbench/close':
          await slack.closeView(userId, input.viewId ?? '');
          return json(200, { ok: true });
        case 'POST /workbench/home': {
          const answer = await slack.openHome(userId);
          return json(200, { status: answer.status });
        }
        case 'POST /workbench/messages-tab': {
          const answer = await slack.openMessagesTab(userId);
          return json(200, { status: answer.status });
        }
        case 'POST /workbench/shortcut': {
          const shortcut = features.shortcuts.find(
            (item) => item.type === 'global' && item.callback_id === input.callbackId,
          );
          if (!shortcut) return json(400, { error: 'unknown shortcut' });
          const answer = await slack.globalShortcut(userId, shortcut.callback_id);
          return json(200, { status: answer.status });
        }
        case 'POST /workbench/message-shortcut': {
          const shortcut = features.shortcuts.find(
            (item) => item.type === 'message' && item.callback_id === input.callbackId,
          );
          if (!shortcut) return json(400, { error: 'unknown shortcut' });
          const message = messageOf(input.channel, input.ts);
          if (!message || !canSee(slack, userId, message.channel))
            return json(404, { error: 'no such message' });
          const answer = await slack.messageShortcut(userId, message, shortcut.callback_id);
          return json(200, { status: answer.status });
        }
        case 'POST /workbench/suggest': {
          const answer = await slack.suggestOptions(
            userId,
            input.viewId ?? '',
            input.actionId ?? '',
            input.value ?? '',
          );
          return json(200, {
            status: answer.status,
            options: answer.json?.options ?? null,
            option_groups: answer.json?.option_groups ?? null,
          });
        }
        case 'POST /workbench/channel': {
          const channel = input.channel ?? '';
          if (!slack.channels.some((item) => item.id === channel))
            return json(400, { error: 'unknown channel' });
          const answer =
            input.action === 'add-app'
              ? await slack.addApp(channel, userId)
              : input.action === 'remove-app'
                ? await slack.removeApp(channel, userId)
                : input.action === 'archive'
                  ? slack.archiveChannel(channel)
                  : input.action === 'unarchive'
                    ? slack.unarchiveChannel(channel)
                    : 'unknown';
          if (answer === 'unknown') return json(400, { error: 'unknown channel action' });
          return json(200, { status: answer?.status ?? 200 });
        }
        default:
          return json(404, { error: 'unknown workbench route' });
      }
    } catch (error) {
      return json(500, { error: error instanceof Error ? error.message : String(error) });
    }
  };
  fakeSlack.addRoute(route);
  addWorkflowRoutes(
    fakeSlack,
    (method, headers) => refusalOfForeignRequest(method, headers, allowedHosts),
    options.manifestPath,
  );
}

/**
 * What Slack shows for the app's answer to a command itself (the HTTP response, not the
 * response_url): a body with text or blocks becomes a message (ephemeral unless `in_channel`),
 * an empty one nothing, and a failure Slackbot's "failed with the error" line to the person.
 */
function showCommandAnswer(
  slack: FakeSlack,
  userId: string,
  channel: string,
  command: string,
  answer: AppAnswer,
): void {
  if (answer.status !== 200) {
    const error = answer.status === 404 ? 'operation_timeout' : 'dispatch_failed';
    slack.postAsSlackbot(userId, channel, `\`${command}\` failed with the error "${error}"`);
    return;
  }
  const body = answer.json;
  if (body && typeof body === 'object' && (body.text || body.blocks)) {
    const inChannel = body.response_type === 'in_channel';
    slack.postAsApp(
      channel,
      String(body.text ?? ''),
      Array.isArray(body.blocks) ? body.blocks : [],
      inChannel ? null : userId,
    );
  } else if (!body && answer.text.trim()) {
    slack.postAsApp(channel, answer.text, [], userId);
  }
}

/**
 * Slack's link into a workspace (`slack.com/app_redirect?app=…&team=…`), which the app's "installed"
 * page offers: here it leads back to the workbench, on that workspace (the first when unknown).
 */
function appRedirectPage(fakeSlack: FakeSlack, teamId: string | null) {
  const workspace =
    fakeSlack.workspaces.find((candidate) => candidate.teamId === teamId) ?? fakeSlack.workspaces[0];
  const target = `/?team=${encodeURIComponent(workspace?.teamId ?? '')}`;
  const name = (workspace?.teamName ?? 'the workbench').replace(
    /[&<>"']/g,
    (character) => `&#${character.charCodeAt(0)};`,
  );
  return {
    status: 200,
    contentType: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=${target}"><title>Opening ${name}</title></head><body><p><a href="${target}">Open ${name} in the workbench</a></p></body></html>`,
  };
}

/** Channels a person can open: the workspace's, and their own direct messages with the app. */
function canSee(slack: FakeSlack, userId: string, channel: string): boolean {
  return slack.channels.some((item) => item.id === channel) || channel === slack.dmOf(userId);
}

/**
 * The channel asked for; when none (or an unknown one) is asked for, #general, where Tenderbot
 * says hello at start, as Slack opens a new workspace on #general; else the first channel.
 */
function knownChannel(slack: FakeSlack, userId: string, asked: string | null): string {
  if (asked && canSee(slack, userId, asked)) return asked;
  return (slack.channels.find((item) => item.name === 'general') ?? slack.channels[0])?.id ?? '';
}

/** A message as the page draws it: no metadata (Slack never shows it), its unfurls and its time. */
function pageMessage(message: FakeMessage, names: Map<string, string>) {
  return {
    ts: message.ts,
    authorId: message.authorId,
    authorName: names.get(message.authorId) ?? message.authorId,
    text: message.text,
    blocks: message.blocks,
    ephemeral: message.ephemeralTo !== null,
    threadTs: message.threadTs,
    unfurls: Object.entries(message.unfurls ?? {}).map(([url, attachment]) => ({
      url,
      blocks: attachment.blocks ?? [],
      text: attachment.text ?? null,
      title: attachment.title ?? null,
    })),
  };
}

/** The workspace as one person sees it: channels, the messages they may see, their open modal and Home tab. */
function stateFor(
  slack: FakeSlack,
  fakeSlack: FakeSlack,
  userId: string,
  channel: string,
  features: { shortcuts: Shortcut[] },
) {
  const names = new Map(slack.users.map((user) => [user.id, user.realName]));
  names.set(BOT_USER_ID, 'Tenderbot');
  names.set(SLACKBOT_USER_ID, 'Slackbot');
  const dm = slack.dmOf(userId);
  return {
    team: { id: slack.teamId, name: slack.teamName },
    workspaces: fakeSlack.workspaces.map((workspace) => ({ id: workspace.teamId, name: workspace.teamName })),
    // With an app that installs through "Add to Slack": where to start, and whether it is here yet.
    installUrl:
      fakeSlack.oauthApp && fakeSlack.appUrl ? new URL('/slack/install', fakeSlack.appUrl).toString() : null,
    installed: slack.botTokens.length > 0,
    me: slack.user(userId),
    users: slack.users,
    channels: slack.channels.map((item) => ({
      ...item,
      archived: slack.isArchived(item.id),
      appIn: slack.isAppIn(item.id),
    })),
    channel,
    dm,
    messages: slack.messagesIn(channel, userId).map((message) => pageMessage(message, names)),
    modal: slack.openModals(userId).at(-1) ?? null,
    home: slack.homeOf(userId) ?? null,
    shortcuts: features.shortcuts,
    names: Object.fromEntries(names),
    channelNames: {
      ...Object.fromEntries(slack.channels.map((item) => [item.id, item.name])),
      [dm]: 'Tenderbot',
    },
  };
}

/** What the page sends: every field a string, but a submitted modal's values. */
const WorkbenchBody = z
  .object({
    team: z.string(),
    user: z.string(),
    channel: z.string(),
    text: z.string(),
    viewId: z.string(),
    ts: z.string(),
    actionId: z.string(),
    value: z.string(),
    selectedOption: z.string(),
    callbackId: z.string(),
    action: z.string(),
    values: z.record(z.string(), z.string()),
  })
  .partial();
type WorkbenchBody = z.infer<typeof WorkbenchBody>;

function parseBody(body: string): WorkbenchBody | null {
  try {
    const parsed = WorkbenchBody.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The workbench acts as whoever the page says, so it must answer its own page only: a request
 * for another host name (DNS rebinding) or from another site (a cross-site form or fetch) could
 * otherwise type commands, click and submit modals, such as connecting a key as the admin.
 * Browsers always send Origin on a POST and Sec-Fetch-Site on every request; a form can send
 * neither JSON nor a custom header, so requiring JSON from the same origin is enough.
 */
export function refusalOfForeignRequest(
  method: string,
  headers: IncomingHttpHeaders,
  allowedHosts: ReadonlySet<string>,
): { status: number; reason: string } | null {
  const host = headers.host ?? '';
  const hostName = host.replace(/:\d+$/, '');
  if (!allowedHosts.has(hostName))
    return { status: 403, reason: 'the workbench answers requests to its own address only' };
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && !(method === 'GET' && site === 'none'))
    return { status: 403, reason: 'the workbench answers its own page only' };
  if (method === 'GET') return null;
  if (method !== 'POST') return { status: 405, reason: 'the workbench takes GET and POST only' };
  if (headers.origin !== `http://${host}`)
    return { status: 403, reason: 'the workbench answers its own page only' };
  const contentType = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (contentType !== 'application/json')
    return { status: 415, reason: 'the workbench takes JSON (application/json) only' };
  return null;
}
