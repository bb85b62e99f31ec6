import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type FakeMessage, FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import { StandInApp } from './stand-in-app.ts';

// Workflow Builder in the fake Slack (../shared/SLACK.md, "Workflow Builder custom steps"): a run
// is a function_executed event with a workflow token, ended once by functions.complete*.
const TOKEN = 'xoxb-fake-functions';
const SECRET = 'fake-functions-secret';
const FUNCTIONS = parse(readFileSync(join(import.meta.dirname, '../../manifest.yml'), 'utf8')).functions;

const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

async function start(): Promise<{ slack: FakeSlack; app: StandInApp }> {
  const slack = await new FakeSlack({ signingSecret: SECRET, botToken: TOKEN }).start();
  const app = new StandInApp(SECRET);
  slack.appUrl = await app.start();
  slack.workflows.declare(FUNCTIONS);
  stops.push(
    () => slack.stop(),
    () => app.stop(),
  );
  return { slack, app };
}

/** A Web API call with `token`, as raw HTTP: Slack's answer. */
async function call(slack: FakeSlack, token: string, method: string, body: Record<string, unknown>) {
  const response = await request(`${slack.apiUrl}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: Slack's loose answer JSON.
  return (await response.body.json()) as any;
}

const SUMMARY_OUTPUTS = { bid_reference: 'pl-1', message_ts: '1.000100', summary: 'A bid' };

describe('the fake Slack runs the app’s Workflow Builder steps', () => {
  it('sends function_executed, signed, with the step, its inputs and a workflow token', async () => {
    const { slack, app } = await start();
    const { run } = await slack.workflows.run('post_bid_summary', { bid: 'pl-1', channel_id: 'C0BIDS' });
    const [event] = app.events('function_executed');
    expect(app.received[0]?.valid).toBe(true);
    expect(event).toMatchObject({
      function: { callback_id: 'post_bid_summary', type: 'app', title: "Post a bid's summary to a channel" },
      inputs: { bid: 'pl-1', channel_id: 'C0BIDS' },
      function_execution_id: run.executionId,
    });
    expect(event.bot_access_token).toMatch(/^xwfp-/);
    expect(event.function.input_parameters.map((parameter: { name: string }) => parameter.name)).toContain(
      'bid',
    );
  });

  it('refuses a step the app does not declare', async () => {
    const { slack } = await start();
    await expect(slack.workflows.run('order_pizza', {})).rejects.toThrow(
      'the app declares no step order_pizza',
    );
  });

  it('takes one ending: outputs as declared, then refuses a second ending', async () => {
    const { slack } = await start();
    const { run } = await slack.workflows.run('post_bid_summary', { bid: 'pl-1', channel_id: 'C0BIDS' });
    const token = run.workflowToken;
    // The workflow token acts in the workspace while the run lasts.
    expect((await call(slack, token, 'chat.postMessage', { channel: 'C0BIDS', text: 'hello' })).ok).toBe(
      true,
    );
    const done = await call(slack, token, 'functions.completeSuccess', {
      function_execution_id: run.executionId,
      outputs: SUMMARY_OUTPUTS,
    });
    expect(done).toEqual({ ok: true });
    expect((await run.ended).outputs).toEqual(SUMMARY_OUTPUTS);
    expect(run.state).toBe('completed');
    for (const method of ['functions.completeSuccess', 'functions.completeError'])
      expect(
        await call(slack, TOKEN, method, {
          function_execution_id: run.executionId,
          outputs: SUMMARY_OUTPUTS,
          error: 'x',
        }),
      ).toEqual({ ok: false, error: 'execution_not_in_running_state' });
    // Once the run is over, its token no longer works.
    expect(await call(slack, token, 'chat.postMessage', { channel: 'C0BIDS', text: 'late' })).toEqual({
      ok: false,
      error: 'invalid_auth',
    });
  });

  it('refuses an unknown execution id', async () => {
    const { slack } = await start();
    expect(
      await call(slack, TOKEN, 'functions.completeSuccess', {
        function_execution_id: 'Fx0NOPE',
        outputs: {},
      }),
    ).toEqual({ ok: false, error: 'function_execution_not_found' });
  });

  it('refuses outputs that leave out a required one, give a wrong type, or one not declared', async () => {
    const { slack } = await start();
    const { run } = await slack.workflows.run('find_new_tenders', { words: 'cleaning' });
    const complete = (outputs: Record<string, unknown>) =>
      call(slack, TOKEN, 'functions.completeSuccess', { function_execution_id: run.executionId, outputs });
    const missing = await complete({ count: 2 });
    expect(missing).toMatchObject({ ok: false, error: 'parameter_validation_failed' });
    expect(missing.response_metadata.messages).toEqual(['missing required output tenders']);
    expect((await complete({ count: 'two', tenders: 'x' })).response_metadata.messages).toEqual([
      'output count must be of type integer',
    ]);
    expect((await complete({ count: 2, tenders: 'x', colour: 'red' })).response_metadata.messages).toEqual([
      'output colour is not declared',
    ]);
    expect(run.state).toBe('running');
    expect(await complete({ count: 2, tenders: 'x' })).toEqual({ ok: true });
  });

  it('takes a failure with its sentence, and refuses one without', async () => {
    const { slack } = await start();
    const { run } = await slack.workflows.run(
      'move_bid_stage',
      { bid: 'pl-1', stage: '1', status: 'done' },
      { user: 'U0MEMBER' },
    );
    const fail = (error: unknown) =>
      call(slack, TOKEN, 'functions.completeError', { function_execution_id: run.executionId, error });
    expect(await fail('')).toEqual({ ok: false, error: 'invalid_arguments' });
    expect(await fail('The bid has no stage 1.')).toEqual({ ok: true });
    expect(run.state).toBe('failed');
    expect(run.error).toBe('The bid has no stage 1.');
  });

  it('runs the same execution again with the same id and token', async () => {
    const { slack, app } = await start();
    const { run } = await slack.workflows.run('post_bid_summary', { bid: 'pl-1', channel_id: 'C0BIDS' });
    const again = await slack.workflows.run('post_bid_summary', {}, { executionId: run.executionId });
    expect(again.run).toBe(run);
    const [first, second] = app.events('function_executed');
    expect(second.function_execution_id).toBe(first.function_execution_id);
    expect(second.inputs).toEqual(first.inputs);
    expect(slack.workflows.runs).toHaveLength(1);
  });

  it('sends a click on a button the run posted with the run’s function_data and workflow token', async () => {
    const { slack, app } = await start();
    const inputs = { tender: 'T-1', asked_user: 'U0MEMBER', channel_id: 'C0BIDS' };
    const { run } = await slack.workflows.run('ask_to_qualify_tender', inputs);
    const button = (text: string) => [
      {
        type: 'actions',
        elements: [{ type: 'button', action_id: 'yes', text: { type: 'plain_text', text }, value: 'y' }],
      },
    ];
    const posted = await call(slack, run.workflowToken, 'chat.postMessage', {
      channel: 'C0BIDS',
      text: 'Qualify?',
      blocks: button('Yes'),
    });
    const other = await call(slack, TOKEN, 'chat.postMessage', {
      channel: 'C0BIDS',
      text: 'Not a step’s',
      blocks: button('Yes too'),
    });
    const message = (ts: string) => slack.messagesIn('C0BIDS').find((candidate) => candidate.ts === ts);
    await slack.clickInMessage('U0MEMBER', message(posted.ts) as FakeMessage, 'yes');
    await slack.clickInMessage('U0MEMBER', message(other.ts) as FakeMessage, 'yes');
    const [fromStep, fromBot] = app.received.filter((received) => received.json?.type === 'block_actions');
    expect(fromStep?.json).toMatchObject({
      function_data: {
        execution_id: run.executionId,
        function: { callback_id: 'ask_to_qualify_tender' },
        inputs,
      },
      bot_access_token: run.workflowToken,
    });
    // A message the bot posted with its own token is no step's: its clicks carry neither.
    expect(fromBot?.json).not.toHaveProperty('function_data');
    expect(fromBot?.json).not.toHaveProperty('bot_access_token');
  });
});
