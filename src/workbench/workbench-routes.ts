import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { z } from 'zod';
import type { ExtraRoute, FakeSlack } from '../fake-slack/fake-slack.ts';

const PUBLIC_DIR = join(import.meta.dirname, 'public');
const STATIC_FILES: Record<string, { file: string; contentType: string }> = {
  '/': { file: 'index.html', contentType: 'text/html; charset=utf-8' },
  '/workbench.js': { file: 'workbench.js', contentType: 'text/javascript; charset=utf-8' },
  '/block-kit.js': { file: 'block-kit.js', contentType: 'text/javascript; charset=utf-8' },
  '/workbench.css': { file: 'workbench.css', contentType: 'text/css; charset=utf-8' },
};

/**
 * The workbench's page and its small JSON API, served by the fake Slack itself: the page reads
 * the workspace as one person sees it and acts as that person (types commands, clicks, submits).
 */
export function addWorkbenchRoutes(slack: FakeSlack, options: { host?: string } = {}): void {
  const allowedHosts = new Set(['127.0.0.1', 'localhost', '[::1]', options.host ?? '127.0.0.1']);
  const files = new Map(
    Object.entries(STATIC_FILES).map(([path, { file, contentType }]) => [
      path,
      { body: readFileSync(join(PUBLIC_DIR, file), 'utf8'), contentType },
    ]),
  );
  const json = (status: number, body: unknown) => ({
    status,
    contentType: 'application/json; charset=utf-8',
    body: JSON.stringify(body),
  });

  const route: ExtraRoute = async ({ method, path, query, headers, body }) => {
    const file = method === 'GET' ? files.get(path) : undefined;
    if (file) return { status: 200, contentType: file.contentType, body: file.body };
    if (path === '/favicon.ico') return { status: 204, contentType: 'image/x-icon', body: '' };
    if (!path.startsWith('/workbench/')) return null;
    const refusal = refusalOfForeignRequest(method, headers, allowedHosts);
    if (refusal) return json(refusal.status, { error: refusal.reason });
    const input = method === 'POST' ? parseBody(body) : {};
    if (input === null) return json(400, { error: 'the body must be a JSON object' });
    const userId = (method === 'GET' ? query.get('user') : input.user) ?? '';
    if (!slack.users.some((user) => user.id === userId)) return json(400, { error: 'unknown user' });
    try {
      switch (`${method} ${path}`) {
        case 'GET /workbench/state':
          return json(200, stateFor(slack, userId, knownChannel(slack, query.get('channel'))));
        case 'POST /workbench/command': {
          if (!slack.channels.some((channel) => channel.id === input.channel))
            return json(400, { error: 'unknown channel' });
          const text = (input.text ?? '').trim();
          if (text.startsWith('/')) {
            const [command = '', ...rest] = text.split(' ');
            const answer = await slack.slashCommand(userId, input.channel ?? '', command, rest.join(' '));
            return json(200, { status: answer.status, text: answer.json?.text ?? null });
          }
          slack.postAsUser(userId, input.channel ?? '', text);
          return json(200, { status: 200 });
        }
        case 'POST /workbench/click': {
          if (input.viewId)
            return json(
              200,
              await slack.clickInView(userId, input.viewId, input.actionId ?? '', input.value),
            );
          const message = slack.messages.find(
            (candidate) => candidate.ts === input.ts && candidate.channel === input.channel,
          );
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
        default:
          return json(404, { error: 'unknown workbench route' });
      }
    } catch (error) {
      return json(500, { error: error instanceof Error ? error.message : String(error) });
    }
  };
  slack.addRoute(route);
}

/** The channel asked for, or the first one when none (or an unknown one) is asked for. */
function knownChannel(slack: FakeSlack, asked: string | null): string {
  return slack.channels.find((channel) => channel.id === asked)?.id ?? slack.channels[0]?.id ?? '';
}

/** The workspace as one person sees it: channels, the messages they may see, their open modal and Home tab. */
function stateFor(slack: FakeSlack, userId: string, channel: string) {
  const names = new Map(slack.users.map((user) => [user.id, user.realName]));
  names.set('U0BOT', 'Tenderbot');
  const visible = slack.messagesIn(channel, userId);
  return {
    me: slack.user(userId),
    users: slack.users,
    channels: slack.channels,
    channel,
    messages: visible.map((message) => ({
      ts: message.ts,
      authorId: message.authorId,
      authorName: names.get(message.authorId) ?? message.authorId,
      text: message.text,
      blocks: message.blocks,
      ephemeral: message.ephemeralTo !== null,
      threadTs: message.threadTs,
    })),
    modal: slack.openModals(userId).at(-1) ?? null,
    home: slack.homeOf(userId) ?? null,
    names: Object.fromEntries(names),
    channelNames: Object.fromEntries(slack.channels.map((item) => [item.id, item.name])),
  };
}

/** What the page sends: every field a string, but a submitted modal's values. */
const WorkbenchBody = z
  .object({
    user: z.string(),
    channel: z.string(),
    text: z.string(),
    viewId: z.string(),
    ts: z.string(),
    actionId: z.string(),
    value: z.string(),
    selectedOption: z.string(),
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
