/* The step "Move a bid's stage": sets one stage's status, then redraws the bid's cards. */
import { ForbiddenError, NotFoundError } from '../../../client/errors.ts';
import type { Stage } from '../../../contract/schemas.ts';
import { cutText } from '../../../shared/cut-text.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { STAGE_LABELS } from '../../shared/views/bid-parts.ts';
import { mention, mrkdwn, safeText, text } from '../../shared/views/mrkdwn.ts';
import { plainOf, plainSentence } from '../../shared/views/plain-sentence.ts';
import {
  bidReferences,
  findStage,
  forbiddenSentence,
  notFoundSentence,
  redrawEverywhere,
  resolveBidId,
  stageStatusNamed,
} from '../bids/index.ts';
import { requiredInput, StepRefusal, type StepRun, writerOf } from './step-run.ts';
import { stageMovedLine } from './views/step-outputs.ts';

/** A status as a person types it, read as `/tender pipeline` reads it. */
function statusOf(typed: string): Stage['status'] {
  const status = stageStatusNamed(typed);
  if (status) return status;
  throw new StepRefusal(
    plainSentence`“${cutText(typed, 50)}” is not a stage status: use pending, in progress, blocked or completed.`,
  );
}

/**
 * Moves the stage with the key of the person running the workflow. A stage already at that
 * status is left as it is: no change, no line under the cards (a rerun, or a workflow run twice).
 */
export async function moveBidStage(
  context: FeatureContext,
  run: StepRun,
): Promise<Record<string, string | number>> {
  const typedBid = requiredInput(run, 'bid', 'a bid');
  const typedStage = requiredInput(run, 'stage', 'a stage');
  const status = statusOf(requiredInput(run, 'status', 'a status'));
  const { client, source, userId } = await writerOf(context, run, 'change bids');
  // A bid as people name it (BID-7, an id or its first 8 characters), as commands take it.
  const resolved = await resolveBidId(context, run.teamId, typedBid, client);
  if ('problem' in resolved) throw new StepRefusal(plainOf(resolved.problem));
  const bidId = resolved.id;
  try {
    const pipeline = await client.pipelines.get(bidId);
    const found = findStage(pipeline.stages, typedStage);
    if ('problem' in found) throw new StepRefusal(plainOf(found.problem));
    const { stage } = found;
    const reference = (await bidReferences(context, run.teamId, [pipeline.id])).get(pipeline.id) as string;
    const outputs = {
      bid_reference: reference,
      bid_id: pipeline.id,
      stage_name: stage.name,
      stage_status: status,
      summary: stageMovedLine(stage.name, status),
    };
    if (stage.status === status) return outputs;
    await client.pipelines.updateStage(pipeline.id, stage.id, { status });
    // The bid's cards in channels show the change; a card that cannot be redrawn is only logged.
    // …and the change is told under each of them, naming the person Slack says runs the workflow.
    const number = [...pipeline.stages].sort((a, b) => a.position - b.position).indexOf(stage) + 1;
    const told = () =>
      mrkdwn`${mention(userId)} moved stage ${number}, ${safeText(stage.name, 200)}, of ${safeText(pipeline.name, 200)} to ${text(STAGE_LABELS[status])} (a workflow)`;
    await redrawEverywhere(context, run.slack, run.teamId, pipeline.id, client, told).catch((error) =>
      context.logger.warn({ err: error, teamId: run.teamId }, 'could not redraw a bid’s cards after a step'),
    );
    return outputs;
  } catch (error) {
    if (error instanceof NotFoundError) throw new StepRefusal(plainOf(notFoundSentence(typedBid, source)));
    if (error instanceof ForbiddenError) throw new StepRefusal(plainOf(forbiddenSentence(source)));
    throw error;
  }
}
