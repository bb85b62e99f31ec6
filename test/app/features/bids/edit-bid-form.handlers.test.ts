import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postCard } from '../../../../src/app/features/bids/card-changes.ts';
import { openEditBid, submitEditBid } from '../../../../src/app/features/bids/edit-bid-form.ts';
import { stageNameBlock } from '../../../../src/app/features/bids/views/edit-bid-modal.ts';
import { formatClosing } from '../../../../src/app/features/bids/views/tender-closes.ts';
import { PipelineIds } from '../../../../src/app/shared/ids.ts';
import { encodeKept } from '../../../../src/app/shared/values/codec.ts';
import { formatDay } from '../../../../src/app/shared/views/bid-parts.ts';
import type { FakeView } from '../../../../src/fake-slack/types.ts';
import { KEYS } from '../../../support/fixture.ts';
import { type HandlerHarness, linkOwnKey, startHandlerHarness } from '../../../support/handler-context.ts';
import { textOf } from '../../../support/slack-text.ts';
import { bidNow, cardsOf, dayAfter, modalOpenedBy, newBid, openTenders, stageAt } from './handler-support.ts';

const BIDS = 'C0BIDS';
/** Long enough that the local service always answers within it: the quick path, whatever the machine's load. */
const PATIENT_BUDGET_MS = 60_000;
/** A day well ahead, so the past-date question never comes up. */
const LATER = `${new Date().getUTCFullYear() + 1}-06-30`;

let harness: HandlerHarness;
beforeAll(async () => {
  harness = await startHandlerHarness();
  // Max (U0MEMBER) linked Alice's own key: she may only view Bob's bid (pl-bob).
  await linkOwnKey(harness, 'U0MEMBER', KEYS.aliceAcme);
}, 60_000);
afterAll(async () => harness?.close());

async function openFor(
  userId: string,
  pipelineId: string,
  place: { channelId: string; ts: string } | null = null,
): Promise<FakeView> {
  return modalOpenedBy(harness, userId, (triggerId) =>
    openEditBid(harness.context, harness.request({ userId, channelId: BIDS, kind: 'click' }), {
      triggerId,
      pipelineId,
      place,
    }),
  );
}

/** The form as Slack would send it back: what it opened with, with `changes` typed over it. */
function valuesOf(
  view: FakeView,
  changes: { name?: string; summary?: string; targetDate?: string | null; stages?: Record<number, string> },
) {
  const values: Record<string, Record<string, unknown>> = {};
  for (const block of view.view.blocks as {
    type: string;
    block_id: string;
    element: { action_id: string; initial_value?: string; initial_date?: string };
  }[]) {
    if (block.type !== 'input') continue;
    const { element } = block;
    values[block.block_id] = {
      [element.action_id]: element.action_id.endsWith('target')
        ? { type: 'datepicker', selected_date: element.initial_date ?? null }
        : { type: 'plain_text_input', value: element.initial_value ?? null },
    };
  }
  const set = (blockId: string, actionId: string, value: unknown) => {
    values[blockId] = { [actionId]: value };
  };
  if (changes.name !== undefined)
    set(PipelineIds.nameBlock, PipelineIds.nameInput, { type: 'plain_text_input', value: changes.name });
  if (changes.summary !== undefined)
    set(PipelineIds.summaryBlock, PipelineIds.summaryInput, {
      type: 'plain_text_input',
      value: changes.summary,
    });
  if (changes.targetDate !== undefined)
    set(PipelineIds.targetBlock, PipelineIds.targetInput, {
      type: 'datepicker',
      selected_date: changes.targetDate,
    });
  for (const [number, name] of Object.entries(changes.stages ?? {}))
    set(stageNameBlock(Number(number)), PipelineIds.editStageInput, {
      type: 'plain_text_input',
      value: name,
    });
  return values;
}

async function submit(
  userId: string,
  view: FakeView,
  values: unknown,
  privateMetadata = view.view.private_metadata,
) {
  const acks: unknown[] = [];
  await submitEditBid(
    harness.context,
    harness.request({ userId }).slack,
    {
      teamId: harness.slack.teamId,
      userId,
      values,
      privateMetadata,
      viewId: view.id,
      openedBlocks: view.view.blocks,
    },
    async (answer) => {
      acks.push(answer);
    },
    PATIENT_BUDGET_MS,
  );
  return acks;
}

async function postedCard(bidId: string) {
  await postCard(harness.context, harness.request({ channelId: BIDS }), bidId);
  const card = cardsOf(harness, BIDS, bidId)[0];
  if (!card) throw new Error('no card');
  return card;
}

const linesUnder = (ts: string) =>
  harness.slack
    .threadOf(BIDS, ts)
    .filter((message) => message.ts !== ts)
    .map((message) => message.text);

