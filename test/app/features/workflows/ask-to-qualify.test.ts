import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { BotStore } from '../../../../src/app/storage/bot-store.ts';
import type { FakeMessage } from '../../../../src/fake-slack/fake-slack.ts';
import type { FunctionDefinition, FunctionRun } from '../../../../src/fake-slack/functions.ts';
import { eventually, type RunningBot, startBotWithStore } from '../../../support/bot.ts';
import { KEYS, TENDER_A } from '../../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../../support/sandbox.ts';

// "Ask someone to qualify a tender": the step posts a question and stays running; the asked
// person's click (sent with the run's function_data) completes it with the answer.
const ASKED = 'U0MEMBER';
const SOMEONE_ELSE = 'U0ADMIN';
const BIDS = 'C0BIDS';
const QUALIFIED = 'workflow/qualify/0';
const NOT_QUALIFIED = 'workflow/qualify/1';

const FUNCTIONS: Record<string, FunctionDefinition> = parse(
  readFileSync(join(import.meta.dirname, '../../../../manifest.yml'), 'utf8'),
).functions;

let sandbox: TestSandbox;
let bot: RunningBot;
let store: BotStore;
let linkPersonalKey: (userId: string, apiKey: string) => Promise<void>;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  ({ bot, store, linkPersonalKey } = await startBotWithStore(sandbox));
  bot.slack.workflows.declare(FUNCTIONS);
}, 60_000);

afterAll(async () => {
  await store?.close();
  await bot?.stop();
  await sandbox?.stop();
});

/** Runs the step and waits for its question in #bids (the run stays running). */
async function ask(): Promise<{ run: FunctionRun; question: FakeMessage }> {
  const before = bot.slack.messagesIn(BIDS).length;
  const { run, answer } = await bot.slack.workflows.run('ask_to_qualify_tender', {
    tender: TENDER_A,
    asked_user: ASKED,
    channel_id: BIDS,
  });
  expect(answer.status).toBe(200);
  const question = await eventually(
    () =>
      bot.slack
        .messagesIn(BIDS)
        .slice(before)
        .find((message) => JSON.stringify(message.blocks).includes(QUALIFIED)),
    'the step’s question in #bids',
  );
  return { run, question };
}

/** What only `userId` was told in #bids, oldest first. */
function toldTo(userId: string): string[] {
  return bot.slack
    .messagesIn(BIDS, userId)
    .filter((message) => message.ephemeralTo === userId)
    .map((message) => message.text);
}

const completions = () =>
  bot.slack.calls.filter((call) => call.method === 'functions.completeSuccess' && !call.error);

