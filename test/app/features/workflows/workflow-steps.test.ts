import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ProcurementClient } from '../../../../src/client/procurement-client.ts';
import { CreatePipelineBody } from '../../../../src/contract/schemas.ts';
import type { FunctionDefinition, FunctionRun } from '../../../../src/fake-slack/functions.ts';
import { eventually, type RunningBot, startBot, startBotAsCarol } from '../../../support/bot.ts';
import { KEYS, TENDER_A } from '../../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../../support/sandbox.ts';

const MEMBER = 'U0MEMBER';
const GUEST = 'U0GUEST';
const BIDS = 'C0BIDS';
const DAY_MS = 86_400_000;

/** The steps manifest.yml declares: what Slack learns when the app's manifest is installed. */
const FUNCTIONS: Record<string, FunctionDefinition> = parse(
  readFileSync(join(import.meta.dirname, '../../../../manifest.yml'), 'utf8'),
).functions;

let sandbox: TestSandbox;
let bot: RunningBot;
/** The key the bot uses for a member without a key of their own (Carol, a member of Acme). */
let service: ProcurementClient;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  bot = await startBotAsCarol(sandbox);
  bot.slack.workflows.declare(FUNCTIONS);
  service = new ProcurementClient({ baseUrl: sandbox.baseUrl, apiKey: KEYS.carolMemberAcme });
}, 60_000);

afterAll(async () => {
  await bot?.stop();
  await service?.close();
  await sandbox?.stop();
});

/** Runs a step as Workflow Builder does and waits for the app to end it. */
async function runStep(
  on: RunningBot,
  callbackId: string,
  inputs: Record<string, unknown>,
  options: { executionId?: string; user?: string } = {},
): Promise<FunctionRun> {
  const { run, answer } = await on.slack.workflows.run(callbackId, inputs, options);
  // Acknowledged at once (Bolt acknowledges function_executed before the step's work).
  expect(answer.status).toBe(200);
  return withTimeout(run.ended, `the app to end ${callbackId}`);
}

async function withTimeout<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Only the outputs the manifest declares for the step, and every required one. */
function expectDeclaredOutputs(run: FunctionRun): void {
  const declared = FUNCTIONS[run.callbackId]?.output_parameters ?? {};
  for (const name of Object.keys(run.outputs ?? {})) expect(Object.keys(declared)).toContain(name);
  for (const [name, parameter] of Object.entries(declared))
    if (parameter.is_required) expect(run.outputs, `${run.callbackId}.${name}`).toHaveProperty(name);
}

