import type { Pipeline, Stage } from '../../../../contract/schemas.ts';
import { PipelineIds } from '../../../shared/ids.ts';
import { STATUS_LABELS } from '../../../shared/views/bid-parts.ts';
import {
  clip,
  clipMrkdwn,
  code,
  joinMrkdwn,
  type Mrkdwn,
  mrkdwn,
  text as plain,
  safeText,
} from '../../../shared/views/mrkdwn.ts';
import type { SafeModalView as ModalView } from '../../../shared/views/safe-blocks.ts';
import { type Block, contextLine, section } from '../../../shared/views/tender-card.ts';
import { closingHint } from './tender-closes.ts';

/** The forms' buttons, named by the questions that ask to press them again. */
export const START_BID_BUTTON = 'Start the bid';
export const SAVE_BUTTON = 'Save';

/** The stages a new bid starts with; the person edits them in the modal. */
export const DEFAULT_STAGE_TEMPLATE = [
  'Qualify the opportunity | 2',
  'Bid / no-bid decision | 1',
  'Draft response | 5',
  'Pricing | 3',
  'Review and sign-off | 2',
  'Submit | 1',
].join('\n');

/** What the person typed (or what the modal starts with). */
export interface StartBidFields {
  name: string;
  summary: string;
  targetDate: string | null;
  stages: string;
}

const START_TITLE = 'Start a bid';

/** Shown at once when "Start a bid" is clicked, while the tender is read (the trigger lasts 3 s). */
export function startBidLoadingView(privateMetadata: string): ModalView {
  return {
    type: 'modal',
    callback_id: PipelineIds.startBidCallback,
    private_metadata: privateMetadata,
    title: { type: 'plain_text', text: START_TITLE },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [section(mrkdwn`Reading the tender…`)],
  };
}

/** A modal that only says something (a refusal, or that the tender is gone). */
export function sentenceView(title: string, sentence: Mrkdwn): ModalView {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: clip(title, 24) },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [section(sentence)],
  };
}

/** A bid already running for the tender a new one is started on, as the form names it. */
export interface RunningBid {
  /** `BID-3`. */
  reference: string;
  name: string;
  status: Pipeline['status'];
  /** `started by @alice · owner Carol Jones`, as on its card. */
  startedBy: Mrkdwn;
}

/** Running bids the form names; the others are counted. */
const RUNNING_NAMED = 3;

/**
 * `BID-3 “Hospital cleaning” is already running for this tender (Bidding · owner Carol).`, or the
 * count and the first few when there are several; then that another can still be started.
 */
export function runningBidsSentence(bids: readonly RunningBid[]): Mrkdwn {
  const named = joinMrkdwn(
    bids
      .slice(0, RUNNING_NAMED)
      .map(
        (bid) =>
          mrkdwn`${code(bid.reference, 40)} “${safeText(bid.name, 150)}” (${plain(STATUS_LABELS[bid.status])} · ${bid.startedBy})`,
      ),
    mrkdwn`, `,
  );
  const more = bids.length - RUNNING_NAMED;
  const others = more > 0 ? mrkdwn` and ${more} more (${code('/tender pipelines')} lists them)` : mrkdwn``;
  const running =
    bids.length === 1
      ? mrkdwn`${named} is already running for this tender.`
      : mrkdwn`${bids.length} bids are already running for this tender: ${named}${others}.`;
  return mrkdwn`${running} You can still start another one (for another lot, say).`;
}

/**
 * The "Start a bid" modal: name, summary, target submission date, and the stages (one a line,
 * `name | days`). `problem` (a failure of the service, or a closed tender) and `running` (bids
 * already running for the tender) show above the fields, `notes` under the tender's name; the
 * fields keep what was typed.
 */
