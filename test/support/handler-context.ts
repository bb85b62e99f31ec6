import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { WebClient } from '@slack/web-api';
import pino from 'pino';
import type { RespondMessage } from '../../src/app/adapters/app-slack.ts';
import { SlackUsers } from '../../src/app/adapters/slack-users.ts';
import { WorkspaceClients } from '../../src/app/adapters/workspace-clients.ts';
import { KeyCipher } from '../../src/app/security/key-cipher.ts';
import type { FeatureContext, SlackRequest } from '../../src/app/shared/feature-context.ts';
import { openBotStore } from '../../src/app/storage/open-bot-store.ts';
import { messageRefusal } from '../../src/fake-slack/block-rules.ts';
import { FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import { BOT_TOKEN, inProcessBotConfig, SIGNING_SECRET } from './bot.ts';
import { KEYS } from './fixture.ts';
import { startTestSandbox, type TestSandbox } from './sandbox.ts';

/**
 * What a handler is called with in a unit test, as the Bolt starter template's tests call their
 * listeners directly: a typed FeatureContext of real parts (the local service on loopback, a
 * SQLite store, the workspace's clients, a Web API client to a fake Slack that refuses what Slack
 * refuses) and requests whose answers are recorded. No Bolt app and no signed request: the
 * end-to-end tests cover those.
 */
export interface HandlerHarness {
  context: FeatureContext;
  sandbox: TestSandbox;
  slack: FakeSlack;
  /** A request from `userId` (U0ADMIN, U0MEMBER, U0GUEST) in `channelId`, answers recorded. */
  request(options?: { userId?: string; channelId?: string; kind?: SlackRequest['kind'] }): RecordedRequest;
  close(): Promise<void>;
}

export interface RecordedRequest extends SlackRequest {
  /** What the handler answered at the response_url, in order. */
  answers: RespondMessage[];
  /** The text of every answer, joined: what the person read. */
  said(): string;
}

export async function startHandlerHarness(options: { sandbox?: TestSandbox } = {}): Promise<HandlerHarness> {
  const sandbox = options.sandbox ?? (await startTestSandbox());
  const slack = await new FakeSlack({ signingSecret: SIGNING_SECRET, botToken: BOT_TOKEN }).start();
  const databasePath = join(sandbox.dir, `bot-${randomBytes(4).toString('hex')}.db`);
  const config = {
    ...inProcessBotConfig(slack, { signingSecret: SIGNING_SECRET, botToken: BOT_TOKEN }, databasePath),
    PROCUREMENT_API_URL: sandbox.baseUrl,
  };
  const store = openBotStore(config.DATABASE_URL);
  const cipher = new KeyCipher(config.ENCRYPTION_KEY);
  const web = new WebClient(BOT_TOKEN, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  const context: FeatureContext = {
    config,
    store,
    cipher,
    logger: pino({ level: 'silent' }),
    clock: () => new Date(),
    slowNoticeMs: 2500,
    users: new SlackUsers(web),
    clients: new WorkspaceClients(store, cipher, {
      serviceUrl: sandbox.baseUrl,
      apiKey: KEYS.carolMemberAcme,
      timeoutMs: 10_000,
      allowedServiceUrls: [],
    }),
  };
  return {
    context,
    sandbox,
    slack,
    request: ({ userId = 'U0ADMIN', channelId = 'C0BIDS', kind = 'command' } = {}) => {
      const answers: RespondMessage[] = [];
      return {
        teamId: slack.teamId,
        userId,
        channelId,
        kind,
        slack: web,
        answers,
        said: () => answers.map((answer) => answer.text).join('\n'),
        // As Slack's response_url: a message it would refuse is refused here too.
        respond: async (message) => {
          const refusal = messageRefusal(message.text, message.blocks);
          if (refusal)
            throw new Error(`response_url refused: ${refusal.error} ${refusal.messages.join('; ')}`);
          answers.push(message);
          return { ok: true };
        },
      };
    },
    close: async () => {
      await context.clients.close();
      await store.close();
      await slack.stop();
      if (!options.sandbox) {
        await sandbox.stop();
        rmSync(sandbox.dir, { recursive: true, force: true });
      }
    },
  };
}

/** Links `apiKey` as `userId`'s own key in the harness's workspace, as `/tender connect me` does. */
export async function linkOwnKey(harness: HandlerHarness, userId: string, apiKey: string): Promise<void> {
  await harness.context.store.savePersonalKey({
    teamId: harness.slack.teamId,
    userId,
    encryptedApiKey: harness.context.cipher.encrypt(apiKey),
    serviceUrl: harness.sandbox.baseUrl,
    connectedAt: new Date(),
  });
}
