/* The step "Post a bid's summary to a channel": the bid's live card, posted once per run. */
import { NotFoundError } from '../../../client/errors.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { type PlainSentence, plainOf, plainSentence } from '../../shared/views/plain-sentence.ts';
import { bidReferences, notFoundSentence, postPipelineCard, resolveBidId } from '../bids/index.ts';
import { actorOf, readerOf, refuseGuest, requiredInput, StepRefusal, type StepRun } from './step-run.ts';
import { bidLine } from './views/step-outputs.ts';

/** Slack's refusals of a post that the workflow's author can mend, as sentences. */
const POST_REFUSALS: Record<string, PlainSentence> = {
  not_in_channel: plainSentence`Tenderbot is not in that channel: invite it there (/invite @Tenderbot), then run the workflow again.`,
  channel_not_found: plainSentence`Tenderbot cannot find that channel (a private channel it was not invited to?).`,
  is_archived: plainSentence`That channel is archived, so nothing can be posted there.`,
};

/**
 * Posts the bid's card (the same live card `/tender pipeline` posts, redrawn on every change) with
 * the person's key (or the workspace's). The run's memory (runStepOnce) keeps a rerun from posting twice.
 */
export async function postBidSummary(
  context: FeatureContext,
  run: StepRun,
): Promise<Record<string, string | number>> {
  const typedBid = requiredInput(run, 'bid', 'a bid');
  const channelId = requiredInput(run, 'channel_id', 'a channel');
  const userId = actorOf(run);
  if (userId) await refuseGuest(context, run.teamId, userId, 'post bid cards in a channel');
  const { client, source } = await readerOf(context, run);
  // A bid as people name it (BID-7, an id or its first 8 characters), as commands take it.
  const resolved = await resolveBidId(context, run.teamId, typedBid, client);
  if ('problem' in resolved) throw new StepRefusal(plainOf(resolved.problem));
  const bidId = resolved.id;
  const pipeline = await client.pipelines.get(bidId).catch((error) => {
    if (error instanceof NotFoundError) throw new StepRefusal(plainOf(notFoundSentence(typedBid, source)));
    throw error;
  });
  try {
    const ts = await postPipelineCard(context, run.slack, run.teamId, channelId, pipeline);
    const reference = (await bidReferences(context, run.teamId, [pipeline.id])).get(pipeline.id) as string;
    return { bid_reference: reference, bid_id: pipeline.id, message_ts: ts, summary: bidLine(pipeline) };
  } catch (error) {
    const code = (error as { data?: { error?: string } }).data?.error ?? '';
    const refusal = Object.hasOwn(POST_REFUSALS, code) ? POST_REFUSALS[code] : undefined;
    if (refusal) throw new StepRefusal(refusal);
    throw error;
  }
}
