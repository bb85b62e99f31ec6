/* The step "Start a bid from a tender": one bid per run, however often Slack runs it. */
import { ForbiddenError, NotFoundError, ValidationError } from '../../../client/errors.ts';
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import type { Tender } from '../../../contract/schemas.ts';
import { cutText } from '../../../shared/cut-text.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { plainSentence } from '../../shared/views/plain-sentence.ts';
import { bidReferences, DEFAULT_STAGE_TEMPLATE, parseStageLines } from '../bids/index.ts';
import { WorkflowStepIds } from './step-ids.ts';
import {
  idempotencyKeyOf,
  requiredInput,
  StepRefusal,
  type StepRun,
  textInput,
  writerOf,
} from './step-run.ts';

/**
 * The tender an id or printed reference names (the service's lookup, then a search by reference);
 * a refusal ends with `nothingDone` (what the step did not do).
 */
export async function tenderNamed(
  client: ProcurementClient,
  reference: string,
  nothingDone = 'No bid was started.',
): Promise<Tender> {
  try {
    return await client.tenders.get(reference);
  } catch (error) {
    if (!(error instanceof NotFoundError || error instanceof ValidationError)) throw error;
  }
  const page = await client.tenders.search({ reference, limit: 2 }).catch((error) => {
    if (error instanceof ValidationError) return null;
    throw error;
  });
  const [first] = page?.data ?? [];
  if (!page || !first)
    throw new StepRefusal(
      plainSentence`No tender has the id or reference “${cutText(reference, 100)}”. ${nothingDone}`,
    );
  if (page.pagination.total > 1)
    throw new StepRefusal(
      plainSentence`${page.pagination.total} tenders have the reference “${cutText(reference, 100)}”: give the step the tender’s id instead. ${nothingDone}`,
    );
  return first;
}

/** Where a person opens the bid: the service's address of it, for the key that made it. */
async function bidLinkOf(context: FeatureContext, run: StepRun, source: string, id: string): Promise<string> {
  const connection = source === 'workspace' ? await context.store.getConnection(run.teamId) : null;
  const base = (connection?.serviceUrl ?? context.clients.operatorServiceUrl).replace(/\/+$/, '');
  return `${base}/v1/pipelines/${encodeURIComponent(id)}`;
}

/**
 * Starts the bid with the person's key (the rules of commands), its stages from the template
 * (`name | days` a line; Tenderbot's own when none is given). The service's idempotency key comes
 * from the run's id: Slack running the step again finds the same bid.
 */
export async function startBidFromTender(
  context: FeatureContext,
  run: StepRun,
): Promise<Record<string, string | number>> {
  const reference = requiredInput(run, 'tender', 'a tender id or reference');
  const stages = parseStageLines(textInput(run, 'stages_template') || DEFAULT_STAGE_TEMPLATE);
  if ('problem' in stages)
    throw new StepRefusal(plainSentence`The stages template is not right: ${stages.problem}`);
  const writer = await writerOf(context, run, 'start bids');
  const { client } = writer;
  const tender = await tenderNamed(client, reference);
  const name = cutText(textInput(run, 'name') || `Bid for ${tender.title}`, 200);
  try {
    const pipeline = await client.pipelines.create(
      {
        name,
        tenderId: tender.id,
        targetSubmissionDate: null,
        stages: stages.stages.map((stage) => ({
          name: stage.name,
          expectedDurationDays: stage.expectedDurationDays,
        })),
      },
      { idempotencyKey: idempotencyKeyOf(run.executionId, WorkflowStepIds.startBid) },
    );
    // Who started it, as the bid's cards and the Home tab say (a rerun keeps the first record).
    await context.store.recordBidStarter({
      pipelineId: pipeline.id,
      teamId: run.teamId,
      userId: writer.userId,
      ownKey: writer.source === 'personal',
      startedAt: context.clock(),
    });
    const reference = (await bidReferences(context, run.teamId, [pipeline.id])).get(pipeline.id) as string;
    return {
      bid_reference: reference,
      bid_id: pipeline.id,
      bid_name: pipeline.name,
      bid_link: await bidLinkOf(context, run, writer.source, pipeline.id),
    };
  } catch (error) {
    if (error instanceof ForbiddenError)
      throw new StepRefusal(
        plainSentence`The service did not let this key start bids: the person who made it is a viewer in the organisation. No bid was started.`,
      );
    throw error;
  }
}
