import type { FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import { startTenderbot } from './process.ts';

export interface WorkbenchProcess {
  url: string;
  /** The service's base URL, without `/v1`. */
  serviceUrl: string;
  keyToConnect: string;
  output(): string;
  stop(): Promise<number | null>;
}

/**
 * Runs `tenderbot start` (what `npm start` runs) with no Slack credentials, on free ports and the
 * given data folder, and resolves once it prints the page's address. Demo data (700 tenders)
 * unless `args` says otherwise (`--real-data`, say).
 */
export async function startWorkbenchProcess(
  dataDir: string,
  args: string[] = ['--demo', '700'],
): Promise<WorkbenchProcess> {
  const env = { ...process.env };
  delete env.SLACK_BOT_TOKEN;
  const started = await startTenderbot(
    ['start', '--data', dataDir, '--port', '0', '--service-port', '0', '--bot-port', '0', ...args],
    (output) => {
      const url = /Open (http:\/\/\S+\/)/.exec(output)?.[1];
      const serviceUrl = /service: +(http:\/\/\S+)\/v1/.exec(output)?.[1];
      const key = /paste into \/tender connect: (pis_\S+)/.exec(output)?.[1];
      return url && serviceUrl && key ? { url, serviceUrl, key } : null;
    },
    env,
  );
  return {
    url: started.found.url,
    serviceUrl: started.found.serviceUrl,
    keyToConnect: started.found.key,
    output: started.output,
    stop: () => started.stop(),
  };
}

// What people read: every message, window and Home tab the app sent to a fake Slack.

const HIDDEN_KEYS = new Set([
  'action_id',
  'block_id',
  'callback_id',
  'value',
  'private_metadata',
  'metadata',
  'url',
  'image_url',
  'external_id',
  'hash',
  'id',
]);

/** The words of Block Kit JSON a person sees: every plain_text and mrkdwn text in it. */
function visibleTexts(node: unknown, into: string[]): void {
  if (Array.isArray(node)) {
    for (const item of node) visibleTexts(item, into);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  if ((record.type === 'plain_text' || record.type === 'mrkdwn') && typeof record.text === 'string') {
    into.push(record.text);
    return;
  }
  for (const [key, value] of Object.entries(record)) {
    if (!HIDDEN_KEYS.has(key)) visibleTexts(value, into);
  }
}

function parsed(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
}

/**
 * Every text the app showed people through this fake Slack: messages (their fallback text too,
 * which notifications show) and link previews, whatever a response_url was given (even an answer
 * replaced since), and every modal and Home tab it opened, updated or published. People's own
 * messages are theirs, not the app's, and are left out.
 */
export function textsPeopleRead(slack: FakeSlack): string[] {
  const texts: string[] = [];
  for (const message of slack.messages) {
    if (slack.users.some((user) => user.id === message.authorId)) continue;
    if (message.text) texts.push(message.text);
    visibleTexts(message.blocks, texts);
    visibleTexts(Object.values(message.unfurls ?? {}), texts);
  }
  for (const call of slack.calls) {
    const { method, args } = call;
    if (['views.open', 'views.update', 'views.push', 'views.publish'].includes(method))
      visibleTexts(parsed(args.view), texts);
    else if (['response_url', 'chat.postMessage', 'chat.update', 'chat.postEphemeral'].includes(method)) {
      if (typeof args.text === 'string' && args.text) texts.push(args.text);
      visibleTexts(parsed(args.blocks), texts);
    } else if (method === 'chat.unfurl') visibleTexts(parsed(args.unfurls), texts);
  }
  return [...new Set(texts)];
}

/**
 * Words of the program's inside that a bid lead must never read, each with why. Links' targets,
 * emoji shortcodes and code spans of the commands people type are taken out first: they are
 * addresses and syntax, not sentences.
 */
const JARGON: { pattern: RegExp; what: string }[] = [
  { pattern: /\b[a-z_]+:(?:read|write)\b/, what: 'a scope name' },
  { pattern: /\b[A-Z][A-Za-z]*(?:Error|Exception)\b/, what: 'an error class' },
  {
    pattern: /\bE(?:CONNREFUSED|CONNRESET|TIMEDOUT|NOTFOUND|AI_AGAIN|PIPE|ADDRINUSE)\b/,
    what: 'a system error code',
  },
  { pattern: /\bUND_ERR_\w+/, what: 'an HTTP client error code' },
  { pattern: /\bundefined\b|\[object Object\]|\bNaN\b/, what: 'a value the program failed to fill' },
  // Two lower-case letters first: names such as iPhone or eBay are words, valueMin is not.
  { pattern: /\b[a-z]{2,}[A-Z][a-z]+[A-Za-z]*\b/, what: 'a field name (camelCase)' },
  { pattern: /(?<![:/\w])[a-z]+_[a-z_]+\b(?!:)/, what: 'a field or code name (snake_case)' },
  { pattern: /(?:^|[\s(`'"])q:/, what: 'the search field name q:' },
];

/** What a sentence reads as once links and emoji are what people see of them. */
function asRead(text: string): string {
  return text
    .replace(/<([^<>|]+)\|([^<>]+)>/g, '$2') // <https://…|label> → label
    .replace(/<(?:https?:|mailto:)[^<>]+>/g, 'a link')
    .replace(/https?:\/\/\S+/g, 'a link')
    .replace(/:[a-z0-9_+-]+:/g, '');
}

/** Each text that holds jargon, with what was found in it. Empty when every sentence is plain. */
export function jargonIn(texts: readonly string[]): { text: string; found: string; what: string }[] {
  const found: { text: string; found: string; what: string }[] = [];
  for (const text of texts) {
    const read = asRead(text);
    for (const { pattern, what } of JARGON) {
      const match = pattern.exec(read);
      if (match) found.push({ text: text.slice(0, 300), found: match[0].trim(), what });
    }
  }
  return found;
}
