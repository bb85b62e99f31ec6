import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineIds } from '../../../../src/app/shared/ids.ts';
import { viewProblems } from '../../../../src/app/shared/views/block-kit-limits.ts';
import { ProcurementClient } from '../../../../src/client/procurement-client.ts';
import type { FakeView } from '../../../../src/fake-slack/fake-slack.ts';
import { eventually, type RunningBot, startBotAsCarol } from '../../../support/bot.ts';
import { KEYS, TENDER_B } from '../../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../../support/sandbox.ts';
import { type ServiceProxy, startServiceProxy } from '../../../support/service-proxy.ts';

const MEMBER = 'U0MEMBER';
const CHANNEL = 'C0BIDS';

let sandbox: TestSandbox;
/** Fails or holds pipeline creations on cue. */
let proxy: ServiceProxy;
let bot: RunningBot;
let service: ProcurementClient;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  proxy = await startServiceProxy(
    sandbox.baseUrl,
    (method, url) => method === 'POST' && url === '/v1/pipelines',
  );
  bot = await startBotAsCarol(sandbox, proxy.url);
  service = new ProcurementClient({ baseUrl: sandbox.baseUrl, apiKey: KEYS.carolMemberAcme });
}, 60_000);

afterAll(async () => {
  await bot?.stop();
  await proxy?.stop();
  await service?.close();
  await sandbox?.stop();
});

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON as the fake Slack keeps it.
type Json = any;

/** Opens "Start a bid" on a tender card and resolves with the filled form. */
async function openForm(): Promise<FakeView> {
  const before = bot.slack.messagesIn(CHANNEL, MEMBER).length;
  const sent = await bot.slack.slashCommand(MEMBER, CHANNEL, '/tender', `show ${TENDER_B}`);
  const detail = await eventually(() => bot.slack.answerTo(sent, CHANNEL, MEMBER, before), 'the tender');
  const known = new Set(bot.slack.openModals(MEMBER).map((view) => view.id));
  await bot.slack.clickInMessage(MEMBER, detail, PipelineIds.startBid);
  return eventually(
    () =>
      bot.slack
        .openModals(MEMBER)
        .find(
          (view) => !known.has(view.id) && JSON.stringify(view.view.blocks).includes(PipelineIds.stagesInput),
        ),
    'the start-a-bid form',
  );
}

const inputValue = (view: Json, actionId: string) =>
  view.blocks.find((block: Json) => block.element?.action_id === actionId)?.element.initial_value;

describe('start a bid while the service fails or is slow', () => {
  it('a 503 keeps the modal open with a sentence on the form; submitting again makes exactly one bid', async () => {
    const form = await openForm();
    const typed = {
      [PipelineIds.nameInput]: 'Northgate bid',
      [PipelineIds.summaryInput]: 'Everything I typed',
      [PipelineIds.stagesInput]: 'Qualify | 1\nWrite | 4',
    };
    proxy.fail = true;
    const seen = proxy.seen;
    const answer = await bot.slack.submitView(MEMBER, form.id, typed);
    expect(proxy.seen).toBeGreaterThan(seen);
    expect(answer.json.response_action).toBe('errors');
    expect(answer.json.errors[PipelineIds.nameBlock]).toContain('What you typed is kept');
    expect(bot.slack.openModals(MEMBER).map((view) => view.id)).toContain(form.id);
    expect((await service.pipelines.list({ q: 'Northgate' })).pagination.total).toBe(0);

    proxy.fail = false;
    const again = await bot.slack.submitView(MEMBER, form.id, typed);
    expect(again.status).toBe(200);
    expect(again.json?.response_action).toBeUndefined();
    await eventually(
      () => bot.slack.messagesIn(CHANNEL).find((message) => message.text.startsWith('Northgate bid')),
      'the card',
    );
    const listed = await service.pipelines.list({ q: 'Northgate' });
    expect(listed.data.length).toBe(1);
    expect(listed.data[0]?.summary).toBe('Everything I typed');
  });

  it('a slow failure: the modal says it is working within 3 s, then shows the form again with the text kept', async () => {
    const form = await openForm();
    const typed = {
      [PipelineIds.nameInput]: 'Eastfield bid',
      [PipelineIds.summaryInput]: 'Kept through a slow failure',
      [PipelineIds.stagesInput]: 'Only stage | 3',
    };
    proxy.fail = true;
    proxy.delayMs = 2600;
    try {
      const answer = await bot.slack.submitView(MEMBER, form.id, typed);
      // Answered, not the receiver's 404 after 3 s: acknowledged in time, with the window's update.
      expect(answer.status).toBe(200);
      expect(answer.json.response_action).toBe('update');
      const updates = bot.slack.callsOf('views.update').length;
      const reopened = await eventually(
        () =>
          bot.slack
            .callsOf('views.update')
            .slice(updates)
            .find((call) => call.args.view_id === form.id),
        'the form again',
        20_000,
      );
      const view = reopened.args.view;
      expect(JSON.stringify(view.blocks)).toContain(':warning:');
      expect(inputValue(view, PipelineIds.nameInput)).toBe('Eastfield bid');
      expect(inputValue(view, PipelineIds.summaryInput)).toBe('Kept through a slow failure');
      expect(inputValue(view, PipelineIds.stagesInput)).toBe('Only stage | 3');
      expect(viewProblems(view)).toEqual([]);
    } finally {
      proxy.fail = false;
      proxy.delayMs = 0;
    }
    expect((await service.pipelines.list({ q: 'Eastfield' })).pagination.total).toBe(0);
  }, 30_000);

  it('a slow success: working view, then the card in the channel and the modal says so', async () => {
    const form = await openForm();
    proxy.delayMs = 2600;
    try {
      const answer = await bot.slack.submitView(MEMBER, form.id, {
        [PipelineIds.nameInput]: 'Westbrook bid',
        [PipelineIds.stagesInput]: 'One | 1',
      });
      expect(answer.json.response_action).toBe('update');
      await eventually(
        () => bot.slack.messagesIn(CHANNEL).find((message) => message.text.startsWith('Westbrook bid')),
        'the card',
        20_000,
      );
      await eventually(
        () =>
          bot.slack
            .callsOf('views.update')
            .find(
              (call) =>
                call.args.view_id === form.id &&
                JSON.stringify(call.args.view).includes('The bid is started'),
            ),
        'the modal saying it is done',
      );
    } finally {
      proxy.delayMs = 0;
    }
    expect((await service.pipelines.list({ q: 'Westbrook' })).pagination.total).toBe(1);
  }, 30_000);
});
