import type { App } from '@slack/bolt';
import type { FeatureContext } from '../features/feature-context.ts';
import { openStartBidModal } from '../features/pipelines.ts';
import { PipelineIds } from '../ids.ts';
import { decode } from '../state/codec.ts';
import { buttonValue, onAction } from './on-action.ts';

/**
 * Every listener of the pipelines feature (buttons, selects, modal submissions), registered by
 * registerListeners. The pipelines helper adds its own here.
 */
export function registerPipelineListeners(app: App, context: FeatureContext): void {
  onAction(app, context, PipelineIds.startBid, async (request, action, body) => {
    const { t } = await decode('startBid', buttonValue(action), context.store, context.clock());
    await openStartBidModal(context, request, { triggerId: body.trigger_id, tenderId: t });
  });
}