describe('the step "Ask someone to qualify a tender", through the real app and the fake Slack', () => {
  it('posts the question to the asked person, with two buttons, and stays running', async () => {
    const { run, question } = await ask();
    expect(question.text).toContain(`<@${ASKED}>`);
    expect(JSON.stringify(question.blocks)).toContain(TENDER_A);
    expect(JSON.stringify(question.blocks)).toContain(NOT_QUALIFIED);
    // Posted with the run's workflow token, so Slack sends its clicks with the run.
    const post = bot.slack.calls.find(
      (call) => call.method === 'chat.postMessage' && call.token === run.workflowToken,
    );
    expect(post?.args.channel).toBe(BIDS);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(run.state).toBe('running');
  });

  it('refuses someone else’s click with a sentence; the asked person’s click completes the step; a second click is told', async () => {
    const { run, question } = await ask();
    const staleCopy = structuredClone(question);
    const completedBefore = completions().length;

    const refused = toldTo(SOMEONE_ELSE).length;
    expect((await bot.slack.clickInMessage(SOMEONE_ELSE, question, QUALIFIED)).status).toBe(200);
    const refusal = await eventually(
      () => toldTo(SOMEONE_ELSE).slice(refused)[0],
      'the refusal to someone else',
    );
    expect(refusal).toContain(`asked of <@${ASKED}>: only they can answer it`);
    expect(run.state).toBe('running');

    await bot.slack.clickInMessage(ASKED, question, NOT_QUALIFIED);
    const ended = await run.ended;
    expect(ended.state).toBe('completed');
    expect(ended.outputs).toEqual({ answer: 'not qualified', answered_by: ASKED });
    expect(completions().length).toBe(completedBefore + 1);
    // The question now says who answered, and has no buttons left.
    const answered = await eventually(
      () => bot.slack.messagesIn(BIDS).find((m) => m.ts === question.ts && m.text.includes('answered')),
      'the question marked answered',
    );
    expect(answered.text).toContain(`<@${ASKED}> answered`);
    expect(answered.text).toContain('not qualified');
    expect(JSON.stringify(answered.blocks)).not.toContain(QUALIFIED);

    // A second click (a stale copy of the message, still showing its buttons) is answered with a sentence.
    const told = toldTo(ASKED).length;
    expect((await bot.slack.clickInMessage(ASKED, staleCopy, QUALIFIED)).status).toBe(200);
    const second = await eventually(() => toldTo(ASKED).slice(told)[0], 'the answer to a second click');
    expect(second).toContain('already answered');
    expect(completions().length).toBe(completedBefore + 1);
    // Nothing Slack refused: no second completion tried, no update with the ended token.
    expect(bot.slack.refusals.map((call) => call.method)).not.toContain('functions.completeSuccess');
    expect(ended.outputs?.answer).toBe('not qualified');
  });

  it('reads the tender with the runner’s key, never the asked person’s; a runner whose key fails asks nobody', async () => {
    /** Links `userId`'s personal key to a key the service refuses (expired). */
    const linkExpiredKey = (userId: string) => linkPersonalKey(userId, KEYS.aliceExpired);
    const run = (runner: string) =>
      bot.slack.workflows.run(
        'ask_to_qualify_tender',
        { tender: TENDER_A, asked_user: ASKED, channel_id: BIDS },
        // Who started the workflow: Slack fills the step's user_context with them.
        { user: runner },
      );
    try {
      // The asked person's own key would fail: the question is still asked (the runner has none, so
      // the workspace's key reads the tender).
      await linkExpiredKey(ASKED);
      const before = bot.slack.messagesIn(BIDS).length;
      await run(SOMEONE_ELSE);
      await eventually(
        () =>
          bot.slack
            .messagesIn(BIDS)
            .slice(before)
            .find((message) => JSON.stringify(message.blocks).includes(QUALIFIED)),
        'the question, read with the workspace’s key',
      );
      // The runner's own key is the one used: when it fails, the step fails and nobody is asked.
      await linkExpiredKey(SOMEONE_ELSE);
      const posted = bot.slack.messagesIn(BIDS).length;
      const ended = await (await run(SOMEONE_ELSE)).run.ended;
      expect(ended.state).toBe('failed');
      expect(ended.error).toMatch(/key/i);
      expect(bot.slack.messagesIn(BIDS).slice(posted)).toEqual([]);
    } finally {
      // The other tests run with the workspace's key.
      await store.removePersonalKey(bot.slack.teamId, ASKED);
      await store.removePersonalKey(bot.slack.teamId, SOMEONE_ELSE);
    }
  });

  it('refuses a guest who runs the workflow, asking nobody', async () => {
    const before = bot.slack.messagesIn(BIDS).length;
    const { run } = await bot.slack.workflows.run(
      'ask_to_qualify_tender',
      { tender: TENDER_A, asked_user: ASKED, channel_id: BIDS },
      { user: 'U0GUEST' },
    );
    const ended = await run.ended;
    expect(ended.state).toBe('failed');
    expect(ended.error).toContain('Guests can read tenders but cannot ask someone in a channel');
    expect(bot.slack.messagesIn(BIDS).slice(before)).toEqual([]);
  });

  it('fails with a sentence, posting nothing, when the tender does not exist', async () => {
    const before = bot.slack.messagesIn(BIDS).length;
    const { run } = await bot.slack.workflows.run('ask_to_qualify_tender', {
      tender: 'no-such-tender',
      asked_user: ASKED,
      channel_id: BIDS,
    });
    const ended = await run.ended;
    expect(ended.state).toBe('failed');
    expect(ended.error).toBe('No tender has the id or reference “no-such-tender”. Nobody was asked.');
    expect(bot.slack.messagesIn(BIDS).slice(before)).toEqual([]);
  });
});
