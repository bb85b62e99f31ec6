import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PipelineIds } from '../../../../src/app/shared/ids.ts';
import { blockKitProblems } from '../../../../src/app/shared/views/block-kit-limits.ts';
import { ProcurementClient } from '../../../../src/client/procurement-client.ts';
import type { Pipeline } from '../../../../src/contract/schemas.ts';
import type { FakeMessage, FakeSlack } from '../../../../src/fake-slack/fake-slack.ts';
import { eventually, type RunningBot, startBotAsCarol } from '../../../support/bot.ts';
import { KEYS, TENDER_A } from '../../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../../support/sandbox.ts';
import { textOf } from '../../../support/slack-text.ts';

/*
 * A bid's history through the real app and the fake Slack: every change made through Tenderbot is
 * told once under each of the bid's cards, naming who made it; the card names who started the bid;
 * long notes never cost a stage its controls; dates in the past and closed tenders are said.
 */

const MEMBER = 'U0MEMBER';
const ADMIN = 'U0ADMIN';
const BIDS = 'C0BIDS';
const GENERAL = 'C0GENERAL';

let sandbox: TestSandbox;
let bot: RunningBot;
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

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON as the fake Slack keeps it.
type Element = any;

/** The card in the channel that shows the pipeline (posted for everyone, not a thread reply). */
function cardIn(slack: FakeSlack, channel: string, pipelineId: string): FakeMessage | undefined {
  return slack
    .messagesIn(channel)
    .find(
      (message) =>
        message.ephemeralTo === null &&
        message.threadTs === null &&
        message.metadata?.event_payload?.pipeline_id === pipelineId,
    );
}

function stageSelects(card: FakeMessage): Element[] {
  return card.blocks
    .map((block: Element) => block.accessory)
    .filter((element: Element) => element?.action_id?.startsWith(`${PipelineIds.stageStatus}/`));
}

function optionFor(select: Element, label: string): string {
  const option = select.options.find((candidate: Element) => candidate.text.text === label);
  if (!option) throw new Error(`no option ${label}`);
  return option.value;
}

/** The lines under a card (its thread replies), as their text. */
const linesUnder = (channel: string, card: FakeMessage) =>
  bot.slack.threadOf(channel, card.ts).map((reply) => reply.text);

/** Waits a little, so a second (wrong) line would have arrived, then gives the lines. */
async function settledLinesUnder(channel: string, card: FakeMessage): Promise<string[]> {
  await new Promise((resolve) => setTimeout(resolve, 400));
  return linesUnder(channel, card);
}