describe('openEditBid ("Edit details" on a bid’s card)', () => {
  it('opens the form with the bid as it is now: name, summary, target date and each stage’s name', async () => {
    const bid = await newBid(harness, 'Edit form bid', ['Qualify', 'Write', 'Review']);
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    await client.pipelines.update(bid.id, { summary: 'Lots 1 and 2', targetSubmissionDate: LATER });
    const opened = await openFor('U0ADMIN', bid.id);
    const inputs = (
      opened.view.blocks as { type: string; block_id: string; element: Record<string, unknown> }[]
    )
      .filter((block) => block.type === 'input')
      .map((block) => [block.block_id, block.element.initial_value ?? block.element.initial_date ?? null]);
    expect(inputs).toEqual([
      [PipelineIds.nameBlock, 'Edit form bid'],
      [PipelineIds.summaryBlock, 'Lots 1 and 2'],
      [PipelineIds.targetBlock, LATER],
      [stageNameBlock(1), 'Qualify'],
      [stageNameBlock(2), 'Write'],
      [stageNameBlock(3), 'Review'],
    ]);
    expect(opened.view.callback_id).toBe(PipelineIds.editCallback);
  });

  it('a guest, an archived bid, and a bid the key cannot see: a sentence in place of the form', async () => {
    const bid = await newBid(harness, 'Edit form refusals');
    const guest = await openFor('U0GUEST', bid.id);
    expect(textOf(guest.view)).toContain('Guests can read bids but cannot change them.');
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    await client.pipelines.archive(bid.id, true);
    const archived = await openFor('U0ADMIN', bid.id);
    expect(textOf(archived.view)).toContain('is archived, so it stays as it was. Restore it first with');
    const unseen = await openFor('U0ADMIN', 'pl-beta');
    expect(textOf(unseen.view)).toContain('No bid `pl-beta` can be seen');
    for (const view of [guest, archived, unseen])
      expect(JSON.stringify(view.view)).not.toContain(PipelineIds.editStageInput);
  });
});

