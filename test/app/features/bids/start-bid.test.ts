import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineIds } from '../../../../src/app/shared/ids.ts';
import { formatDay } from '../../../../src/app/shared/views/bid-parts.ts';
import { ProcurementClient } from '../../../../src/client/procurement-client.ts';
import type { FakeMessage } from '../../../../src/fake-slack/fake-slack.ts';
import { eventually, type RunningBot, startBotAsCarol } from '../../../support/bot.ts';
import { KEYS, TENDER_A } from '../../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../../support/sandbox.ts';
import { textOf } from '../../../support/slack-text.ts';
import { cardsOf, type Element, nextFor, payloadProblems } from './card-support.ts';

/* "Start a bid" on a tender card, through the real app and the fake Slack: the form, its checks, one bid per form. */

const MEMBER = 'U0MEMBER';
const BIDS = 'C0BIDS';

let sandbox: TestSandbox;
let bot: RunningBot;
/** The same key the bot uses (Carol, a member of Acme). */
let service: ProcurementClient;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  bot = await startBotAsCarol(sandbox);
  service = new ProcurementClient({ baseUrl: sandbox.baseUrl, apiKey: KEYS.carolMemberAcme });
}, 60_000);

afterAll(async () => {
  await bot?.stop();
  await service?.close();
  await sandbox?.stop();
});

/** Types `/tender TEXT` and resolves with the answer only that person sees. */
async function command(user: string, channel: string, text: string): Promise<FakeMessage> {
  const before = bot.slack.messagesIn(channel, user).length;
  const answer = await bot.slack.slashCommand(user, channel, '/tender', text);
  expect(answer.status).toBe(200);
  return nextFor(bot.slack, user, channel, before, `an answer to /tender ${text}`);
}

describe('start a bid from a tender card', () => {
  let pipelineId = '';

  it('opens the modal at once, prefilled from the tender; bad stages show on their field', async () => {
    const detail = await command(MEMBER, BIDS, `show ${TENDER_A}`);
    const tender = await service.tenders.get(TENDER_A);
    await bot.slack.clickInMessage(MEMBER, detail, PipelineIds.startBid);
    // Slack's trigger lasts 3 s, and the fake refuses it after that (expired_trigger_id): the
    // modal below is open, so its loading view was opened within them.
    await eventually(() => bot.slack.callsOf('views.open').length > 0, 'the modal opened');
    const modal = await eventually(
      () =>
        bot.slack
          .openModals(MEMBER)
          .find((view) => JSON.stringify(view.view.blocks).includes(PipelineIds.stagesInput)),
      'the start-a-bid form',
    );
    expect(modal.view.title.text).toBe('Start a bid');
    expect(modal.view.submit.text).toBe('Start the bid');
    const inputs = modal.view.blocks.filter((block: Element) => block.type === 'input');
    expect(inputs.length).toBe(4);
    expect(inputs.map((block: Element) => block.label.text)).toEqual([
      'Bid name',
      'Summary',
      'Target submission date',
      'Stages',
    ]);
    expect(inputs[0].element.initial_value).toContain(tender.title.slice(0, 50));
    expect(inputs[3].element.initial_value).toContain('Draft response | 5');

    const refused = await bot.slack.submitView(MEMBER, modal.id, {
      [PipelineIds.nameInput]: 'Riverside wards bid',
      [PipelineIds.stagesInput]: 'Qualify | 2\nDraft | soon',
    });
    expect(refused.json.response_action).toBe('errors');
    expect(refused.json.errors[PipelineIds.stagesBlock]).toContain('Line 2');
    const noName = await bot.slack.submitView(MEMBER, modal.id, { [PipelineIds.nameInput]: '   ' });
    expect(noName.json.errors[PipelineIds.nameBlock]).toBe('Give the bid a name.');
    const listed = await service.pipelines.list({ q: 'Riverside wards bid', archived: 'all' });
    expect(listed.pagination.total).toBe(0);
  });

  it('a double submit (the same request twice) makes one bid and posts one card', async () => {
    const modal = bot.slack
      .openModals(MEMBER)
      .find((view) => JSON.stringify(view.view.blocks).includes(PipelineIds.stagesInput));
    expect(modal).toBeDefined();
    // The tender's closing day: in time (a later one would first be asked about).
    const closing = ((await service.tenders.get(TENDER_A)).deadline as string).slice(0, 10);
    const values = {
      [PipelineIds.nameInput]: 'Riverside wards bid',
      [PipelineIds.summaryInput]: 'Lead: <@U0MEMBER> & team',
      [PipelineIds.targetInput]: closing,
      [PipelineIds.stagesInput]: 'Qualify | 2\nDraft | 5\n\nReview',
    };
    // Two submissions of the same form at the same moment (a double click on submit).
    const answers = await Promise.all([
      bot.slack.submitView(MEMBER, modal?.id as string, values),
      bot.slack.submitView(MEMBER, modal?.id as string, values),
    ]);
    for (const answer of answers) expect(answer.status).toBe(200);
    const card = await eventually(
      () =>
        bot.slack
          .messagesIn(BIDS)
          .find((message) => message.ephemeralTo === null && message.text.startsWith('Riverside wards bid')),
      'the new bid’s card',
    );
    pipelineId = card.metadata.event_payload.pipeline_id;
    const listed = await service.pipelines.list({ q: 'Riverside wards bid', archived: 'all' });
    expect(listed.data.length).toBe(1);
    expect(listed.pagination.total).toBe(1);
    const pipeline = await service.pipelines.get(pipelineId);
    expect(pipeline.stages.map((stage) => [stage.name, stage.expectedDurationDays])).toEqual([
      ['Qualify', 2],
      ['Draft', 5],
      ['Review', null],
    ]);
    expect(pipeline.targetSubmissionDate).toBe(closing);
    expect(pipeline.tenderId).toBe(TENDER_A);
    // Give a slow second submission time to (wrongly) post a second card, then count.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(cardsOf(bot.slack, BIDS, pipelineId).length).toBe(1);
    const shown = textOf(card);
    expect(shown).toContain('▱▱▱ 0/3 done');
    expect(shown).toContain(`${formatDay(closing)} · in `);
    expect(shown).not.toContain('after the tender closes');
    expect(shown).toContain('Lead: &lt;@U0MEMBER&gt; &amp; team');
  });
});