describe('Workflow Builder steps, run by the fake Slack through the real app', () => {
  it('"Find new tenders" by words and filters completes with how many and the list', async () => {
    const since = Date.now() - 365 * DAY_MS;
    const run = await runStep(
      bot,
      'find_new_tenders',
      {
        words: 'cleaning',
        published_within_days: 365,
      },
      { user: MEMBER },
    );
    expect(run.state, run.error ?? '').toBe('completed');
    expectDeclaredOutputs(run);
    // The same search, asked of the service with the same key (a day's slack for the clock).
    const page = await service.tenders.search({
      q: 'cleaning',
      publishedFrom: new Date(since).toISOString(),
      limit: 10,
    });
    expect(page.pagination.total).toBeGreaterThan(0);
    expect(run.outputs?.count).toBe(page.pagination.total);
    expect(String(run.outputs?.tenders)).toContain(page.data[0]?.id as string);
    expect(run.outputs?.first_tender_id).toBe(page.data[0]?.id);
  });

  it('"Find new tenders" with a value filter compares in one currency and says the rule under its list', async () => {
    const run = await runStep(
      bot,
      'find_new_tenders',
      {
        words: 'value>100k eur',
        published_within_days: 365,
      },
      { user: MEMBER },
    );
    expect(run.state, run.error ?? '').toBe('completed');
    const page = await service.tenders.search({
      valueMin: 100_000,
      currency: 'EUR',
      publishedFrom: new Date(Date.now() - 365 * DAY_MS).toISOString(),
      limit: 1,
    });
    expect(run.outputs?.count).toBe(page.pagination.total);
    expect(String(run.outputs?.tenders)).toContain(
      `Values in EUR; amounts in other currencies converted at the ECB rates of ${page.valueRule?.ratesDate}.`,
    );
  });

  it('"Find new tenders" reads a region of two words typed without quotes as /tender search does', async () => {
    const run = await runStep(bot, 'find_new_tenders', {
      words: 'region:west midlands',
      published_within_days: 365,
    });
    expect(run.state, run.error ?? '').toBe('completed');
    const page = await service.tenders.search({
      region: 'West Midlands',
      publishedFrom: new Date(Date.now() - 365 * DAY_MS).toISOString(),
      limit: 1,
    });
    expect(page.pagination.total).toBeGreaterThan(0);
    expect(run.outputs?.count).toBe(page.pagination.total);
    // Read at every run by the data's regions: the list says how, for whoever reads it.
    expect(String(run.outputs?.tenders)).toContain(
      'Read `region:west midlands` as `region:"West Midlands"`: a region of more than one word goes in quotes.',
    );
  });

  it('"Find new tenders" reads words written as a sentence as a feed does: a region and an amount are filters', async () => {
    const run = await runStep(bot, 'find_new_tenders', {
      words: 'cleaning in the West Midlands over £1k',
      published_within_days: 365,
    });
    expect(run.state, run.error ?? '').toBe('completed');
    const page = await service.tenders.search({
      q: 'cleaning',
      region: 'West Midlands',
      valueMin: 1000,
      publishedFrom: new Date(Date.now() - 365 * DAY_MS).toISOString(),
      limit: 1,
    });
    // As words ("over", "£1k", "West Midlands"), the search found none of these.
    expect(page.pagination.total).toBeGreaterThan(0);
    expect(run.outputs?.count).toBe(page.pagination.total);
    expect(String(run.outputs?.tenders)).toContain(
      'Read the words as `cleaning region:"West Midlands" value&gt;1k`.',
    );

    const two = await runStep(bot, 'find_new_tenders', { words: 'cleaning in Wales or the West Midlands' });
    expect(two.state).toBe('failed');
    expect(two.error).toContain(
      'A search takes one region, and these words name two (Wales and West Midlands).',
    );
  });

  it('"Find new tenders" by a saved search uses its filters', async () => {
    const run = await runStep(bot, 'find_new_tenders', {
      saved_search: 'acme search 1',
      published_within_days: 365,
    });
    expect(run.state, run.error ?? '').toBe('completed');
    const page = await service.tenders.search({
      q: 'cleaning',
      region: 'North West',
      publishedFrom: new Date(Date.now() - 365 * DAY_MS).toISOString(),
      limit: 1,
    });
    expect(run.outputs?.count).toBe(page.pagination.total);
  });

  it('a saved search that does not exist fails the step with a sentence', async () => {
    const run = await runStep(bot, 'find_new_tenders', { saved_search: 'No such search' });
    expect(run.state).toBe('failed');
    expect(run.error).toContain('No saved search is called “No such search”');
    expect(run.error).toContain('Check its name in /tender saved.');
  });

  let bidId = '';

  it('"Start a bid from a tender" completes with the bid’s reference and link', async () => {
    const name = `Workflow bid ${Date.now()}`;
    const run = await runStep(
      bot,
      'start_bid_from_tender',
      {
        tender: TENDER_A,
        name,
        stages_template: 'Qualify | 2\nWrite | 5\nSubmit',
      },
      { user: MEMBER },
    );
    expect(run.state, run.error ?? '').toBe('completed');
    expectDeclaredOutputs(run);
    bidId = String(run.outputs?.bid_id);
    // What people type for a bid: its reference as its card shows it, never the service's id.
    expect(run.outputs?.bid_reference).toMatch(/^BID-\d+$/);
    const bid = await service.pipelines.get(bidId);
    expect(bid.name).toBe(name);
    expect(bid.tenderId).toBe(TENDER_A);
    expect(bid.stages.map((stage) => stage.name)).toEqual(['Qualify', 'Write', 'Submit']);
    expect(run.outputs?.bid_link).toBe(`${sandbox.baseUrl}/v1/pipelines/${bidId}`);
  });

  it('a name of 199 × "a" and an emoji is cut before the emoji, never through it: the service takes it as sent', async () => {
    // 201 UTF-16 units; the service's limit is 200 (`max(200)` counts units). Cut through the
    // emoji, half of it reached the service and was stored as U+FFFD, over the limit.
    const name = `${'a'.repeat(199)}\u{1F680}`;
    const run = await runStep(bot, 'start_bid_from_tender', { tender: TENDER_A, name }, { user: MEMBER });
    expect(run.state, run.error ?? '').toBe('completed');
    const bid = await service.pipelines.get(String(run.outputs?.bid_id));
    expect(bid.name).toBe('a'.repeat(199));
    expect(bid.name.isWellFormed()).toBe(true);
    expect(bid.name).not.toContain('\uFFFD');
    expect(CreatePipelineBody.shape.name.safeParse(bid.name).success).toBe(true);
  });

  it('"Move a bid’s stage" changes the stage with the person’s key', async () => {
    const run = await runStep(
      bot,
      'move_bid_stage',
      {
        bid: bidId,
        stage: 'write',
        status: 'In progress',
      },
      { user: MEMBER },
    );
    expect(run.state, run.error ?? '').toBe('completed');
    expectDeclaredOutputs(run);
    expect(run.outputs).toMatchObject({
      bid_id: bidId,
      bid_reference: expect.stringMatching(/^BID-\d+$/),
      stage_name: 'Write',
      stage_status: 'in_progress',
    });
    const bid = await service.pipelines.get(bidId);
    expect(bid.stages.find((stage) => stage.name === 'Write')?.status).toBe('in_progress');
  });

  it('"Post a bid’s summary to a channel" posts the bid’s card there', async () => {
    const run = await runStep(bot, 'post_bid_summary', { bid: bidId, channel_id: BIDS }, { user: MEMBER });
    expect(run.state, run.error ?? '').toBe('completed');
    expectDeclaredOutputs(run);
    const card = bot.slack
      .messagesIn(BIDS)
      .find((message) => message.metadata?.event_payload?.pipeline_id === bidId);
    expect(card?.ts).toBe(run.outputs?.message_ts);
    // Posted with the run's workflow token, which stopped working when the run ended.
    const post = bot.slack
      .callsOf('chat.postMessage')
      .find((call) => call.args.channel === BIDS && call.token === run.workflowToken);
    expect(post).toBeDefined();
  });

  it('takes a bid as people name it: the reference its card shows, or an unknown one refused', async () => {
    const card = bot.slack
      .messagesIn(BIDS)
      .find((message) => message.metadata?.event_payload?.pipeline_id === bidId);
    const reference = /BID-\d+/.exec(JSON.stringify(card?.blocks))?.[0];
    expect(reference).toBeDefined();
    const run = await runStep(
      bot,
      'move_bid_stage',
      {
        bid: reference,
        stage: 'submit',
        status: 'In progress',
      },
      { user: MEMBER },
    );
    expect(run.state, run.error ?? '').toBe('completed');
    const bid = await service.pipelines.get(bidId);
    expect(bid.stages.find((stage) => stage.name === 'Submit')?.status).toBe('in_progress');
    const unknown = await runStep(
      bot,
      'post_bid_summary',
      {
        bid: 'BID-99999',
        channel_id: BIDS,
      },
      { user: MEMBER },
    );
    expect(unknown.state).toBe('failed');
    // Plain text, as Workflow Builder shows it: no mrkdwn code marks around BID-99999.
    expect(unknown.error).toMatch(/^No bid in this workspace is BID-99999\. Type the bid’s reference/);
    expect(unknown.error).not.toContain('`');
  });

  it('a stage that is not the bid’s fails with a sentence naming its stages', async () => {
    const run = await runStep(
      bot,
      'move_bid_stage',
      {
        bid: bidId,
        stage: 'Lunch',
        status: 'done',
      },
      { user: MEMBER },
    );
    expect(run.state).toBe('failed');
    // The sentence /tender pipeline says, in plain text (Workflow Builder shows no mrkdwn).
    expect(run.error).toBe(
      'No stage of this bid is called “Lunch”. Its stages: 1. Qualify, 2. Write, 3. Submit.',
    );
  });

  it('a guest’s workflow cannot start a bid: the step fails with a sentence and nothing is made', async () => {
    const name = `Guest bid ${Date.now()}`;
    const run = await runStep(bot, 'start_bid_from_tender', { tender: TENDER_A, name }, { user: GUEST });
    expect(run.state).toBe('failed');
    expect(run.error).toBe(
      'Guests can read tenders but cannot start bids. Ask a member of the workspace to run this workflow.',
    );
    const found = await service.pipelines.list({ q: name });
    expect(found.data).toHaveLength(0);
  });

  it('a step Slack runs again (its ending was lost) makes one bid, and completes with the same reference', async () => {
    const name = `Run twice ${Date.now()}`;
    const inputs = { tender: TENDER_A, name };
    const before = bot.slack.callsOf('functions.completeSuccess').length;
    bot.slack.failNext('functions.completeSuccess', { kind: 'error', error: 'internal_error' });
    const first = await bot.slack.workflows.run('start_bid_from_tender', inputs, { user: MEMBER });
    await eventually(
      () => bot.slack.callsOf('functions.completeSuccess').length > before,
      'the first ending, which Slack loses',
    );
    expect(first.run.state).toBe('running');
    // Slack runs the same execution again, as a new event.
    const again = await runStep(bot, 'start_bid_from_tender', inputs, { executionId: first.run.executionId });
    expect(again.state, again.error ?? '').toBe('completed');
    const found = await service.pipelines.list({ q: name });
    expect(found.data.map((bid) => bid.id)).toEqual([again.outputs?.bid_id]);
    expect(again.outputs?.bid_reference).toMatch(/^BID-\d+$/);
  });
});

