import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { z } from 'zod';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The bot's configuration (CONTRACT.md §8), read once at start. */
/**
 * What an API key is made of: it travels in an HTTP header, so visible ASCII only, no spaces. Any
 * other character (a curly quote a chat client put in, an emoji, a line break) means it was not
 * copied whole; the HTTP client would fail on it before reaching the service.
 */
export const API_KEY_CHARACTERS = /^[\x21-\x7E]+$/;

export const BotConfig = z.object({
  /** One workspace: the bot token of the app installed there. */
  SLACK_BOT_TOKEN: z
    .string()
    .regex(/^xoxb-/, 'must be a bot token starting with xoxb-')
    .optional(),
  /** Many workspaces ("Add to Slack"): the app's client id and secret, and a secret that signs the install's state. */
  SLACK_CLIENT_ID: z
    .string()
    .regex(/^\d+\.\d+$/, 'must be the app’s client id (digits.digits)')
    .optional(),
  SLACK_CLIENT_SECRET: z.string().min(8, 'must be the app’s client secret').optional(),
  SLACK_STATE_SECRET: z
    .string()
    .min(32, 'must be at least 32 random characters (openssl rand -hex 32)')
    .optional(),
  /** Where Slack sends people back after Allow; the app's first redirect URL when not set. */
  SLACK_REDIRECT_URI: z
    .url('must be the address of /slack/oauth_redirect')
    .refine(
      (value) => new URL(value).pathname === '/slack/oauth_redirect',
      'must end in /slack/oauth_redirect, where Tenderbot takes Slack’s answer',
    )
    .optional(),
  SLACK_SIGNING_SECRET: z.string().min(8, 'must be the app’s signing secret').optional(),
  SLACK_APP_TOKEN: z
    .string()
    .regex(/^xapp-/, 'must be an app-level token starting with xapp-')
    .optional(),
  SLACK_API_URL: z.url('must be a URL such as https://slack.com/api/').default('https://slack.com/api/'),
  PROCUREMENT_API_URL: z.url('must be the service’s base URL, such as http://127.0.0.1:4010'),
  PROCUREMENT_API_KEY: z
    .string()
    // A trailing newline or space (a key read from a file) is not part of the key.
    .trim()
    .min(8, 'must be an API key (pis_…)')
    // Sent in an HTTP header: a space, a line break or a curly quote means it was not copied whole.
    .regex(API_KEY_CHARACTERS, 'must be an API key (pis_…): letters, digits and punctuation, no spaces')
    .optional(),
  /**
   * Other service addresses a workspace admin may connect to (comma-separated); anything else but
   * PROCUREMENT_API_URL is refused (it would let the bot be pointed at any server).
   */
  PROCUREMENT_API_URLS_ALLOWED: z.string().optional(),
  DATABASE_URL: z
    .string()
    .regex(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/, 'must be sqlite:PATH or postgres://…')
    .default('sqlite:./data/tenderbot.db'),
  ENCRYPTION_KEY: z
    .string()
    .refine(
      (value) => Buffer.from(value, 'base64').length === 32,
      'must be 32 random bytes in base64 (openssl rand -base64 32)',
    ),
  /** While the stored secrets are re-encrypted with a new ENCRYPTION_KEY: the old one, still read. */
  ENCRYPTION_KEY_PREVIOUS: z
    .string()
    .refine(
      (value) => Buffer.from(value, 'base64').length === 32,
      'must be the previous ENCRYPTION_KEY: 32 random bytes in base64',
    )
    .optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(', ')}`).default('info'),
  PORT: z.coerce
    .number('must be a port number')
    .int('must be a port number')
    .min(0, 'must be a port number')
    .max(65535, 'must be a port number')
    .default(3000),
  /**
   * The address the HTTP receiver listens on: every interface when unset (behind nginx, in a
   * container); the workbench sets 127.0.0.1, so its bot (and /metrics) is not on the network.
   */
  HOST: z.string().trim().min(1, 'must be an address to listen on, e.g. 127.0.0.1').optional(),
  /**
   * Processes beside the receiver that answer slash commands (0: the receiver's own process answers
   * them). With workers, the receiver only checks, stores and acknowledges a command.
   */
  ANSWER_WORKERS: z.coerce
    .number('must be a number of processes, 0 to 16')
    .int('must be a whole number of processes')
    .min(0, 'must be between 0 and 16')
    .max(16, 'must be between 0 and 16')
    .default(0),
  /**
   * How long after a copy died another copy may answer the commands its workers held (a live
   * copy renews its workers' leases every second, however long an answer takes).
   */
  ANSWER_LEASE_SECONDS: z.coerce
    .number('must be a number of seconds, 5 to 600')
    .int('must be a whole number of seconds')
    .min(5, 'must be between 5 and 600 seconds')
    .max(600, 'must be between 5 and 600 seconds')
    .default(60),
  /**
   * Longest new answers wait while the receiver is pressed for CPU by its own busy workers
   * (AnswerWorkers' hold, acknowledgements first); 0 never holds them.
   */
  ANSWER_HOLD_SECONDS: z.coerce
    .number('must be a number of seconds, 0 to 300')
    .int('must be a whole number of seconds')
    .min(0, 'must be between 0 and 300 seconds')
    .max(300, 'must be between 0 and 300 seconds')
    .default(30),
  /**
   * The `copy` label on every series GET /metrics shows: this copy of the app among several (its
   * host name and process id when not set).
   */
  METRICS_COPY: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,64}$/, 'must be 1 to 64 letters, digits, dots, dashes, colons or underscores')
    .optional(),
});
export type BotConfig = z.infer<typeof BotConfig>;

/** The three variables that turn on installing into many workspaces. */
export const OAUTH_VARIABLES = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'] as const;

/** The OAuth settings when the app installs into many workspaces, or null for the one-token mode. */
export function oauthSettings(
  config: BotConfig,
): { clientId: string; clientSecret: string; stateSecret: string; redirectUri: string | null } | null {
  const { SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET } = config;
  if (!SLACK_CLIENT_ID || !SLACK_CLIENT_SECRET || !SLACK_STATE_SECRET) return null;
  return {
    clientId: SLACK_CLIENT_ID,
    clientSecret: SLACK_CLIENT_SECRET,
    stateSecret: SLACK_STATE_SECRET,
    redirectUri: config.SLACK_REDIRECT_URI ?? null,
  };
}

/** A configuration that cannot start the bot: one sentence per missing or malformed variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Tenderbot cannot start:\n${problems.map((problem) => `- ${problem}`).join('\n')}`);
  }
}