describe('a double click on Start a bid', () => {
  const forms = () =>
    bot.slack
      .openModals(MEMBER)
      .filter((view) => JSON.stringify(view.view.blocks).includes(PipelineIds.stagesInput));
  const values = (name: string) => ({
    [PipelineIds.nameInput]: name,
    [PipelineIds.stagesInput]: 'Qualify | 2',
  });
  const named = async (name: string) =>
    (await service.pipelines.list({ q: name, archived: 'all' })).data.filter((bid) => bid.name === name);

  it('opens two forms that start one bid; a click after it started starts another (a second lot)', async () => {
    const detail = await command(MEMBER, BIDS, `show ${TENDER_A}`);
    expect(forms()).toHaveLength(0);
    await Promise.all([
      bot.slack.clickInMessage(MEMBER, detail, PipelineIds.startBid),
      bot.slack.clickInMessage(MEMBER, detail, PipelineIds.startBid),
    ]);
    const [first, second] = await eventually(() => (forms().length === 2 ? forms() : null), 'two forms');
    for (const form of [first, second]) {
      const answer = await bot.slack.submitView(MEMBER, form?.id as string, values('Twin click bid'));
      expect(answer.status).toBe(200);
    }
    const twins = await eventually(async () => {
      const found = await named('Twin click bid');
      return found.length > 0 ? found : null;
    }, 'the bid');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await named('Twin click bid')).toHaveLength(1);
    expect(cardsOf(bot.slack, BIDS, twins?.[0]?.id as string)).toHaveLength(1);

    // Two forms, two names: the second is told its click already started a bid, and nothing more is started.
    await Promise.all([
      bot.slack.clickInMessage(MEMBER, detail, PipelineIds.startBid),
      bot.slack.clickInMessage(MEMBER, detail, PipelineIds.startBid),
    ]);
    const [lotA, lotB] = await eventually(() => (forms().length === 2 ? forms() : null), 'two more forms');
    expect((await bot.slack.submitView(MEMBER, lotA?.id as string, values('Lot A bid'))).status).toBe(200);
    await eventually(async () => (await named('Lot A bid')).length === 1, 'the second lot’s bid');
    const refused = await bot.slack.submitView(MEMBER, lotB?.id as string, values('Lot B bid'));
    // Named: the bid its twin started.
    const [lotABid] = await named('Lot A bid');
    const card = await eventually(() => cardsOf(bot.slack, BIDS, lotABid?.id as string)[0], 'its card');
    const reference = /BID-\d+/.exec(textOf(card))?.[0];
    expect(reference).toBeDefined();
    expect(JSON.stringify(refused.json)).toContain(`This click already started ${reference} (a double click`);
    expect(await named('Lot B bid')).toHaveLength(0);
  });
});

describe('Slack’s limits', () => {
  it('every message and window the app sent is within them', () => {
    // The form drawn over its loading view.
    expect(bot.slack.callsOf('views.update').length).toBeGreaterThan(0);
    expect(payloadProblems(bot.slack)).toEqual([]);
  });
});
