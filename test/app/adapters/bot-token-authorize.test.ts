import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuthorizeSourceData } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BotIdentityUnknownError,
  botTokenAuthorization,
  refusedTokenError,
} from '../../../src/app/adapters/bot-token-authorize.ts';
import { FakeSlack } from '../../../src/fake-slack/fake-slack.ts';
import {
  BOT_TOKEN,
  eventually,
  type RunningBot,
  SIGNING_SECRET,
  startBot,
  tenderCommand,
} from '../../support/bot.ts';
import { type ServiceProxy, startServiceProxy } from '../../support/service-proxy.ts';

// `tenderbot bot` with one workspace's token (src/app/adapters/bot-token-authorize.ts), as its own
// process, its Web API calls through a proxy that answers 503 while Slack is "down". Bolt's own
// handling of the token asked auth.test as the app was built and crashed the process when Slack did
// not answer, and would have kept that failure for every later request.

const MEMBER = 'U0MEMBER';
const CHANNEL = 'C0GENERAL';
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-authorize-'));
let slack: FakeSlack;
let slackApi: ServiceProxy;
let bot: RunningBot | undefined;

beforeAll(async () => {
  slack = await new FakeSlack({ signingSecret: SIGNING_SECRET, botToken: BOT_TOKEN }).start();
  slackApi = await startServiceProxy(slack.baseUrl, () => true);
});

afterAll(async () => {
  await bot?.stop();
  await slackApi?.stop();
  await slack?.stop();
});

describe('one workspace’s bot token, with Slack’s Web API out of reach', () => {
  it('starts and stays up, tells the person Slack could not be reached, and answers once Slack is back', async () => {
    slackApi.fail = true;
    bot = await startBot({
      // The service is never reached by /tender help.
      serviceUrl: 'http://127.0.0.1:9',
      databasePath: join(dir, 'bot.db'),
      slack,
      more: { SLACK_API_URL: `${slackApi.url}/api/` },
    });
    slack.appUrl = bot.url;
    // Asked at start, not answered: said in the log, and the process goes on (Bolt's own crashed).
    await eventually(
      () => bot?.logs().includes('Slack did not confirm SLACK_BOT_TOKEN at start'),
      'the start’s question said in the log',
      15_000,
    );

    // tenderCommand: acknowledged with 200, then the person's next message.
    const said = JSON.stringify(await tenderCommand(bot, MEMBER, CHANNEL, 'help', 15_000));
    expect(said).toContain('Slack did not answer Tenderbot just now');
    // Not the sentence of a workspace without Tenderbot: it is installed, Slack is only out of reach.
    expect(said).not.toMatch(/not installed/);
    expect(slackApi.seen).toBeGreaterThan(0);

    slackApi.fail = false;
    const help = await tenderCommand(bot, MEMBER, CHANNEL, 'help', 15_000);
    expect(JSON.stringify(help)).toContain('/tender search');
    expect(bot.logs()).not.toMatch(/"level":60/);
  }, 60_000);

  it('a token Slack refuses: said in the log at start, and the person reads that its Slack token needs replacing', async () => {
    slackApi.fail = false;
    const refused = await startBot({
      serviceUrl: 'http://127.0.0.1:9',
      databasePath: join(dir, 'refused.db'),
      slack,
      more: { SLACK_API_URL: `${slackApi.url}/api/`, SLACK_BOT_TOKEN: 'xoxb-not-the-workspaces-token' },
    });
    try {
      slack.appUrl = refused.url;
      const said = await tenderCommand(refused, MEMBER, CHANNEL, 'help', 15_000);
      expect(JSON.stringify(said)).toContain('its Slack token needs replacing');
      // Said in words: the setting's name is for whoever runs Tenderbot, in the log.
      expect(JSON.stringify(said)).not.toContain('SLACK_BOT_TOKEN');
      expect(refused.logs()).toContain('Slack refused SLACK_BOT_TOKEN');
      // Nothing of the token is said or logged.
      expect(JSON.stringify(said)).not.toContain('xoxb-not');
      expect(refused.logs()).not.toContain('xoxb-not');
    } finally {
      await refused.stop();
    }
  }, 60_000);
});

describe('botTokenAuthorization, on a client whose auth.test answers as told', () => {
  /** A Web API client whose auth.test resolves or fails when the test says, counting the questions. */
  function scriptedClient() {
    const pending: { resolve: (value: unknown) => void; reject: (error: unknown) => void }[] = [];
    const client = {
      auth: {
        test: () =>
          new Promise((resolve, reject) => {
            pending.push({ resolve, reject });
          }),
      },
    };
    return { client: client as unknown as WebClient, pending };
  }
  const source = { isEnterpriseInstall: false, teamId: 'T1' } as AuthorizeSourceData<boolean>;
  const refusal = Object.assign(new Error('An API error occurred: invalid_auth'), {
    code: 'slack_webapi_platform_error',
    data: { ok: false, error: 'invalid_auth' },
  });

  it('shares one question between requests at the same moment, asks again after a failure, keeps a success', async () => {
    const { client, pending } = scriptedClient();
    const { authorize } = botTokenAuthorization(client, 'xoxb-1');
    const first = authorize(source);
    const second = authorize(source);
    await Promise.resolve();
    expect(pending).toHaveLength(1);
    pending[0]?.reject(refusal);
    for (const request of [first, second]) {
      const error = await request.catch((failure: unknown) => failure);
      expect(error).toBeInstanceOf(BotIdentityUnknownError);
      expect(refusedTokenError((error as Error).cause)).toBe('invalid_auth');
    }
    const third = authorize(source);
    await Promise.resolve();
    expect(pending).toHaveLength(2);
    pending[1]?.resolve({ ok: true, bot_id: 'B1', user_id: 'U1' });
    expect(await third).toEqual({
      isEnterpriseInstall: false,
      botToken: 'xoxb-1',
      botId: 'B1',
      botUserId: 'U1',
    });
    expect(await authorize(source)).toMatchObject({ botId: 'B1' });
    expect(pending).toHaveLength(2);
  });

  it('says only the token’s own refusals are refusals: a Slack fault or no answer is not', () => {
    expect(refusedTokenError(refusal)).toBe('invalid_auth');
    const fault = { code: 'slack_webapi_platform_error', data: { error: 'internal_error' } };
    expect(refusedTokenError(fault)).toBeNull();
    expect(refusedTokenError(new Error('connect ECONNREFUSED'))).toBeNull();
    expect(refusedTokenError(null)).toBeNull();
  });
});