export function startBidModal(args: {
  privateMetadata: string;
  fields: StartBidFields;
  tenderTitle: string | null;
  problem?: Mrkdwn;
  running?: Mrkdwn;
  notes?: readonly Mrkdwn[];
  /** The tender's deadline (an instant) while it is ahead: said under the target date, which should not pass it. */
  tenderCloses?: string | null;
}): ModalView {
  const { fields } = args;
  const blocks: Block[] = [];
  if (args.problem) blocks.push(section(mrkdwn`:warning: ${args.problem}`));
  if (args.running) blocks.push(section(clipMrkdwn(mrkdwn`:warning: ${args.running}`, 3000)));
  if (args.tenderTitle) blocks.push(contextLine(mrkdwn`For the tender *${safeText(args.tenderTitle, 500)}*`));
  for (const note of args.notes ?? []) blocks.push(contextLine(note));
  blocks.push(
    {
      type: 'input',
      block_id: PipelineIds.nameBlock,
      label: { type: 'plain_text', text: 'Bid name' },
      element: {
        type: 'plain_text_input',
        action_id: PipelineIds.nameInput,
        max_length: 200,
        ...(fields.name ? { initial_value: clip(fields.name, 200) } : {}),
      },
    },
    {
      type: 'input',
      block_id: PipelineIds.summaryBlock,
      optional: true,
      label: { type: 'plain_text', text: 'Summary' },
      element: {
        type: 'plain_text_input',
        action_id: PipelineIds.summaryInput,
        multiline: true,
        max_length: 3000,
        placeholder: { type: 'plain_text', text: 'What the bid is for, and who leads it' },
        ...(fields.summary ? { initial_value: clip(fields.summary, 3000) } : {}),
      },
    },
    {
      type: 'input',
      block_id: PipelineIds.targetBlock,
      optional: true,
      label: { type: 'plain_text', text: 'Target submission date' },
      ...(args.tenderCloses ? closingHint(args.tenderCloses) : {}),
      element: {
        type: 'datepicker',
        action_id: PipelineIds.targetInput,
        placeholder: { type: 'plain_text', text: 'Pick a date' },
        ...(fields.targetDate ? { initial_date: fields.targetDate } : {}),
      },
    },
    {
      type: 'input',
      block_id: PipelineIds.stagesBlock,
      optional: true,
      label: { type: 'plain_text', text: 'Stages' },
      hint: {
        type: 'plain_text',
        text: 'One stage a line, with its expected length in days after a bar if you like: “Draft response | 5”. At most 50. They are fixed once the bid starts: stages cannot be added later.',
      },
      element: {
        type: 'plain_text_input',
        action_id: PipelineIds.stagesInput,
        multiline: true,
        max_length: 3000,
        ...(fields.stages ? { initial_value: clip(fields.stages, 3000) } : {}),
      },
    } as Block,
  );
  return {
    type: 'modal',
    callback_id: PipelineIds.startBidCallback,
    private_metadata: args.privateMetadata,
    title: { type: 'plain_text', text: START_TITLE },
    submit: { type: 'plain_text', text: START_BID_BUTTON },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks,
  };
}

/** The view a slow creation shows after the submission was acknowledged. */
export function startBidWorkingView(privateMetadata: string): ModalView {
  return {
    type: 'modal',
    callback_id: PipelineIds.startBidCallback,
    private_metadata: privateMetadata,
    title: { type: 'plain_text', text: START_TITLE },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [
      section(
        mrkdwn`Starting the bid… The service is slow; the card will appear in the channel when it is ready.`,
      ),
    ],
  };
}

/** What the notes field holds (Slack's plain_text_input at most). */
const NOTES_ROOM = 3000;

/** "Notes and due date" of one stage. */
export function stageNotesModal(args: {
  privateMetadata: string;
  pipelineName: string;
  stage: Pick<Stage, 'name'>;
  notes: string;
  dueDate: string | null;
  /** The tender's deadline (an instant) while it is ahead: said under the date. */
  tenderCloses?: string | null;
  problem?: Mrkdwn;
}): ModalView {
  const blocks: Block[] = [];
  if (args.problem) blocks.push(section(mrkdwn`:warning: ${args.problem}`));
  blocks.push(
    section(mrkdwn`*${safeText(args.stage.name, 200)}* · ${safeText(args.pipelineName, 200)}`),
    // Notes longer than the field holds (written through the service or an assistant) would be
    // saved cut: the field is left out, and they stay as they are, as a long summary does.
    args.notes.length > NOTES_ROOM
      ? contextLine(
          mrkdwn`The notes are longer than this form holds (${plain(args.notes.length.toLocaleString('en-GB'))} characters), so they are not shown here and stay as they are.`,
        )
      : {
          type: 'input',
          block_id: PipelineIds.notesBlock,
          optional: true,
          label: { type: 'plain_text', text: 'Notes' },
          element: {
            type: 'plain_text_input',
            action_id: PipelineIds.notesInput,
            multiline: true,
            max_length: NOTES_ROOM,
            ...(args.notes ? { initial_value: args.notes } : {}),
          },
        },
    {
      type: 'input',
      block_id: PipelineIds.dueBlock,
      optional: true,
      label: { type: 'plain_text', text: 'Due date' },
      ...(args.tenderCloses ? closingHint(args.tenderCloses) : {}),
      element: {
        type: 'datepicker',
        action_id: PipelineIds.dueInput,
        placeholder: { type: 'plain_text', text: 'Pick a date' },
        ...(args.dueDate ? { initial_date: args.dueDate } : {}),
      },
    },
  );
  return {
    type: 'modal',
    callback_id: PipelineIds.notesCallback,
    private_metadata: args.privateMetadata,
    title: { type: 'plain_text', text: 'Notes and due date' },
    submit: { type: 'plain_text', text: SAVE_BUTTON },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks,
  };
}

/** Shown at once when "Notes and due date" is clicked, while the stage is read. */
export function stageNotesLoadingView(): ModalView {
  return {
    type: 'modal',
    callback_id: PipelineIds.notesCallback,
    title: { type: 'plain_text', text: 'Notes and due date' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [section(mrkdwn`Reading the stage…`)],
  };
}
