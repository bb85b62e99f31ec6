/* The step "Move a bid's stage": sets one stage's status, then redraws the bid's cards. */
import { ForbiddenError, NotFoundError } from '../../../client/errors.ts';
import { STAGE_STATUSES, type Stage } from '../../../contract/schemas.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { mention, mrkdwn, safeText, text } from '../../shared/views/mrkdwn.ts';
import { forbiddenSentence, notFoundSentence, redrawEverywhere, resolveBidId } from '../bids/index.ts';
import { requiredInput, runnerOf, StepRefusal, type StepRun, writerOf } from './step-run.ts';
import { stageMovedLine } from './views/step-outputs.ts';

type StageStatus = Stage['status'];

/** A status as a person types it: `in_progress`, "In progress", "done"… */
function statusOf(typed: string): StageStatus {
  const word = typed.toLowerCase().replace(/[\s-]+/g, '_');
  const status = word === 'done' ? 'completed' : word === 'started' ? 'in_progress' : word;
  if ((STAGE_STATUSES as readonly string[]).includes(status)) return status as StageStatus;
  throw new StepRefusal(
    `“${typed.slice(0, 50)}” is not a stage status: use pending, in progress, blocked or completed.`,
  );
}

/** The stage a input names: its position (1 is the first), its id, or its name (any case). */
function stageNamed(stages: readonly Stage[], typed: string): Stage {
  const position = /^\d{1,3}$/.test(typed) ? Number(typed) : null;
  const found =
    (position !== null ? stages.find((stage) => stage.position === position) : undefined) ??
    stages.find((stage) => stage.id === typed) ??
    stages.find((stage) => stage.name.toLowerCase() === typed.toLowerCase());
  if (found) return found;
  const names = stages.map((stage) => stage.name).join(', ');
  throw new StepRefusal(
    `The bid has no stage “${typed.slice(0, 100)}”. Its stages are: ${names.slice(0, 300) || 'none'}.`,
  );
}

/** Moves the stage with the person's key; setting a status it already has changes nothing, so a rerun is harmless. */
export async function moveBidStage(
  context: FeatureContext,
  run: StepRun,
): Promise<Record<string, string | number>> {
  const typedBid = requiredInput(run, 'bid', 'a bid');
  const typedStage = requiredInput(run, 'stage', 'a stage');
  const status = statusOf(requiredInput(run, 'status', 'a status'));
  const writer = await writerOf(context, run, 'change bids');
  const { client, source } = writer;
  // A bid as people name it (BID-7, an id or its first 8 characters), as commands take it.
  const resolved = await resolveBidId(context, run.teamId, typedBid, client);
  if ('problem' in resolved) throw new StepRefusal(resolved.problem);
  const bidId = resolved.id;
  try {
    const pipeline = await client.pipelines.get(bidId);
    const stage = stageNamed(pipeline.stages, typedStage);
    await client.pipelines.updateStage(pipeline.id, stage.id, { status });
    // The bid's cards in channels show the change; a card that cannot be redrawn is only logged.
    // …and the change is told under each of them, naming the person the workflow ran for.
    const number = [...pipeline.stages].sort((a, b) => a.position - b.position).indexOf(stage) + 1;
    const told = () =>
      mrkdwn`${mention(runnerOf(run) ?? '')} moved stage ${number}, ${safeText(stage.name, 200)}, to ${text(status.replace('_', ' '))} (a workflow)`;
    await redrawEverywhere(context, run.slack, run.teamId, pipeline.id, client, told).catch((error) =>
      context.logger.warn({ err: error, teamId: run.teamId }, 'could not redraw a bid’s cards after a step'),
    );
    return {
      bid_reference: pipeline.id,
      stage_name: stage.name,
      stage_status: status,
      summary: stageMovedLine(stage.name, status),
    };
  } catch (error) {
    if (error instanceof NotFoundError) throw new StepRefusal(notFoundSentence(bidId, source));
    if (error instanceof ForbiddenError) throw new StepRefusal(forbiddenSentence(source));
    throw error;
  }
}
