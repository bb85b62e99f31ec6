import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postCard } from '../../../../src/app/features/bids/card-changes.ts';
import { openStageNotes, submitStageNotes } from '../../../../src/app/features/bids/stage-notes-form.ts';
import { formatClosing } from '../../../../src/app/features/bids/views/tender-closes.ts';
import { PipelineIds } from '../../../../src/app/shared/ids.ts';
import { formatDay } from '../../../../src/app/shared/views/bid-parts.ts';
import type { FakeView } from '../../../../src/fake-slack/types.ts';
import { KEYS } from '../../../support/fixture.ts';
import { type HandlerHarness, linkOwnKey, startHandlerHarness } from '../../../support/handler-context.ts';
import { textOf } from '../../../support/slack-text.ts';
import { bidNow, cardsOf, dayAfter, modalOpenedBy, newBid, openTenders, stageAt } from './handler-support.ts';

const BIDS = 'C0BIDS';
/** Long enough that the local service always answers within it: the quick path, whatever the machine's load. */
const PATIENT_BUDGET_MS = 60_000;

let harness: HandlerHarness;
beforeAll(async () => {
  harness = await startHandlerHarness();
  // Max (U0MEMBER) linked Alice's own key: she may only view Bob's bid (pl-bob).
  await linkOwnKey(harness, 'U0MEMBER', KEYS.aliceAcme);
}, 60_000);
afterAll(async () => harness?.close());

async function openFor(
  userId: string,
  ref: { p: string; s: string },
  place: { channelId: string; ts: string } | null = null,
): Promise<FakeView> {
  return modalOpenedBy(harness, userId, (triggerId) =>
    openStageNotes(harness.context, harness.request({ userId, channelId: BIDS, kind: 'click' }), {
      triggerId,
      ref,
      place,
    }),
  );
}

function valuesOf(notes: string, dueDate: string | null) {
  return {
    [PipelineIds.notesBlock]: { [PipelineIds.notesInput]: { type: 'plain_text_input', value: notes } },
    [PipelineIds.dueBlock]: { [PipelineIds.dueInput]: { type: 'datepicker', selected_date: dueDate } },
  };
}

