/* "All stages": a bid's stages in a form, a page at a time, each with its status menu. */
import type { Pipeline } from '../../../../contract/schemas.ts';
import { PipelineIds } from '../../../shared/ids.ts';
import { PAST_SUBMISSION } from '../../../shared/views/bid-parts.ts';
import { clip, mrkdwn, safeText } from '../../../shared/views/mrkdwn.ts';
import type { SafeModalView as ModalView } from '../../../shared/views/safe-blocks.ts';
import { type Block, button, contextLine, section } from '../../../shared/views/tender-card.ts';
import { type CardValues, stageSelect } from './pipeline-card.ts';
import { stageText } from './stage-text.ts';

/** Stages a page of the form shows (one block each; a modal holds 100). */
export const STAGES_PAGE = 20;

/** The first stage number of the page that shows stage `number` (1 is the first). */
export function pageStart(number: number): number {
  return Math.floor((Math.max(1, number) - 1) / STAGES_PAGE) * STAGES_PAGE + 1;
}

/**
 * The page of the bid's stages from stage `first`: each stage's line (notes cut shorter than on a
 * card; whole in *Notes and due date*) with its status menu, then Previous and Next.
 */
export function stagesFormView(args: {
  pipeline: Pipeline;
  first: number;
  values: CardValues;
  privateMetadata: string;
  now: Date;
  /** The tender's deadline day as the card compares dates with it (cardClosingDay). */
  closingDay?: string | null;
}): ModalView {
  const stages = [...args.pipeline.stages].sort((a, b) => a.position - b.position);
  const first = Math.min(pageStart(args.first), pageStart(stages.length));
  const page = stages.slice(first - 1, first - 1 + STAGES_PAGE);
  const last = first + page.length - 1;
  const blocks: Block[] = [
    section(mrkdwn`*${safeText(args.pipeline.name, 200)}*`),
    contextLine(
      mrkdwn`Stages ${first} to ${last} of ${stages.length}.${args.pipeline.archived ? mrkdwn` The bid is archived: restore it on its card to change its stages.` : mrkdwn` A change here is told under the bid’s cards.`}`,
    ),
  ];
  // Submitted, settled or archived: no stage of it is overdue, nor flagged after a date.
  const settled = args.pipeline.archived || PAST_SUBMISSION.includes(args.pipeline.status);
  page.forEach((stage, index) => {
    const number = first + index;
    blocks.push({
      type: 'section',
      block_id: `stage:${number - 1}`,
      text: {
        type: 'mrkdwn',
        text: stageText(
          stage,
          number,
          args.now,
          300,
          args.pipeline.archived ? null : (args.closingDay ?? null),
          settled ? null : args.pipeline.targetSubmissionDate,
          settled,
        ),
      },
      ...(args.pipeline.archived ? {} : { accessory: stageSelect(stage, number, args.values) }),
    });
    // The card has room for the first stages' notes only: every stage's are reached from here.
    const ref = args.values.stageRefs.get(stage.id);
    if (!args.pipeline.archived && ref)
      blocks.push({
        type: 'actions',
        block_id: `stage-actions:${number - 1}`,
        elements: [button('Notes and due date', `${PipelineIds.stageNotes}/${number}`, ref)],
      });
  });
  const paging = [
    ...(first > 1
      ? [button('Previous', `${PipelineIds.stagesForm}/${first - STAGES_PAGE}`, args.values.pipelineRef)]
      : []),
    ...(last < stages.length
      ? [button('Next', `${PipelineIds.stagesForm}/${first + STAGES_PAGE}`, args.values.pipelineRef)]
      : []),
  ];
  if (paging.length > 0) blocks.push({ type: 'actions', block_id: 'stages:paging', elements: paging });
  return {
    type: 'modal',
    private_metadata: clip(args.privateMetadata, 3000),
    title: { type: 'plain_text', text: 'All stages' },
    close: { type: 'plain_text', text: 'Close' },
    blocks,
  };
}