describe('who a step acts as: the person Slack says runs the workflow, never one its author typed', () => {
  it('a step that only reads, with the old input alone, reads with the workspace’s key', async () => {
    const run = await runStep(bot, 'find_new_tenders', {
      words: 'cleaning',
      published_within_days: 365,
      user_id: GUEST,
    });
    expect(run.state, run.error ?? '').toBe('completed');
  });

  it('the person is Slack’s user context: a workflow cannot set it, and a step needing one needs a starter', async () => {
    await expect(
      bot.slack.workflows.run(
        'move_bid_stage',
        { bid: 'BID-1', stage: '1', status: 'done', user_context: { id: MEMBER, secret: 'x' } },
        { user: GUEST },
      ),
    ).rejects.toThrow('a workflow cannot set it');
    await expect(
      bot.slack.workflows.run('move_bid_stage', { bid: 'BID-1', stage: '1', status: 'done' }),
    ).rejects.toThrow('cannot be published');
  });

  it('a guest starting the workflow is refused even when its author typed a member as Person', async () => {
    const name = `Guest as member ${Date.now()}`;
    const run = await runStep(
      bot,
      'start_bid_from_tender',
      { tender: TENDER_A, name, user_id: MEMBER },
      { user: GUEST },
    );
    expect(run.state).toBe('failed');
    expect(run.error).toMatch(/^Guests can read tenders but cannot start bids\./);
    expect((await service.pipelines.list({ q: name })).data).toHaveLength(0);
  });
});