describe('submitEditBid (the form’s Save)', () => {
  it('writes only what changed, redraws the card and says every change in one line under it', async () => {
    const bid = await newBid(harness, 'Harbour bid', ['Qualify', 'Write']);
    const card = await postedCard(bid.id);
    const opened = await openFor('U0ADMIN', bid.id, { channelId: BIDS, ts: card.ts });
    const acks = await submit(
      'U0ADMIN',
      opened,
      valuesOf(opened, { name: '  Harbour dredging bid ', targetDate: LATER, stages: { 2: 'Pricing' } }),
    );
    expect(acks).toEqual([undefined]);
    const saved = await bidNow(harness, bid.id);
    expect(saved.name).toBe('Harbour dredging bid');
    expect(saved.targetSubmissionDate).toBe(LATER);
    expect(saved.summary).toBeNull();
    expect([stageAt(saved, 1).name, stageAt(saved, 2).name]).toEqual(['Qualify', 'Pricing']);
    expect(textOf(cardsOf(harness, BIDS, bid.id)[0])).toContain('Harbour dredging bid');
    expect(linesUnder(card.ts)).toEqual([
      `<@U0ADMIN> edited Harbour dredging bid: renamed it from “Harbour bid”; set the target date to ${formatDay(LATER)}; renamed stage 2 from “Write” to “Pricing”`,
    ]);
  });

  it('Save with nothing changed writes nothing and says nothing', async () => {
    const bid = await newBid(harness, 'Unchanged edit bid');
    const card = await postedCard(bid.id);
    const before = await bidNow(harness, bid.id);
    const updates = harness.slack.callsOf('chat.update').length;
    const opened = await openFor('U0ADMIN', bid.id, { channelId: BIDS, ts: card.ts });
    // Spaces around a name are no change: it is saved trimmed.
    expect(await submit('U0ADMIN', opened, valuesOf(opened, { name: 'Unchanged edit bid  ' }))).toEqual([
      undefined,
    ]);
    expect(await bidNow(harness, bid.id)).toEqual(before);
    expect(harness.slack.callsOf('chat.update').length).toBe(updates);
    expect(linesUnder(card.ts)).toEqual([]);
  });

  it('a field left alone never overwrites a change made meanwhile by someone else', async () => {
    const bid = await newBid(harness, 'Meanwhile bid');
    const opened = await openFor('U0ADMIN', bid.id);
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    await client.pipelines.update(bid.id, {
      summary: 'Written by Carol meanwhile',
      targetSubmissionDate: LATER,
    });
    expect(await submit('U0ADMIN', opened, valuesOf(opened, { name: 'Meanwhile bid, renamed' }))).toEqual([
      undefined,
    ]);
    const saved = await bidNow(harness, bid.id);
    expect(saved.name).toBe('Meanwhile bid, renamed');
    expect(saved.summary).toBe('Written by Carol meanwhile');
    expect(saved.targetSubmissionDate).toBe(LATER);
  });

  it('a field changed by someone else since the form opened is said, not overwritten; saved again, it is replaced', async () => {
    const bid = await newBid(harness, 'Contested bid', ['Qualify', 'Write']);
    const card = await postedCard(bid.id);
    const opened = await openFor('U0ADMIN', bid.id, { channelId: BIDS, ts: card.ts });
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    await client.pipelines.update(bid.id, { name: 'Contested bid (Carol)', targetSubmissionDate: LATER });
    await client.pipelines.updateStage(bid.id, stageAt(bid, 2).id, { name: 'Write up' });
    const mine = valuesOf(opened, { name: 'Contested bid (Ada)', stages: { 2: 'Draft' } });
    const first = await submit('U0ADMIN', opened, mine);
    expect(first).toEqual([
      {
        response_action: 'errors',
        errors: {
          [PipelineIds.nameBlock]:
            'Since this form opened, someone else changed what you are changing: the name is now “Contested bid (Carol)”; stage 2 is now named “Write up”. Nothing was saved. Save again to put yours in their place, or close the form to keep theirs.',
        },
      },
    ]);
    expect((await bidNow(harness, bid.id)).name).toBe('Contested bid (Carol)');
    expect(await submit('U0ADMIN', opened, mine)).toEqual([undefined]);
    const saved = await bidNow(harness, bid.id);
    expect([saved.name, stageAt(saved, 2).name, saved.targetSubmissionDate]).toEqual([
      'Contested bid (Ada)',
      'Draft',
      LATER,
    ]);
    // Said as what was replaced: Carol's name, not the one the form opened with.
    expect(linesUnder(card.ts)).toEqual([
      '<@U0ADMIN> edited Contested bid (Ada): renamed it from “Contested bid (Carol)”; renamed stage 2 from “Write up” to “Draft”',
    ]);
  });

  it('clears a summary and a target date emptied in the form', async () => {
    const bid = await newBid(harness, 'Clearing bid');
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    await client.pipelines.update(bid.id, { summary: 'To go', targetSubmissionDate: LATER });
    const card = await postedCard(bid.id);
    const opened = await openFor('U0ADMIN', bid.id, { channelId: BIDS, ts: card.ts });
    expect(await submit('U0ADMIN', opened, valuesOf(opened, { summary: '   ', targetDate: null }))).toEqual([
      undefined,
    ]);
    const saved = await bidNow(harness, bid.id);
    expect([saved.summary, saved.targetSubmissionDate]).toEqual([null, null]);
    expect(linesUnder(card.ts)).toEqual([
      `<@U0ADMIN> edited Clearing bid: cleared the summary; cleared the target date (was ${formatDay(LATER)})`,
    ]);
  });

  it('a summary longer than the form holds is left out of it, and left as it is', async () => {
    const bid = await newBid(harness, 'Long summary bid');
    const long = `${'Scope. '.repeat(600)}End.`;
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    await client.pipelines.update(bid.id, { summary: long });
    const opened = await openFor('U0ADMIN', bid.id);
    expect(JSON.stringify(opened.view)).not.toContain(PipelineIds.summaryInput);
    expect(textOf(opened.view)).toContain('The summary is longer than this form holds');
    expect(await submit('U0ADMIN', opened, valuesOf(opened, { name: 'Long summary bid, renamed' }))).toEqual([
      undefined,
    ]);
    expect((await bidNow(harness, bid.id)).summary).toBe(long);
  });

  it('a blank name, a blank stage and two stages of one name: a sentence under each, nothing saved', async () => {
    const bid = await newBid(harness, 'Checked edit bid', ['Qualify', 'Write', 'Review']);
    const before = await bidNow(harness, bid.id);
    const opened = await openFor('U0ADMIN', bid.id);
    const acks = await submit(
      'U0ADMIN',
      opened,
      valuesOf(opened, { name: ' ', stages: { 1: ' ', 3: 'write' } }),
    );
    expect(acks).toEqual([
      {
        response_action: 'errors',
        errors: {
          [PipelineIds.nameBlock]: 'Give the bid a name.',
          [stageNameBlock(1)]: 'Give stage 1 a name.',
          [stageNameBlock(3)]: 'Stage 2 has this name too; give each stage its own name.',
        },
      },
    ]);
    expect(await bidNow(harness, bid.id)).toEqual(before);
  });

  it('a target date in the past is asked about once; the same date saved again is taken', async () => {
    const bid = await newBid(harness, 'Past target bid');
    const opened = await openFor('U0ADMIN', bid.id);
    const past = dayAfter(new Date().toISOString().slice(0, 10), -3);
    const first = await submit('U0ADMIN', opened, valuesOf(opened, { targetDate: past }));
    expect(JSON.stringify(first)).toContain('is in the past (3 days ago). Press “Save” again to keep it');
    expect((await bidNow(harness, bid.id)).targetSubmissionDate).toBeNull();
    expect(await submit('U0ADMIN', opened, valuesOf(opened, { targetDate: past }))).toEqual([undefined]);
    expect((await bidNow(harness, bid.id)).targetSubmissionDate).toBe(past);
  });

  it('a target date moved after the tender closes is asked about once; a late date it opened with is not', async () => {
    const [tender] = await openTenders(harness, 1);
    const deadline = tender?.deadline as string;
    const bid = await newBid(harness, 'Late target edit bid', ['Qualify', 'Write'], tender?.id as string);
    const opened = await openFor('U0ADMIN', bid.id);
    expect(textOf(opened.view)).toContain(`The tender closes ${formatClosing(deadline)}.`);
    const late = dayAfter(tender?.closing as string, 2);
    const first = await submit('U0ADMIN', opened, valuesOf(opened, { targetDate: late }));
    expect(first).toEqual([
      {
        response_action: 'errors',
        errors: {
          [PipelineIds.targetBlock]: `${formatDay(late)} is after the tender closes (${formatClosing(deadline)}). Press “Save” again to keep it, or pick an earlier date.`,
        },
      },
    ]);
    expect((await bidNow(harness, bid.id)).targetSubmissionDate).toBeNull();
    expect(await submit('U0ADMIN', opened, valuesOf(opened, { targetDate: late }))).toEqual([undefined]);
    expect((await bidNow(harness, bid.id)).targetSubmissionDate).toBe(late);
    // Opened again with that date: a rename alone is saved without the question.
    const again = await openFor('U0ADMIN', bid.id);
    expect(
      await submit('U0ADMIN', again, valuesOf(again, { name: 'Late target edit bid, renamed' })),
    ).toEqual([undefined]);
    expect((await bidNow(harness, bid.id)).name).toBe('Late target edit bid, renamed');
  });

  it('a key that may only view the bid: the service’s refusal on the form, nothing saved', async () => {
    const before = await bidNow(harness, 'pl-bob');
    const opened = await openFor('U0ADMIN', 'pl-bob');
    const acks = await submit('U0MEMBER', opened, valuesOf(opened, { name: 'Alice was here' }));
    expect(acks[0]).toMatchObject({ response_action: 'errors' });
    expect(JSON.stringify(acks[0])).toContain(
      'The service did not let you change this bid with your own key',
    );
    expect((await bidNow(harness, 'pl-bob')).name).toBe(before.name);
  });

  it('a bid archived, or a stage gone, since the form opened: said on the form, nothing saved', async () => {
    const bid = await newBid(harness, 'Archived meanwhile bid');
    const opened = await openFor('U0ADMIN', bid.id);
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    await client.pipelines.archive(bid.id, true);
    const archived = await submit('U0ADMIN', opened, valuesOf(opened, { name: 'Too late' }));
    expect(JSON.stringify(archived)).toContain('is archived, so it stays as it was');
    await client.pipelines.archive(bid.id, false);
    // The form as opened for a bid whose second stage has since been taken away.
    const gone = await encodeKept(
      'editBidModal',
      { p: bid.id, s: [stageAt(bid, 1).id, 'stage-taken-away'], c: '', ts: null },
      'metadata',
      harness.context.store,
      new Date(),
    );
    const stale = await submit('U0ADMIN', opened, valuesOf(opened, { stages: { 2: 'Renamed' } }), gone);
    expect(JSON.stringify(stale)).toContain('Stage 2 was taken away from the bid since this form opened.');
    expect((await bidNow(harness, bid.id)).name).toBe('Archived meanwhile bid');
  });

  it('forged metadata: the form says it is out of date, nothing saved', async () => {
    const bid = await newBid(harness, 'Forged edit bid');
    const opened = await openFor('U0ADMIN', bid.id);
    const acks = await submit('U0ADMIN', opened, valuesOf(opened, { name: 'Forged' }), '{"p":"pl-bob"}');
    expect(acks[0]).toMatchObject({ response_action: 'update' });
    expect(textOf((acks[0] as { view: unknown }).view)).toContain('This form is out of date.');
    expect((await bidNow(harness, bid.id)).name).toBe('Forged edit bid');
  });
});
