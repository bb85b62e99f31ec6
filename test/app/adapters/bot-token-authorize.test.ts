import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack } from '../../../src/fake-slack/fake-slack.ts';
import { BOT_TOKEN, eventually, type RunningBot, SIGNING_SECRET, startBot } from '../../support/bot.ts';
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
    // Longer than Bolt's auth.test at start took to fail (three tries, 0.2 s then 0.4 s apart).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(bot.logs()).not.toMatch(/WebAPI\w*Error|unhandled/i);

    const answer = await slack.slashCommand(MEMBER, CHANNEL, '/tender', 'help');
    expect(answer.status).toBe(200);
    const failure = await eventually(
      () => slack.messagesIn(CHANNEL, MEMBER).at(-1),
      'a sentence about the failure',
      15_000,
    );
    const said = JSON.stringify(failure);
    expect(said).toContain('Slack did not answer Tenderbot just now');
    // Not the sentence of a workspace without Tenderbot: it is installed, Slack is only out of reach.
    expect(said).not.toMatch(/not installed/);
    expect(slackApi.seen).toBeGreaterThan(0);

    slackApi.fail = false;
    const before = slack.messagesIn(CHANNEL, MEMBER).length;
    expect((await slack.slashCommand(MEMBER, CHANNEL, '/tender', 'help')).status).toBe(200);
    const help = await eventually(
      () => slack.messagesIn(CHANNEL, MEMBER)[before],
      'the help card once Slack is back',
      15_000,
    );
    expect(JSON.stringify(help)).toContain('/tender search');
    expect(bot.logs()).not.toMatch(/"level":60/);
  }, 60_000);

  it('a token Slack refuses: the process stays up and the person reads that SLACK_BOT_TOKEN must be set again', async () => {
    slackApi.fail = false;
    const refused = await startBot({
      serviceUrl: 'http://127.0.0.1:9',
      databasePath: join(dir, 'refused.db'),
      slack,
      more: { SLACK_API_URL: `${slackApi.url}/api/`, SLACK_BOT_TOKEN: 'xoxb-not-the-workspaces-token' },
    });
    try {
      slack.appUrl = refused.url;
      const before = slack.messagesIn(CHANNEL, MEMBER).length;
      expect((await slack.slashCommand(MEMBER, CHANNEL, '/tender', 'help')).status).toBe(200);
      const said = await eventually(
        () => slack.messagesIn(CHANNEL, MEMBER)[before],
        'a sentence about the token',
        15_000,
      );
      expect(JSON.stringify(said)).toContain('its SLACK_BOT_TOKEN must be set again');
      // Nothing of the token is said or logged.
      expect(JSON.stringify(said)).not.toContain('xoxb-not');
      expect(refused.logs()).not.toContain('xoxb-not');
    } finally {
      await refused.stop();
    }
  }, 60_000);
});
