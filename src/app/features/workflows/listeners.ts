import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  ButtonAction,
  SlackEventMiddlewareArgs,
} from '@slack/bolt';
import type { AppSlack } from '../../adapters/app-slack.ts';
import type { ControlRouter } from '../../shared/controls/control-registry.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { answerQualifyClick, askToQualifyTender } from './ask-to-qualify.ts';
import { findNewTenders } from './find-new-tenders.ts';
import { moveBidStage } from './move-bid-stage.ts';
import { postBidSummary } from './post-bid-summary.ts';
import { startBidFromTender } from './start-bid.ts';
import { QualifyIds, type WorkflowStepId, WorkflowStepIds } from './step-ids.ts';
import { runStepOnce, type StepOutputs, type StepRun } from './step-run.ts';

type StepWork = (context: FeatureContext, run: StepRun) => Promise<StepOutputs>;

/** Each step's callback id and its handler: manifest.yml declares the same ids. */
export const WORKFLOW_STEPS: Record<WorkflowStepId, StepWork> = {
  [WorkflowStepIds.findTenders]: findNewTenders,
  [WorkflowStepIds.startBid]: startBidFromTender,
  [WorkflowStepIds.moveStage]: moveBidStage,
  [WorkflowStepIds.postSummary]: postBidSummary,
  [WorkflowStepIds.askToQualify]: askToQualifyTender,
};

// Bolt's own name for these (SlackCustomFunctionMiddlewareArgs) is not exported from its index.
type FunctionArgs = SlackEventMiddlewareArgs<'function_executed'> & AllMiddlewareArgs;

/**
 * Runs one step for `function_executed` and ends it with `complete` (its outputs) or `fail` (a
 * sentence). Bolt acknowledges the event before this runs, so Slack's 3 s are never at stake.
 */
async function runStep(
  context: FeatureContext,
  callbackId: WorkflowStepId,
  work: StepWork,
  { inputs, complete, fail, client, body, event, context: bolt }: FunctionArgs,
): Promise<void> {
  const run: StepRun = {
    teamId: bolt.teamId ?? body.team_id,
    executionId: event.function_execution_id,
    inputs: inputs as Record<string, unknown>,
    // Bolt's client, holding the run's workflow token: its chat methods take the app's safe mrkdwn.
    slack: client as unknown as AppSlack,
  };
  const outcome = await runStepOnce(context, run, callbackId, () => work(context, run));
  try {
    if ('error' in outcome) await fail({ error: outcome.error });
    // No outputs yet: a click in the step's message completes it (ask-to-qualify.ts).
    else if (outcome.outputs) await complete({ outputs: outcome.outputs });
  } catch (error) {
    // Slack did not take the ending (a lost answer, a run ended already): it runs the step again or times it out.
    context.logger.warn(
      { err: error, teamId: run.teamId, step: callbackId, executionId: run.executionId },
      'could not end a workflow step',
    );
  }
}

/**
 * Registers Tenderbot's Workflow Builder steps (Bolt's `app.function`), one per callback id, and
 * the buttons a step's message holds (through the controls registry, as every button).
 */
export function registerWorkflowListeners(app: App, controls: ControlRouter, context: FeatureContext): void {
  for (const [callbackId, work] of Object.entries(WORKFLOW_STEPS) as [WorkflowStepId, StepWork][]) {
    app.function(callbackId, (args) => runStep(context, callbackId, work, args));
  }
  controls.action<BlockAction<ButtonAction>>(QualifyIds.answer, (args) => answerQualifyClick(context, args));
}
