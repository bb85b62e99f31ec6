import { section } from '../blocks/tender-card.ts';
import type { FeatureContext, Request } from './feature-context.ts';
import { reply } from './feature-context.ts';

// PLACEHOLDER (issue 8, "Make room first"): the extension point the pipelines helper fills in. Each
// function answers with a plain sentence until then; none of these sentences may stay.
const BEING_BUILT = 'Bid pipelines are being built and will be here shortly. Nothing was changed.';

/** `/tender pipelines [words] [status:…] [archived|all]`: the organisation's pipelines. */
export async function pipelinesCommand(
  _context: FeatureContext,
  request: Request,
  _rest: string,
): Promise<void> {
  await reply(request, { text: BEING_BUILT, blocks: [section(BEING_BUILT)] });
}

/**
 * `/tender pipeline <id>` (the card, for the channel), and `/tender pipeline status|stage|archive|restore …`.
 * `rest` is everything after the word `pipeline`.
 */
export async function pipelineCommand(
  _context: FeatureContext,
  request: Request,
  _rest: string,
): Promise<void> {
  await reply(request, { text: BEING_BUILT, blocks: [section(BEING_BUILT)] });
}

/** "Start a bid" on a tender card: opens the pipeline modal at once (the trigger_id lasts 3 s). */
export async function openStartBidModal(
  _context: FeatureContext,
  request: Request,
  _args: { triggerId: string; tenderId: string },
): Promise<void> {
  await reply(request, { text: BEING_BUILT, blocks: [section(BEING_BUILT)] });
}
