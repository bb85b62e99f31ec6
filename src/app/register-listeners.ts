import type { App } from '@slack/bolt';
import type { RespondAt } from './adapters/slack-fetch.ts';
import { registerPipelineListeners } from './features/bids/listeners.ts';
import { registerCommentListeners } from './features/comments/listeners.ts';
import { registerConnectionListeners } from './features/connection/listeners.ts';
import { registerDirectoryListeners } from './features/directories/listeners.ts';
import { registerHomeListeners } from './features/home/listeners.ts';
import type { InstallFlow } from './features/install/install-flow.ts';
import { registerInstallListeners } from './features/install/listeners.ts';
import { REACH_EVENTS, registerReachListeners } from './features/links/listeners.ts';
import { registerSubscriptionListeners } from './features/subscriptions/listeners.ts';
import { registerTenderListeners } from './features/tenders/listeners.ts';
import { registerWorkObjectListeners, WORK_OBJECT_EVENTS } from './features/work-objects/listeners.ts';
import { registerWorkflowListeners } from './features/workflows/listeners.ts';
import { RequestRouter } from './request-router.ts';
import { ControlRouter } from './shared/controls/control-registry.ts';
import { unknownControlAnswers } from './shared/controls/unknown-controls.ts';
import type { FeatureContext } from './shared/feature-context.ts';
import { registerTenderCommand, runCommand } from './tender-command.ts';

export { TENDER_COMMAND } from './tender-command.ts';

/** The events the app subscribes to; the manifest declares exactly these. */
export const SUBSCRIBED_EVENTS: readonly string[] = [
  'app_home_opened',
  ...REACH_EVENTS,
  'app_uninstalled',
  'tokens_revoked',
  'team_access_granted',
  'team_access_revoked',
  // Registered by app.function (features/workflows): a run of one of the app's Workflow Builder steps.
  'function_executed',
  ...WORK_OBJECT_EVENTS,
];

/**
 * Asks each feature to register its listeners. Each acknowledges first (Slack waits 3 s at most)
 * and only then talks to the service, answering through the response_url or the Web API.
 */
export function registerListeners(
  app: App,
  context: FeatureContext,
  install: InstallFlow | null = null,
  respondAt?: RespondAt,
): void {
  // Every control (buttons, windows, shortcuts, options) goes through the registry's table.
  const controls = new ControlRouter();
  // The command and the events too: one router finds each request's listener (request-router.ts).
  const router = new RequestRouter(respondAt);
  const listeners = router.registrar;
  registerTenderCommand(listeners, controls, context);
  registerTenderListeners(controls, context);
  registerDirectoryListeners(controls, context);
  registerConnectionListeners(controls, context);
  registerCommentListeners(controls, context);
  registerPipelineListeners(controls, context);
  registerSubscriptionListeners(controls, context);
  // A direct message can run the read-only commands as typed (no trigger: nothing opens a window).
  registerReachListeners(listeners, controls, context, (request, text) =>
    runCommand(context, request, text, '', false),
  );
  registerHomeListeners(listeners, controls, context);
  registerInstallListeners(listeners, context, install);
  registerWorkflowListeners(app, controls, context);
  registerWorkObjectListeners(listeners, context);
  // Refuses to start with a row of the table left without a listener; any other id is answered.
  const unknown = unknownControlAnswers(context.logger);
  controls.attach(app, unknown);
  router.attach(app, controls, unknown);
}
