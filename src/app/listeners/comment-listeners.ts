import type { App } from '@slack/bolt';
import { openCommentModal } from '../features/comments.ts';
import type { FeatureContext } from '../features/feature-context.ts';
import { CommentIds } from '../ids.ts';
import { decode } from '../state/codec.ts';
import { buttonValue, onAction } from './on-action.ts';

/**
 * Every listener of the comments feature (buttons, modal submissions), registered by
 * registerListeners. The comments helper adds its own here.
 */
export function registerCommentListeners(app: App, context: FeatureContext): void {
  onAction(app, context, CommentIds.open, async (request, action, body) => {
    const { e, id } = await decode('comment', buttonValue(action), context.store, context.clock());
    await openCommentModal(context, request, {
      triggerId: body.trigger_id,
      target: { entityType: e, entityId: id },
    });
  });
}
