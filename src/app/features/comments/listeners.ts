import type { BlockAction, ButtonAction } from '@slack/bolt';
import type { ControlRouter } from '../../shared/controls/control-registry.ts';
import {
  buttonValue,
  onAction,
  SUBMISSION_BUDGET_MS,
  submissionOf,
} from '../../shared/controls/on-action.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { CommentIds } from '../../shared/ids.ts';
import { teamOfRequest } from '../../shared/request-scope.ts';
import { decode } from '../../shared/values/codec.ts';
import { parseCommentSubmission } from '../../shared/values/modal-submissions.ts';
import { fieldErrors, plainSentence } from '../../shared/views/plain-sentence.ts';
import { openCommentModal, type SubmittedView } from './comment-window.ts';
import { deleteFromModal } from './delete-comment.ts';
import { type CommentSubmissionAnswer, submitComment } from './submit-comment.ts';

/**
 * Every listener of the comments feature: "Comment" (opens the modal), the modal's submission,
 * and "Delete" inside the modal.
 */
export function registerCommentListeners(controls: ControlRouter, context: FeatureContext): void {
  onAction(controls, context, CommentIds.open, async (request, action, body) => {
    const { e, id } = await decode('comment', buttonValue(action), context.store, context.clock());
    await openCommentModal(context, request, {
      triggerId: body.trigger_id,
      target: { entityType: e, entityId: id },
    });
  });

  controls.view(CommentIds.callback, async ({ ack, body, view, client, context: bolt }) => {
    const submitted = parseCommentSubmission(view.state?.values);
    const answer = ack as (answer?: CommentSubmissionAnswer) => Promise<void>;
    let acked = false;
    const ackOnce = async (reply?: CommentSubmissionAnswer) => {
      acked = true;
      await answer(reply);
    };
    try {
      await submitComment(
        context,
        client,
        {
          ...submissionOf(body, view, bolt),
          text: submitted.text,
          parentValue: submitted.parentValue,
          view: view as SubmittedView,
        },
        ackOnce,
        SUBMISSION_BUDGET_MS,
      );
    } catch (error) {
      // Whatever failed, the modal stays open with the text: the person is told on the field.
      context.logger.error({ err: error, what: 'comment submission' }, 'comment submission failed');
      if (!acked)
        await answer(
          fieldErrors({
            [CommentIds.textBlock]: plainSentence`Tenderbot could not post this comment because of a fault on its side. Your text is kept; try again in a moment.`,
          }),
        );
    }
  });

  // A click inside a modal has no response_url: every answer goes into the modal itself.
  controls.action<BlockAction<ButtonAction>>(
    CommentIds.delete,
    async ({ ack, body, action, client, context: bolt }) => {
      await ack();
      const view = body.view;
      if (!view?.id) return;
      const typed = parseCommentSubmission(view.state?.values).text;
      await deleteFromModal(context, client, {
        teamId: teamOfRequest(bolt, body.team?.id, body.user.team_id),
        userId: body.user.id,
        viewId: view.id,
        privateMetadata: typeof view.private_metadata === 'string' ? view.private_metadata : '',
        value: action.value,
        typedText: typed || undefined,
        view: view as SubmittedView,
      }).catch((error) =>
        context.logger.error({ err: error, what: 'comment delete' }, 'could not answer a Delete click'),
      );
    },
  );
}
