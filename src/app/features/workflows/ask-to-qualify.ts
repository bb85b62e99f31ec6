/*
 * The step "Ask someone to qualify a tender": it posts a question with two buttons and stays
 * running; the asked person's click ends it with their answer. Slack sends that click with the
 * run's `function_data` and workflow token, so Bolt gives the action listener `complete`.
 */
import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { sentenceMessage } from '../../shared/views/messages.ts';
import { type Mrkdwn, mention, mrkdwn, text } from '../../shared/views/mrkdwn.ts';
import { plainSentence } from '../../shared/views/plain-sentence.ts';
import { tenderNamed } from './start-bid.ts';
import { QualifyIds, WorkflowStepIds } from './step-ids.ts';
import { actorOf, readerOf, refuseGuest, requiredInput, StepRefusal, type StepRun } from './step-run.ts';
import {
  QUALIFY_ANSWERS,
  type QualifyAnswer,
  qualifyAnswered,
  qualifyQuestion,
} from './views/qualify-question.ts';

const SLACK_USER = /^[UW][A-Z0-9]+$/;

/**
 * Posts the question in the channel, asking the person. The tender is read with the key of the
 * person Slack says runs the workflow (their own where linked, else the workspace's), never the
 * asked person's: whoever builds a workflow could name anyone there. A guest running it is refused
 * (the step posts in a channel for them). Returns null: the step stays running until the asked
 * person answers.
 */
export async function askToQualifyTender(context: FeatureContext, run: StepRun): Promise<null> {
  const reference = requiredInput(run, 'tender', 'a tender id or reference');
  const asked = requiredInput(run, 'asked_user', 'the person to ask');
  const channelId = requiredInput(run, 'channel_id', 'a channel');
  if (!SLACK_USER.test(asked))
    throw new StepRefusal(plainSentence`“Person to ask” must be a person of this workspace.`);
  const runner = actorOf(run);
  if (runner) await refuseGuest(context, run.teamId, runner, 'ask someone in a channel');
  const { client } = await readerOf(context, run);
  const tender = await tenderNamed(client, reference, 'Nobody was asked.');
  const question = qualifyQuestion(asked, tender, context.clock(), QualifyIds.answer);
  await run.slack.chat.postMessage({ channel: channelId, ...question }).catch((error) => {
    const code = (error as { data?: { error?: string } }).data?.error;
    if (code === 'not_in_channel' || code === 'channel_not_found')
      throw new StepRefusal(
        plainSentence`Tenderbot cannot post in that channel: invite it there, then run the workflow again.`,
      );
    throw error;
  });
  return null;
}

/** The Slack errors that mean the run is over already (answered, timed out, or its token expired). */
const RUN_OVER = new Set([
  'execution_not_in_running_state',
  'function_execution_not_found',
  'invalid_auth',
  'token_expired',
  'token_revoked',
]);

/** The answers given, by execution: a second click is told who answered, without a second completion. */
const answers = new Map<string, { by: string; answer: QualifyAnswer }>();

type QualifyClick = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;

/**
 * A click on "Qualified" or "Not qualified". Only the asked person's click ends the step (with
 * `complete`); anyone else, or a click after the answer, is told why in a sentence only they see.
 */
export async function answerQualifyClick(
  context: FeatureContext,
  { ack, body, action, respond, complete, inputs }: QualifyClick,
): Promise<void> {
  await ack();
  const tell = (sentence: Mrkdwn) =>
    respond({ response_type: 'ephemeral', replace_original: false, ...sentenceMessage(sentence) });
  const executionId = body.function_data?.execution_id;
  const asked = typeof inputs?.asked_user === 'string' ? inputs.asked_user : '';
  const answer = QUALIFY_ANSWERS.find((candidate) => candidate === action.value);
  if (
    !executionId ||
    !complete ||
    !answer ||
    body.function_data?.function.callback_id !== WorkflowStepIds.askToQualify
  ) {
    await tell(mrkdwn`This question is no longer part of a running workflow, so the click changed nothing.`);
    return;
  }
  const earlier = answers.get(executionId);
  if (earlier) {
    await tell(
      mrkdwn`${mention(earlier.by)} already answered: *${text(earlier.answer)}*. The workflow has moved on.`,
    );
    return;
  }
  if (body.user.id !== asked) {
    await tell(mrkdwn`This question was asked of ${mention(asked)}: only they can answer it.`);
    return;
  }
  // Claimed before Slack hears of it, so a quick second click does not complete twice.
  answers.set(executionId, { by: body.user.id, answer });
  try {
    await complete({ outputs: { answer, answered_by: body.user.id } });
  } catch (error) {
    const code = (error as { data?: { error?: string } }).data?.error ?? '';
    if (RUN_OVER.has(code)) {
      await tell(
        mrkdwn`This question was already answered, or its workflow has ended: the click changed nothing.`,
      );
      return;
    }
    answers.delete(executionId);
    context.logger.warn({ err: error, executionId }, 'could not complete a workflow step from a click');
    await tell(mrkdwn`Slack did not take the answer. Click again in a moment.`);
    return;
  }
  setTimeout(() => answers.delete(executionId), 24 * 3_600_000).unref();
  const tender = typeof inputs?.tender === 'string' ? inputs.tender : '';
  // The question becomes its answer, through the click's response_url (the workflow token has ended).
  await respond({ replace_original: true, ...qualifyAnswered(body.user.id, answer, tender) }).catch((error) =>
    context.logger.warn({ err: error, executionId }, 'could not mark a workflow question answered'),
  );
}
