/* "All stages": a bid with more stages than its card holds with their controls, in a form a page at a time. */
import { NotFoundError } from '../../../client/errors.ts';
import type { Pipeline } from '../../../contract/schemas.ts';
import type { AppSlack } from '../../adapters/app-slack.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { mrkdwn } from '../../shared/views/mrkdwn.ts';
import { bidNotFoundSentence } from './bid-sentences.ts';
import { openLoadingModal, type ViewUpdate } from './form-steps.ts';
import { tenderDeadlineOf } from './tender-deadlines.ts';
import { cardValues } from './views/pipeline-card.ts';
import { sentenceView } from './views/pipeline-modals.ts';
import { stagesFormView } from './views/stages-form.ts';
import { cardClosingDay } from './views/tender-closes.ts';

/**
 * Opens the form at stage `first` (from a card: a loading view first, the trigger lasts 3 s), or
 * redraws the open form (`viewId`: Previous, Next, or after a stage was changed in it), read afresh.
 */
export async function showStagesForm(
  context: FeatureContext,
  request: SlackRequest,
  args: { pipelineId: string; first: number; triggerId: string; viewId: string | null },
): Promise<void> {
  const update: ViewUpdate = args.viewId
    ? (view) => request.slack.views.update({ view_id: args.viewId as string, view })
    : await openLoadingModal(request, args.triggerId, sentenceView('All stages', mrkdwn`Reading the bid…`));
  await drawStagesForm(context, request, update, args);
}

/**
 * Redraws an open "All stages" form (`viewId`) at the page holding stage `stageId`, read afresh:
 * after a stage's notes were saved in a form opened on top of it, which closes back onto this one.
 */
export async function redrawStagesForm(
  context: FeatureContext,
  who: { slack: AppSlack; teamId: string; userId: string },
  args: { pipelineId: string; stageId: string; viewId: string },
): Promise<void> {
  const update: ViewUpdate = (view) => who.slack.views.update({ view_id: args.viewId, view });
  await drawStagesForm(context, who, update, args);
}

async function drawStagesForm(
  context: FeatureContext,
  request: { teamId: string; userId: string },
  update: ViewUpdate,
  args: { pipelineId: string; first: number } | { pipelineId: string; stageId: string },
): Promise<void> {
  const { client, source } = await context.clients.forPerson(request.teamId, request.userId);
  let pipeline: Pipeline;
  try {
    pipeline = await client.pipelines.get(args.pipelineId);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    await update(
      sentenceView('All stages', await bidNotFoundSentence(context, request.teamId, args.pipelineId, source)),
    );
    return;
  }
  const now = context.clock();
  // Short values (kept in the store): a page of twenty stages' menus stays small.
  const values = await cardValues(pipeline, context.store, now, true);
  const tenderDeadline = await tenderDeadlineOf(
    context,
    request.teamId,
    pipeline.tenderId,
    async () => client,
  );
  await update(
    stagesFormView({
      pipeline,
      // The page the stage is on now, numbered as the form numbers them (stages may have gone since).
      first:
        'first' in args
          ? args.first
          : Math.max(
              1,
              [...pipeline.stages]
                .sort((a, b) => a.position - b.position)
                .findIndex((stage) => stage.id === args.stageId) + 1,
            ),
      values,
      privateMetadata: values.pipelineRef,
      now,
      closingDay: cardClosingDay(tenderDeadline, pipeline.status, now),
    }),
  );
}