/** Parses the environment (and `.env` when present); never echoes a value, only names. */
export function loadBotConfig(env: NodeJS.ProcessEnv = process.env, envFile = '.env'): BotConfig {
  const merged: NodeJS.ProcessEnv = { ...env };
  if (envFile && existsSync(envFile)) {
    // The real environment wins over the file.
    for (const [name, value] of Object.entries(parseEnv(readFileSync(envFile, 'utf8'))))
      merged[name] ??= value;
  }
  const emptyAsMissing = Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== ''));
  const parsed = BotConfig.safeParse(emptyAsMissing);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? 'configuration');
        const missing = emptyAsMissing[name] === undefined && issue.code === 'invalid_type';
        return missing ? `${name} is missing.` : `${name} ${issue.message}.`;
      });
  // Checked beside the schema so that it is reported with every other problem at once.
  if (!emptyAsMissing.SLACK_APP_TOKEN && !emptyAsMissing.SLACK_SIGNING_SECRET) {
    problems.push('SLACK_SIGNING_SECRET is needed in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode).');
  }
  problems.push(...modeProblems(emptyAsMissing));
  problems.push(...answerWorkerProblems(emptyAsMissing));
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  return parsed.data;
}

/** Answer workers take commands from the receiver's database: HTTP mode, a database they can share. */
function answerWorkerProblems(env: NodeJS.ProcessEnv): string[] {
  const workers = Number(env.ANSWER_WORKERS ?? 0);
  if (!Number.isFinite(workers) || workers <= 0) return [];
  const problems: string[] = [];
  if (env.SLACK_APP_TOKEN !== undefined)
    problems.push(
      'ANSWER_WORKERS works with the HTTP receiver only: in Socket Mode commands are answered where they arrive; remove one of the two.',
    );
  if (env.DATABASE_URL === 'sqlite::memory:')
    problems.push(
      'ANSWER_WORKERS needs a database the workers share with the receiver: a sqlite: file or postgres://, not sqlite::memory:.',
    );
  return problems;
}

/**
 * One of the two modes: SLACK_BOT_TOKEN (one workspace) or the three OAuth variables (many
 * workspaces, from HTTP only: Slack sends people back to a web address). A sentence each.
 */
function modeProblems(env: NodeJS.ProcessEnv): string[] {
  const oauthSet = OAUTH_VARIABLES.filter((name) => env[name] !== undefined);
  if (oauthSet.length === 0) {
    return env.SLACK_BOT_TOKEN === undefined
      ? [
          'SLACK_BOT_TOKEN is missing (for one workspace; to install into many, set SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET instead).',
        ]
      : [];
  }
  const problems = OAUTH_VARIABLES.filter((name) => env[name] === undefined).map(
    (name) =>
      `${name} is missing: installing into many workspaces needs SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET.`,
  );
  if (env.SLACK_BOT_TOKEN !== undefined)
    problems.push(
      'SLACK_BOT_TOKEN cannot be used with SLACK_CLIENT_ID: each workspace gets its own token when it installs Tenderbot; remove one of the two.',
    );
  // The install page is public: a default key would be every stranger's who installs (one shared
  // bookmark list, bids and comment identity across unrelated workspaces).
  if (env.PROCUREMENT_API_KEY !== undefined)
    problems.push(
      'PROCUREMENT_API_KEY cannot be used with SLACK_CLIENT_ID: anyone who installs Tenderbot would use that key. Each workspace connects its own with /tender connect; remove PROCUREMENT_API_KEY.',
    );
  if (env.SLACK_APP_TOKEN !== undefined)
    problems.push(
      'SLACK_APP_TOKEN (Socket Mode) cannot be used with SLACK_CLIENT_ID: installing needs the HTTP mode, where Slack sends people back to /slack/oauth_redirect.',
    );
  return problems;
}
