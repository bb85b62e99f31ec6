import { section } from '../blocks/tender-card.ts';
import type { CommentEntityType } from '../listeners/button-values.ts';
import type { FeatureContext, Request } from './feature-context.ts';
import { reply } from './feature-context.ts';

// PLACEHOLDER (issue 8, "Make room first"): the extension point the comments helper fills in. Each
// function answers with a plain sentence until then; none of these sentences may stay.
const BEING_BUILT = 'Comments are being built and will be here shortly. Nothing was changed.';

/** What "Comment" was clicked on. */
export interface CommentTarget {
  entityType: CommentEntityType;
  entityId: string;
}

/** `/tender comments <id>`: the thread on a tender, buyer, supplier or framework, in the channel. */
export async function commentsCommand(
  _context: FeatureContext,
  request: Request,
  _rest: string,
): Promise<void> {
  await reply(request, { text: BEING_BUILT, blocks: [section(BEING_BUILT)] });
}

/**
 * "Comment" on a card or detail panel: opens the comment modal at once (the trigger_id lasts 3 s).
 * `triggerId` is the click's; the target comes from the button's value through the codec.
 */
export async function openCommentModal(
  _context: FeatureContext,
  request: Request,
  _args: { triggerId: string; target: CommentTarget },
): Promise<void> {
  await reply(request, { text: BEING_BUILT, blocks: [section(BEING_BUILT)] });
}
