import type { Stage } from '../../../../contract/schemas.ts';
import { PipelineIds } from '../../../shared/ids.ts';
import { clip, mrkdwn, text as plain } from '../../../shared/views/mrkdwn.ts';
import type { SafeModalView as ModalView } from '../../../shared/views/safe-blocks.ts';
import { type Block, contextLine, section } from '../../../shared/views/tender-card.ts';
import { SAVE_BUTTON } from './pipeline-modals.ts';
import { closingHint } from './tender-closes.ts';

/** The longest summary the form edits (Slack's multiline input); a longer one is left as it is. */
export const EDIT_SUMMARY_ROOM = 3000;

/** The block of stage `number`'s name (1-based, by position): one input a stage. */
export function stageNameBlock(number: number): string {
  return `${PipelineIds.editStageBlock}/${number}`;
}

/**
 * "Edit details" of a bid: its name, summary, target submission date, and each stage's name, as
 * they are now (Slack sends the view back with its submission, so what it opened with is known).
 */
export function editBidModal(args: {
  privateMetadata: string;
  name: string;
  summary: string | null;
  targetDate: string | null;
  stages: readonly Pick<Stage, 'name'>[];
  /** The tender's deadline (an instant) while it is ahead: said under the target date. */
  tenderCloses?: string | null;
}): ModalView {
  const blocks: Block[] = [
    {
      type: 'input',
      block_id: PipelineIds.nameBlock,
      label: { type: 'plain_text', text: 'Bid name' },
      element: {
        type: 'plain_text_input',
        action_id: PipelineIds.nameInput,
        max_length: 200,
        initial_value: clip(args.name, 200),
      },
    },
  ];
  const summary = args.summary ?? '';
  if (summary.length <= EDIT_SUMMARY_ROOM)
    blocks.push({
      type: 'input',
      block_id: PipelineIds.summaryBlock,
      optional: true,
      label: { type: 'plain_text', text: 'Summary' },
      element: {
        type: 'plain_text_input',
        action_id: PipelineIds.summaryInput,
        multiline: true,
        max_length: EDIT_SUMMARY_ROOM,
        ...(summary ? { initial_value: summary } : {}),
      },
    });
  // Cut to fit, it would be saved cut: the field is left out, and the summary stays as it is.
  else
    blocks.push(
      contextLine(
        mrkdwn`The summary is longer than this form holds (${plain(summary.length.toLocaleString('en-GB'))} characters), so it is not shown here and stays as it is.`,
      ),
    );
  blocks.push({
    type: 'input',
    block_id: PipelineIds.targetBlock,
    optional: true,
    label: { type: 'plain_text', text: 'Target submission date' },
    ...(args.tenderCloses ? closingHint(args.tenderCloses) : {}),
    element: {
      type: 'datepicker',
      action_id: PipelineIds.targetInput,
      placeholder: { type: 'plain_text', text: 'Pick a date' },
      ...(args.targetDate ? { initial_date: args.targetDate } : {}),
    },
  });
  if (args.stages.length > 0) {
    blocks.push(
      { type: 'divider' },
      section(mrkdwn`*Stage names*`),
      contextLine(
        mrkdwn`Status, notes and due dates are set on the card (every stage’s in *All stages* when it has more than the card shows). A bid’s stages are fixed when it starts (the service adds none later), so none can be added or taken away.`,
      ),
    );
    args.stages.forEach((stage, index) => {
      blocks.push({
        type: 'input',
        block_id: stageNameBlock(index + 1),
        label: { type: 'plain_text', text: `Stage ${index + 1}` },
        element: {
          type: 'plain_text_input',
          action_id: PipelineIds.editStageInput,
          max_length: 200,
          initial_value: clip(stage.name, 200),
        },
      });
    });
  }
  return {
    type: 'modal',
    callback_id: PipelineIds.editCallback,
    private_metadata: args.privateMetadata,
    title: { type: 'plain_text', text: 'Edit the bid' },
    submit: { type: 'plain_text', text: SAVE_BUTTON },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks,
  };
}