describe('a workspace with no key', () => {
  let keyless: RunningBot;

  beforeAll(async () => {
    keyless = await startBot({
      serviceUrl: sandbox.baseUrl,
      databasePath: join(mkdtempSync(join(sandbox.dir, 'bot-')), 'bot.db'),
    });
    keyless.slack.workflows.declare(FUNCTIONS);
  }, 60_000);

  afterAll(async () => {
    await keyless?.stop();
  });

  it('fails the step with the sentence a command would say', async () => {
    const run = await runStep(keyless, 'find_new_tenders', { words: 'cleaning' }, { user: MEMBER });
    expect(run.state).toBe('failed');
    expect(run.error).toMatch(
      /^This workspace has no API key yet\. A workspace admin can add one with \/tender connect\./,
    );
  });
});

describe('Find new tenders’ “Published within days”', () => {
  it('takes digits only: 0x10 and 1e2 are refused with a sentence, not read as 16 and 100', async () => {
    for (const days of ['0x10', '1e2', '0', '366', '7.5', ' 12 ']) {
      const run = await runStep(bot, 'find_new_tenders', { words: 'cleaning', published_within_days: days });
      if (days === ' 12 ') expect(run.state, run.error ?? '').toBe('completed');
      else {
        expect(run.state, days).toBe('failed');
        expect(run.error, days).toContain('must be a whole number from 1 to 365');
      }
    }
  });
});
