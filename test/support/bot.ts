import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { request } from 'undici';
import { type FakeMessage, FakeSlack } from '../../src/fake-slack/fake-slack.ts';

const BIN = resolve(import.meta.dirname, '../../bin/tenderbot.js');

export const BOT_TOKEN = `xoxb-test-${randomBytes(12).toString('hex')}`;
export const SIGNING_SECRET = `signing-${randomBytes(12).toString('hex')}`;

export interface RunningBot {
  slack: FakeSlack;
  port: number;
  /** Everything the bot process wrote, for the log checks. */
  logs(): string;
  stop(): Promise<void>;
}

/** Starts a fake Slack and the real bot, as its own process through `tenderbot bot`, in HTTP mode. */
export async function startBot(env: {
  serviceUrl: string;
  defaultKey?: string;
  databasePath: string;
}): Promise<RunningBot> {
  const slack = await new FakeSlack({ signingSecret: SIGNING_SECRET, botToken: BOT_TOKEN }).start();
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [BIN, 'bot'], {
    env: {
      PATH: process.env.PATH,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      PROCUREMENT_API_URL: env.serviceUrl,
      ...(env.defaultKey ? { PROCUREMENT_API_KEY: env.defaultKey } : {}),
      DATABASE_URL: `sqlite:${env.databasePath}`,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'debug',
      PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const port = await new Promise<number>((ready, fail) => {
    const timer = setInterval(() => {
      const line = output.split('\n').find((candidate) => candidate.includes('tenderbot is running'));
      if (line) {
        clearInterval(timer);
        ready(JSON.parse(line).port);
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(timer);
      fail(new Error(`the bot exited with ${code}:\n${output}`));
    });
  });
  slack.appUrl = `http://127.0.0.1:${port}/slack/events`;
  const health = await request(`http://127.0.0.1:${port}/healthz`);
  if (health.statusCode !== 200) throw new Error(`healthz answered ${health.statusCode}`);
  await health.body.text();
  return {
    slack,
    port,
    logs: () => output,
    stop: async () => {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
      await slack.stop();
    },
  };
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
    () => bot.slack.messagesIn(channel, userId)[before],
    `an answer to /tender ${text}`,
    timeoutMs,
  );
}