/** Reads the pipeline until `done` holds (the app writes after acknowledging). */
async function waitForService(id: string, done: (pipeline: Pipeline) => boolean): Promise<Pipeline> {
  const started = Date.now();
  for (;;) {
    const pipeline = await service.pipelines.get(id);
    if (done(pipeline)) return pipeline;
    if (Date.now() - started > 8000) throw new Error(`timed out waiting for ${id}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Opens "Start a bid" on a tender's card in #bids and resolves with the form. */
async function openStartBid(tenderId: string) {
  const before = bot.slack.messagesIn(BIDS, MEMBER).length;
  await bot.slack.slashCommand(MEMBER, BIDS, '/tender', `show ${tenderId}`);
  const detail = await eventually(
    () =>
      bot.slack
        .messagesIn(BIDS, MEMBER)
        .slice(before)
        .find(
          (message) =>
            message.ephemeralTo === MEMBER && JSON.stringify(message.blocks).includes(PipelineIds.startBid),
        ),
    'the tender’s card',
  );
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

describe('a change is told once under every card of the bid, naming who made it', () => {
  let bidsCard: FakeMessage;
  let generalCard: FakeMessage;

  it('a stage moved on the #general card: one line under the #general card and one under the #bids card', async () => {
    await bot.slack.slashCommand(MEMBER, BIDS, '/tender', 'pipeline pl-bob');
    bidsCard = await eventually(() => cardIn(bot.slack, BIDS, 'pl-bob'), 'the card in #bids');
    await bot.slack.slashCommand(ADMIN, GENERAL, '/tender', 'pipeline pl-bob');
    generalCard = await eventually(() => cardIn(bot.slack, GENERAL, 'pl-bob'), 'the card in #general');
    const select = stageSelects(generalCard)[0];
    await bot.slack.clickInMessage(ADMIN, generalCard, select.action_id, {
      selectedOption: optionFor(select, 'In progress'),
    });
    const line = '<@U0ADMIN> moved stage 1, Qualify, of Bob’s hospital cleaning bid to In progress';
    await eventually(() => linesUnder(BIDS, bidsCard).includes(line), 'the line under the #bids card');
    expect(await settledLinesUnder(GENERAL, generalCard)).toEqual([line]);
    expect(await settledLinesUnder(BIDS, bidsCard)).toEqual([line]);
  });

  it('a stage changed by command: one line under each card, naming who typed it', async () => {
    await bot.slack.slashCommand(MEMBER, BIDS, '/tender', 'pipeline stage pl-bob 2 blocked');
    const line = '<@U0MEMBER> moved stage 2, Write, of Bob’s hospital cleaning bid to Blocked';
    await eventually(
      () => linesUnder(GENERAL, generalCard).includes(line),
      'the line under the #general card',
    );
    const bids = await settledLinesUnder(BIDS, bidsCard);
    expect(bids.filter((text) => text === line)).toHaveLength(1);
    expect(linesUnder(GENERAL, generalCard).filter((text) => text === line)).toHaveLength(1);
    const answer = bot.slack
      .messagesIn(BIDS, MEMBER)
      .filter((message) => message.ephemeralTo === MEMBER)
      .at(-1);
    expect(textOf(answer as FakeMessage)).toContain('cards show it now, each with a note in its thread.');
  });

  it('the bid’s status, archive and restore, and notes, each told once under both cards', async () => {
    const lines = [
      '<@U0MEMBER> set the status of Bob’s hospital cleaning bid to Qualifying',
      '<@U0ADMIN> archived Bob’s hospital cleaning bid',
      '<@U0ADMIN> restored Bob’s hospital cleaning bid',
    ];
    await bot.slack.clickInMessage(MEMBER, bidsCard, PipelineIds.pipelineStatus, {
      selectedOption: optionFor(bidsCard.blocks[1].accessory, 'Qualifying'),
    });
    await eventually(() => linesUnder(GENERAL, generalCard).includes(lines[0] as string), 'the status line');
    await bot.slack.slashCommand(ADMIN, GENERAL, '/tender', 'pipeline archive pl-bob');
    await eventually(() => linesUnder(BIDS, bidsCard).includes(lines[1] as string), 'the archive line');
    await bot.slack.clickInMessage(
      ADMIN,
      cardIn(bot.slack, GENERAL, 'pl-bob') as FakeMessage,
      PipelineIds.restore,
    );
    await eventually(() => linesUnder(BIDS, bidsCard).includes(lines[2] as string), 'the restore line');
    const card = cardIn(bot.slack, BIDS, 'pl-bob') as FakeMessage;
    await bot.slack.clickInMessage(MEMBER, card, `${PipelineIds.stageNotes}/1`);
    const form = await eventually(
      () =>
        bot.slack
          .openModals(MEMBER)
          .find((view) => JSON.stringify(view.view.blocks).includes(PipelineIds.notesInput)),
      'the notes form',
    );
    await bot.slack.submitView(MEMBER, form.id, { [PipelineIds.notesInput]: 'Call the buyer' });
    const notesLine = '<@U0MEMBER> updated the notes of stage 1, Qualify, of Bob’s hospital cleaning bid';
    await eventually(() => linesUnder(GENERAL, generalCard).includes(notesLine), 'the notes line');
    for (const [channel, shown] of [
      [BIDS, bidsCard],
      [GENERAL, generalCard],
    ] as const) {
      const told = await settledLinesUnder(channel, shown);
      for (const line of [...lines, notesLine])
        expect(
          told.filter((text) => text === line),
          line,
        ).toHaveLength(1);
    }
  });
});

describe('at Slack’s pace of about a post a second a channel', () => {
  it('three cards of one bid in one channel, three quick changes: every line under every card, in order, and no “slow” notice', async () => {
    const bid = await service.pipelines.create({
      name: 'Paced bid',
      stages: [{ name: 'Qualify' }, { name: 'Write' }, { name: 'Price' }],
    });
    const cards: FakeMessage[] = [];
    for (let copy = 0; copy < 3; copy++) {
      await bot.slack.slashCommand(MEMBER, BIDS, '/tender', `pipeline ${bid.id}`);
      const card = await eventually(
        () => {
          const shown = bot.slack
            .messagesIn(BIDS)
            .filter(
              (message) =>
                message.ephemeralTo === null &&
                message.threadTs === null &&
                message.metadata?.event_payload?.pipeline_id === bid.id,
            );
          return shown.length > copy ? shown[copy] : undefined;
        },
        `card ${copy + 1}`,
      );
      cards.push(card);
    }
    const before = bot.slack.messagesIn(BIDS, MEMBER).length;
    // The limit Slack keeps (off by default in the tests' fake Slack, on in the workbench).
    bot.slack.postsPerSecondPerChannel = 1;
    try {
      for (const [stage, status] of [
        [1, 'In progress'],
        [2, 'Blocked'],
        [3, 'Completed'],
      ] as const) {
        const card = cards[0] as FakeMessage;
        const select = stageSelects(bot.slack.messagesIn(BIDS).find((m) => m.ts === card.ts) ?? card)[
          stage - 1
        ];
        await bot.slack.clickInMessage(MEMBER, card, select.action_id, {
          selectedOption: optionFor(select, status),
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      const lines = [
        '<@U0MEMBER> moved stage 1, Qualify, of Paced bid to In progress',
        '<@U0MEMBER> moved stage 2, Write, of Paced bid to Blocked',
        '<@U0MEMBER> moved stage 3, Price, of Paced bid to Completed',
      ];
      // Nine lines at a post a second: about nine seconds.
      for (const card of cards)
        await eventually(() => linesUnder(BIDS, card).length >= 3, 'three lines under each card', 20_000);
      for (const card of cards) expect(await settledLinesUnder(BIDS, card)).toEqual(lines);
      const notices = bot.slack
        .messagesIn(BIDS, MEMBER)
        .slice(before)
        .filter((message) => textOf(message).includes('slow to answer'));
      expect(notices).toEqual([]);
      expect(bot.logs()).not.toContain('could not add a line');
    } finally {
      bot.slack.postsPerSecondPerChannel = undefined;
    }
  }, 60_000);
});

describe('a workflow step is a change made through Tenderbot', () => {
  it('"Move a bid’s stage" is told once under each card, naming the person Slack says ran it', async () => {
    bot.slack.workflows.declare(
      parse(readFileSync(join(import.meta.dirname, '../../../../manifest.yml'), 'utf8')).functions,
    );
    // The old free "Person" input names someone else: it is never who the line names.
    const inputs = { bid: 'pl-bob', stage: '2', status: 'completed', user_id: 'U0ADMIN' };
    const { run } = await bot.slack.workflows.run('move_bid_stage', inputs, { user: MEMBER });
    const ended = await run.ended;
    expect(ended.state, ended.error ?? '').toBe('completed');
    const line = '<@U0MEMBER> moved stage 2, Write, of Bob’s hospital cleaning bid to Completed (a workflow)';
    for (const channel of [BIDS, GENERAL]) {
      const card = cardIn(bot.slack, channel, 'pl-bob') as FakeMessage;
      await eventually(() => linesUnder(channel, card).includes(line), `the line in ${channel}`);
      expect((await settledLinesUnder(channel, card)).filter((text) => text === line)).toHaveLength(1);
    }
    // Run again (another run of the workflow): the stage is already there, so nothing is told.
    const updates = bot.slack.callsOf('chat.update').length;
    const again = await bot.slack.workflows.run('move_bid_stage', inputs, { user: MEMBER });
    const endedAgain = await again.run.ended;
    expect(endedAgain.state, endedAgain.error ?? '').toBe('completed');
    expect(endedAgain.outputs?.stage_status).toBe('completed');
    for (const channel of [BIDS, GENERAL]) {
      const card = cardIn(bot.slack, channel, 'pl-bob') as FakeMessage;
      expect((await settledLinesUnder(channel, card)).filter((text) => text === line)).toHaveLength(1);
    }
    expect(bot.slack.callsOf('chat.update')).toHaveLength(updates);
  });
});

describe('who started a bid, long notes, and dates with sense', () => {
  let pipelineId = '';

  it('a target date in the past asks first; the same date again is taken', async () => {
    const form = await openStartBid(TENDER_A);
    const values = {
      [PipelineIds.nameInput]: 'History bid',
      [PipelineIds.targetInput]: '2019-03-15',
    };
    const asked = await bot.slack.submitView(MEMBER, form.id, values);
    expect(asked.json.response_action).toBe('errors');
    expect(asked.json.errors[PipelineIds.targetBlock]).toMatch(
      /^15 Mar 2019 is in the past \([\d,]+ days ago\)\. Press “Start the bid” again to keep it/,
    );
    expect((await service.pipelines.list({ q: 'History bid', archived: 'all' })).pagination.total).toBe(0);
    const taken = await bot.slack.submitView(MEMBER, form.id, values);
    expect(taken.json?.response_action).toBeUndefined();
    const card = await eventually(
      () =>
        bot.slack
          .messagesIn(BIDS)
          .find((message) => message.ephemeralTo === null && message.text.startsWith('History bid')),
      'the new bid’s card',
    );
    pipelineId = card.metadata.event_payload.pipeline_id;
    expect((await service.pipelines.get(pipelineId)).targetSubmissionDate).toBe('2019-03-15');
    // The card names the Slack person who started it, beside the service's owner (the key's maker).
    expect(textOf(card)).toContain('started by <@U0MEMBER> · owner in the service: Carol Member');
    // The Home tab names them too, beside a bid not started through Tenderbot (its owner only).
    const publishes = bot.slack.callsOf('views.publish').length;
    await bot.slack.openHome(ADMIN);
    await eventually(() => bot.slack.callsOf('views.publish').length > publishes, 'the Home tab');
    const home = textOf(bot.slack.homeOf(ADMIN)?.view);
    // Each row is one section's text (a JSON string here: no quote inside it).
    expect(home).toMatch(
      /\*History bid\*[^"]*started by <@U0MEMBER> · owner in the service: Carol Member, who made the workspace’s key"/,
    );
    expect(home).toMatch(/\*Bob’s hospital cleaning bid\*(?:(?!started by)[^"])* · owner Bob Admin"/);
  });

  it('notes of 3,000 characters on three of six stages leave six status menus, cut with what is left', async () => {
    const notes = `${'Method statement. '.repeat(170).slice(0, 2997)}END`;
    expect(notes.length).toBe(3000);
    for (const stage of [1, 2, 3]) {
      const card = cardIn(bot.slack, BIDS, pipelineId) as FakeMessage;
      const known = new Set(bot.slack.openModals(MEMBER).map((view) => view.id));
      await bot.slack.clickInMessage(MEMBER, card, `${PipelineIds.stageNotes}/${stage}`);
      const form = await eventually(
        () =>
          bot.slack
            .openModals(MEMBER)
            .find(
              (view) =>
                !known.has(view.id) && JSON.stringify(view.view.blocks).includes(PipelineIds.notesInput),
            ),
        `the notes form of stage ${stage}`,
      );
      await bot.slack.submitView(MEMBER, form.id, { [PipelineIds.notesInput]: notes });
      await waitForService(
        pipelineId,
        (pipeline) => pipeline.stages.filter((each) => each.notes === notes).length === stage,
      );
    }
    const card = await eventually(() => {
      const seen = cardIn(bot.slack, BIDS, pipelineId);
      return (
        seen && (textOf(seen).match(/more characters in Notes and due date/g) ?? []).length === 3 && seen
      );
    }, 'the card with three long notes');
    expect(stageSelects(card)).toHaveLength(6);
    expect(card.blocks.filter((block: Element) => block.block_id?.startsWith('stage-actions:'))).toHaveLength(
      6,
    );
    expect(textOf(card)).toMatch(/… 2,[0-9]{3} more characters in Notes and due date/);
    expect(textOf(card)).not.toContain('Change these with');
    expect(blockKitProblems(card.blocks, 'message')).toEqual([]);
    // The form shows them whole.
    await bot.slack.clickInMessage(MEMBER, card, `${PipelineIds.stageNotes}/2`);
    const whole = await eventually(
      () =>
        bot.slack
          .openModals(MEMBER)
          .map((view) => view.view.blocks.find((block: Element) => block.block_id === PipelineIds.notesBlock))
          .find((block: Element) => block?.element?.initial_value === notes),
      'the whole notes in the form',
    );
    expect(whole.element.initial_value.length).toBe(3000);
  });

  it('a due date in the past asks first; a due date already there is not asked about again', async () => {
    const open = async () => {
      const card = cardIn(bot.slack, BIDS, pipelineId) as FakeMessage;
      const known = new Set(bot.slack.openModals(MEMBER).map((view) => view.id));
      await bot.slack.clickInMessage(MEMBER, card, `${PipelineIds.stageNotes}/4`);
      return eventually(
        () =>
          bot.slack
            .openModals(MEMBER)
            .find(
              (view) =>
                !known.has(view.id) && JSON.stringify(view.view.blocks).includes(PipelineIds.dueInput),
            ),
        'the notes form of stage 4',
      );
    };
    const form = await open();
    const asked = await bot.slack.submitView(MEMBER, form.id, { [PipelineIds.dueInput]: '2020-01-02' });
    expect(asked.json.errors[PipelineIds.dueBlock]).toContain('2 Jan 2020 is in the past');
    const taken = await bot.slack.submitView(MEMBER, form.id, { [PipelineIds.dueInput]: '2020-01-02' });
    expect(taken.json?.response_action).toBeUndefined();
    await waitForService(pipelineId, (pipeline) =>
      pipeline.stages.some((stage) => stage.dueDate === '2020-01-02'),
    );
    // Opened again with that date: saving other notes is not asked about the date again.
    const again = await open();
    const saved = await bot.slack.submitView(MEMBER, again.id, {
      [PipelineIds.notesInput]: 'Late, agreed with the buyer',
    });
    expect(saved.json?.response_action).toBeUndefined();
  });

  it('a bid on a closed tender says so when it starts: in the form, and under its card', async () => {
    const closed = (await service.tenders.search({ status: 'closed', limit: 1 })).data[0];
    expect(closed).toBeDefined();
    const form = await openStartBid(closed?.id as string);
    const warning = await eventually(() => {
      const view = bot.slack.openModals(MEMBER).find((each) => each.id === form.id);
      return view && textOf(view.view).includes('This tender is closed') && view;
    }, 'the warning in the form');
    expect(textOf(warning.view)).toContain('a bid on it can no longer be submitted to the buyer');
    await bot.slack.submitView(MEMBER, form.id, { [PipelineIds.nameInput]: 'Closed tender bid' });
    const card = await eventually(
      () =>
        bot.slack
          .messagesIn(BIDS)
          .find((message) => message.ephemeralTo === null && message.text.startsWith('Closed tender bid')),
      'the card of the bid on a closed tender',
    );
    const line = await eventually(
      () => linesUnder(BIDS, card).find((text) => text.includes('started on a closed tender')),
      'the line under its card',
    );
    expect(line).toContain('This tender is closed');
  });
});