async function submit(
  userId: string,
  view: FakeView,
  values: unknown,
  privateMetadata = view.view.private_metadata,
) {
  const acks: unknown[] = [];
  await submitStageNotes(
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

/** A day well ahead, so the past-date question never comes up. */
const LATER = `${new Date().getUTCFullYear() + 1}-06-30`;

describe('openStageNotes ("Notes and due date" on a stage)', () => {
  it('opens the form showing the stage as it is now, its notes and due date', async () => {
    const bid = await newBid(harness, 'Notes form bid');
    const stage = stageAt(bid, 2);
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    await client.pipelines.updateStage(bid.id, stage.id, { notes: 'Ask about TUPE', dueDate: LATER });
    const opened = await openFor('U0ADMIN', { p: bid.id, s: stage.id });
    const read = JSON.stringify(opened.view);
    expect(read).toContain('Ask about TUPE');
    expect(read).toContain(LATER);
    expect(read).toContain(PipelineIds.notesInput);
    expect(opened.view.private_metadata).not.toBe('');
  });

  it('a stage that is not part of the bid (gone, or forged): says so in place of the form', async () => {
    const bid = await newBid(harness, 'Notes form missing stage');
    const opened = await openFor('U0ADMIN', { p: bid.id, s: 'stage-forged' });
    expect(textOf(opened.view)).toContain('That stage is no longer part of the bid.');
    expect(JSON.stringify(opened.view)).not.toContain(PipelineIds.notesInput);
  });

  it('a bid the key cannot see: names the id, no form', async () => {
    const opened = await openFor('U0ADMIN', { p: 'pl-beta', s: 'any' });
    expect(textOf(opened.view)).toContain('No bid `pl-beta` can be seen');
    expect(JSON.stringify(opened.view)).not.toContain(PipelineIds.notesInput);
  });

  it('a guest gets a sentence in place of the form', async () => {
    const bid = await newBid(harness, 'Notes form guest');
    const opened = await openFor('U0GUEST', { p: bid.id, s: stageAt(bid, 1).id });
    expect(textOf(opened.view)).toContain('Guests can read bids but cannot change them.');
    expect(JSON.stringify(opened.view)).not.toContain(PipelineIds.notesInput);
  });
});

describe('submitStageNotes (the form’s Save)', () => {
  it('saves the notes and due date, redraws the card and tells the change under it', async () => {
    const bid = await newBid(harness, 'Notes saving bid');
    await postCard(harness.context, harness.request({ channelId: BIDS }), bid.id);
    const card = cardsOf(harness, BIDS, bid.id)[0];
    if (!card) throw new Error('no card');
    const stage = stageAt(bid, 1);
    const opened = await openFor('U0ADMIN', { p: bid.id, s: stage.id }, { channelId: BIDS, ts: card.ts });
    const updatesBefore = harness.slack.callsOf('chat.update').length;
    const acks = await submit('U0ADMIN', opened, valuesOf('  Call the buyer on Monday  ', LATER));
    expect(acks).toEqual([undefined]);
    const saved = stageAt(await bidNow(harness, bid.id), 1);
    expect(saved.notes).toBe('Call the buyer on Monday');
    expect(saved.dueDate).toBe(LATER);
    expect(harness.slack.callsOf('chat.update').length).toBeGreaterThan(updatesBefore);
    const thread = harness.slack.threadOf(BIDS, card.ts).filter((message) => message.ts !== card.ts);
    expect(thread.at(-1)?.text).toBe(
      `<@U0ADMIN> set the due date of stage 1, Qualify, of Notes saving bid to ${formatDay(LATER)}, and updated that stage’s notes`,
    );
  });

  it('notes longer than the form holds (written elsewhere) are left out of it and kept whole; the due date still saves', async () => {
    const bid = await newBid(harness, 'Long notes bid');
    const stage = stageAt(bid, 1);
    const long = `${'Long note. '.repeat(420)}END`;
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    await client.pipelines.updateStage(bid.id, stage.id, { notes: long });
    const opened = await openFor('U0ADMIN', { p: bid.id, s: stage.id });
    // No field to edit them in: cut to 3,000, they would be saved cut.
    expect(JSON.stringify(opened.view.blocks)).not.toContain(PipelineIds.notesInput);
    expect(textOf(opened.view)).toContain(
      'The notes are longer than this form holds (4,623 characters), so they are not shown here and stay as they are.',
    );
    // Slack sends no value for a field the form does not have: only the date.
    const acks = await submit('U0ADMIN', opened, {
      [PipelineIds.dueBlock]: { [PipelineIds.dueInput]: { type: 'datepicker', selected_date: LATER } },
    });
    expect(acks).toEqual([undefined]);
    const saved = stageAt(await bidNow(harness, bid.id), 1);
    expect(saved.notes).toBe(long);
    expect(saved.dueDate).toBe(LATER);
  });

  it('Save with nothing changed writes nothing and tells nothing; one field changed is told as that field alone', async () => {
    const bid = await newBid(harness, 'Notes unchanged bid');
    const stage = stageAt(bid, 2);
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    await client.pipelines.updateStage(bid.id, stage.id, { notes: 'Ask about TUPE', dueDate: LATER });
    await postCard(harness.context, harness.request({ channelId: BIDS }), bid.id);
    const card = cardsOf(harness, BIDS, bid.id)[0];
    if (!card) throw new Error('no card');
    const place = { channelId: BIDS, ts: card.ts };
    const linesUnder = () =>
      harness.slack
        .threadOf(BIDS, card.ts)
        .filter((message) => message.ts !== card.ts)
        .map((message) => message.text);
    const before = stageAt(await bidNow(harness, bid.id), 2);
    const updatesBefore = harness.slack.callsOf('chat.update').length;
    // Trailing spaces are no change: the notes are saved trimmed.
    const unchanged = await openFor('U0ADMIN', { p: bid.id, s: stage.id }, place);
    expect(await submit('U0ADMIN', unchanged, valuesOf('Ask about TUPE  ', LATER))).toEqual([undefined]);
    expect(stageAt(await bidNow(harness, bid.id), 2)).toEqual(before);
    expect(harness.slack.callsOf('chat.update').length).toBe(updatesBefore);
    expect(linesUnder()).toEqual([]);

    const dueOnly = await openFor('U0ADMIN', { p: bid.id, s: stage.id }, place);
    const sooner = dayAfter(LATER, -10);
    expect(await submit('U0ADMIN', dueOnly, valuesOf('Ask about TUPE', sooner))).toEqual([undefined]);
    const notesOnly = await openFor('U0ADMIN', { p: bid.id, s: stage.id }, place);
    expect(await submit('U0ADMIN', notesOnly, valuesOf('Ask about TUPE and pensions', sooner))).toEqual([
      undefined,
    ]);
    const cleared = await openFor('U0ADMIN', { p: bid.id, s: stage.id }, place);
    expect(await submit('U0ADMIN', cleared, valuesOf('Ask about TUPE and pensions', null))).toEqual([
      undefined,
    ]);
    const saved = stageAt(await bidNow(harness, bid.id), 2);
    expect(saved.notes).toBe('Ask about TUPE and pensions');
    expect(saved.dueDate).toBeNull();
    expect(linesUnder()).toEqual([
      `<@U0ADMIN> set the due date of stage 2, Write, of Notes unchanged bid to ${formatDay(sooner)}`,
      '<@U0ADMIN> updated the notes of stage 2, Write, of Notes unchanged bid',
      '<@U0ADMIN> cleared the due date of stage 2, Write, of Notes unchanged bid',
    ]);
  });

  it('notes changed by someone else since the form opened are said, not overwritten; saved again, they are replaced', async () => {
    const bid = await newBid(harness, 'Contested notes bid');
    const stage = stageAt(bid, 2);
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    await client.pipelines.updateStage(bid.id, stage.id, { notes: 'Ask about TUPE' });
    const opened = await openFor('U0ADMIN', { p: bid.id, s: stage.id });
    await client.pipelines.updateStage(bid.id, stage.id, { notes: 'Ada: the buyer called back <!here>' });
    const first = await submit('U0ADMIN', opened, valuesOf('Max: pricing first', null));
    expect(first).toEqual([
      {
        response_action: 'errors',
        errors: {
          [PipelineIds.notesBlock]:
            'Since this form opened, someone else changed what you are changing: the notes now read “Ada: the buyer called back <!here>”. Nothing was saved. Save again to put yours in their place, or close the form to keep theirs.',
        },
      },
    ]);
    expect(stageAt(await bidNow(harness, bid.id), 2).notes).toBe('Ada: the buyer called back <!here>');
    expect(await submit('U0ADMIN', opened, valuesOf('Max: pricing first', null))).toEqual([undefined]);
    expect(stageAt(await bidNow(harness, bid.id), 2).notes).toBe('Max: pricing first');
  });

  it('notes over 3,000 characters, or a date not from the calendar: a sentence under the field, nothing saved', async () => {
    const bid = await newBid(harness, 'Notes too long bid');
    const stage = stageAt(bid, 1);
    const opened = await openFor('U0ADMIN', { p: bid.id, s: stage.id });
    const long = await submit('U0ADMIN', opened, valuesOf('x'.repeat(3001), null));
    expect(long).toEqual([
      {
        response_action: 'errors',
        errors: { [PipelineIds.notesBlock]: 'Notes hold 3,000 characters at most.' },
      },
    ]);
    // Slack's date picker sends neither; a forged 31 February reached the service before.
    for (const day of ['30/06/2030', '2027-02-31']) {
      const badDay = await submit('U0ADMIN', opened, valuesOf('fine', day));
      expect(badDay, day).toEqual([
        { response_action: 'errors', errors: { [PipelineIds.dueBlock]: 'Pick the date from the calendar.' } },
      ]);
    }
    expect(stageAt(await bidNow(harness, bid.id), 1).notes ?? null).toBeNull();
  });

  it('forged metadata: the form says it is out of date, nothing saved', async () => {
    const bid = await newBid(harness, 'Notes forged bid');
    const stage = stageAt(bid, 1);
    const opened = await openFor('U0ADMIN', { p: bid.id, s: stage.id });
    const acks = await submit('U0ADMIN', opened, valuesOf('Forged', null), 'not-a-real-metadata');
    expect(acks[0]).toMatchObject({ response_action: 'update' });
    expect(textOf((acks[0] as { view: unknown }).view)).toContain('This form is out of date.');
    expect(stageAt(await bidNow(harness, bid.id), 1).notes ?? null).toBeNull();
  });

  it('a key that may only view the bid: the service’s refusal is said on the form, nothing saved', async () => {
    const before = stageAt(await bidNow(harness, 'pl-bob'), 1);
    const opened = await openFor('U0ADMIN', { p: 'pl-bob', s: before.id });
    const acks = await submit('U0MEMBER', opened, valuesOf('Alice was here', null));
    expect(acks).toHaveLength(1);
    expect(acks[0]).toMatchObject({ response_action: 'errors' });
    expect(JSON.stringify(acks[0])).toContain(
      'The service did not let you change this bid with your own key',
    );
    expect(stageAt(await bidNow(harness, 'pl-bob'), 1).notes).toBe(before.notes);
  });
});

describe('a stage due after the tender closes', () => {
  it('the form names the deadline; a later due date is saved at once and flagged on the card', async () => {
    const [tender] = await openTenders(harness, 1);
    const closing = tender?.closing as string;
    const bid = await newBid(harness, 'Late stage bid', ['Qualify', 'Draft response'], tender?.id as string);
    await postCard(harness.context, harness.request({ channelId: BIDS }), bid.id);
    const card = cardsOf(harness, BIDS, bid.id)[0];
    if (!card) throw new Error('no card');
    const stage = stageAt(bid, 2);
    const opened = await openFor('U0ADMIN', { p: bid.id, s: stage.id }, { channelId: BIDS, ts: card.ts });
    expect(textOf(opened.view)).toContain(`The tender closes ${formatClosing(tender?.deadline as string)}.`);
    const late = dayAfter(closing, 27);
    // Taken at once: a stage after the deadline may be meant (a presentation, clarifications).
    expect(await submit('U0ADMIN', opened, valuesOf('Needs the pricing first', late))).toEqual([undefined]);
    expect(stageAt(await bidNow(harness, bid.id), 2).dueDate).toBe(late);
    const redrawn = cardsOf(harness, BIDS, bid.id)[0];
    if (!redrawn) throw new Error('no card');
    const stageLine = (redrawn.blocks as { text?: { text: string } }[])
      .map((block) => block.text?.text ?? '')
      .find((text) => text.includes('Draft response'));
    expect(stageLine).toContain(
      `due ${formatDay(late)} :warning: after the tender closes (${formatDay(closing)})`,
    );
  });

  it('a due date on or before the closing day is saved at once', async () => {
    const [, tender] = await openTenders(harness, 2);
    const bid = await newBid(harness, 'In time stage bid', ['Qualify'], tender?.id as string);
    const opened = await openFor('U0ADMIN', { p: bid.id, s: stageAt(bid, 1).id });
    expect(await submit('U0ADMIN', opened, valuesOf('', tender?.closing as string))).toEqual([undefined]);
    expect(stageAt(await bidNow(harness, bid.id), 1).dueDate).toBe(tender?.closing);
  });
});
