import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { BotConfig } from '../../src/app/config.ts';
import { KeyCipher } from '../../src/app/security/key-cipher.ts';
import type { BotStore } from '../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../src/app/storage/open-bot-store.ts';
import { type FakeMessage, FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import { KEYS } from './fixture.ts';
import { startTenderbot } from './process.ts';
import type { TestSandbox } from './sandbox.ts';

export const BOT_TOKEN = `xoxb-test-${randomBytes(12).toString('hex')}`;
export const SIGNING_SECRET = `signing-${randomBytes(12).toString('hex')}`;

export interface RunningBot {
  slack: FakeSlack;
  port: number;
  /** Where the app receives Slack's requests. */
  url: string;
  /** Everything the bot process wrote, for the log checks. */
  logs(): string;
  stop(): Promise<void>;
}

/**
 * Starts a fake Slack and the real bot, as its own process through `tenderbot bot`, in HTTP mode.
 * `slack` shares a fake Slack already started (several copies of the app in one workspace; it is
 * then not stopped with this bot); `encryptionKey` fixes ENCRYPTION_KEY (random otherwise).
 */
export async function startBot(env: {
  serviceUrl: string;
  defaultKey?: string;
  databasePath: string;
  encryptionKey?: string;
  slack?: FakeSlack;
  /** More of the bot's environment (PROCUREMENT_API_URLS_ALLOWED, say). */
  more?: Record<string, string>;
}): Promise<RunningBot> {
  const slack =
    env.slack ?? (await new FakeSlack({ signingSecret: SIGNING_SECRET, botToken: BOT_TOKEN }).start());
  const bot = await startTenderbot(
    ['bot'],
    (output) => {
      const line = output.split('\n').find((candidate) => candidate.includes('tenderbot is running'));
      return line ? (JSON.parse(line).port as number) : null;
    },
    {
      PATH: process.env.PATH,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      PROCUREMENT_API_URL: env.serviceUrl,
      ...(env.defaultKey ? { PROCUREMENT_API_KEY: env.defaultKey } : {}),
      DATABASE_URL: `sqlite:${env.databasePath}`,
      ENCRYPTION_KEY: env.encryptionKey ?? randomBytes(32).toString('base64'),
      LOG_LEVEL: 'debug',
      PORT: '0',
      ...env.more,
    },
  );
  const port = bot.found;
  const url = `http://127.0.0.1:${port}/slack/events`;
  if (!env.slack) slack.appUrl = url;
  const health = await request(`http://127.0.0.1:${port}/healthz`);
  if (health.statusCode !== 200) throw new Error(`healthz answered ${health.statusCode}`);
  await health.body.text();
  return {
    slack,
    port,
    url,
    logs: bot.output,
    stop: async () => {
      await bot.stop();
      if (!env.slack) await slack.stop();
    },
  };
}

/**
 * Starts the bot on a test sandbox as Carol (a member of Acme, with edit access to pl-bob), with a
 * database of its own in a new folder under the sandbox's. `serviceUrl` is the sandbox's unless a
 * proxy stands in front of it.
 */
export function startBotAsCarol(sandbox: TestSandbox, serviceUrl = sandbox.baseUrl): Promise<RunningBot> {
  return startBot({
    serviceUrl,
    defaultKey: KEYS.carolMemberAcme,
    databasePath: join(mkdtempSync(join(sandbox.dir, 'bot-')), 'bot.db'),
  });
}

/**
 * Carol's bot with its store open beside it (SQLite), and a way to link a person's own key as
 * `/tender connect` would (sealed with the bot's ENCRYPTION_KEY). Close `store` before the bot.
 */
export async function startBotWithStore(sandbox: TestSandbox): Promise<{
  bot: RunningBot;
  store: BotStore;
  linkPersonalKey: (userId: string, apiKey: string) => Promise<void>;
}> {
  const encryptionKey = randomBytes(32).toString('base64');
  const databasePath = join(mkdtempSync(join(sandbox.dir, 'bot-')), 'bot.db');
  const bot = await startBot({
    serviceUrl: sandbox.baseUrl,
    defaultKey: KEYS.carolMemberAcme,
    databasePath,
    encryptionKey,
  });
  const store = openBotStore(`sqlite:${databasePath}`);
  const linkPersonalKey = (userId: string, apiKey: string) =>
    store.savePersonalKey({
      teamId: bot.slack.teamId,
      userId,
      encryptedApiKey: new KeyCipher(encryptionKey).encrypt(apiKey),
      serviceUrl: null,
      connectedAt: new Date(),
    });
  return { bot, store, linkPersonalKey };
}

/** Waits until `check` returns something (the app answers through response_url after its ack). */
export async function eventually<T>(
  check: () => T | undefined | null | false,
  what: string,
  timeoutMs = 8000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Types `/tender TEXT` as `userId` in `channel` and resolves with the next message that person sees there. */
export async function tenderCommand(
  bot: RunningBot,
  userId: string,
  channel: string,
  text: string,
  timeoutMs?: number,
): Promise<FakeMessage> {
  const before = bot.slack.messagesIn(channel, userId).length;
  const answer = await bot.slack.slashCommand(userId, channel, '/tender', text);
  if (answer.status !== 200) throw new Error(`the app answered /tender ${text} with ${answer.status}`);
  return eventually(
    () => bot.slack.answerTo(answer, channel, userId, before),
    `an answer to /tender ${text}`,
    timeoutMs,
  );
}

/**
 * The configuration of an app started in the test's own process (composeBot) against `slack`,
 * one workspace, a SQLite file at `databasePath`; nothing it does reaches the service.
 */
export function inProcessBotConfig(
  slack: FakeSlack,
  secrets: { signingSecret: string; botToken: string },
  databasePath: string,
): BotConfig {
  return BotConfig.parse({
    SLACK_BOT_TOKEN: secrets.botToken,
    SLACK_SIGNING_SECRET: secrets.signingSecret,
    SLACK_API_URL: slack.apiUrl,
    PROCUREMENT_API_URL: 'http://127.0.0.1:9',
    PROCUREMENT_API_KEY: KEYS.carolMemberAcme,
    DATABASE_URL: `sqlite:${databasePath}`,
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PORT: '0',
  });
}
