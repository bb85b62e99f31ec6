import type { AppSlack } from '../../adapters/app-slack.ts';
import { PersonalKeyRequiredError } from '../../shared/errors.ts';
import { describeFailure, PERSONAL_KEY_REQUIRED_SENTENCE } from '../../shared/failure-sentences.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { decode, StaleValueError } from '../../shared/values/codec.ts';
import type { CommentModalMetadata } from '../../shared/values/comment-values.ts';
import { type Mrkdwn, mrkdwn } from '../../shared/views/mrkdwn.ts';
import { mayDelete } from './comment-access.ts';
import { redrawModal, type SubmittedView } from './comment-window.ts';
import { followCommentChange } from './posted-threads.ts';
import { refilledView } from './views/comment-modal.ts';

export const DELETE_REFUSAL = mrkdwn`Only the person who wrote a comment, or a workspace owner or admin, can delete it. Nothing was deleted.`;

/**
 * "Delete" in the modal. Tenderbot enforces who may delete (the service cannot tell the people
 * behind one key apart): the comment's Slack author, or a workspace owner or admin. A refused or
 * forged click deletes nothing and says why in the modal.
 */
export async function deleteFromModal(
  context: FeatureContext,
  slack: AppSlack,
  args: {
    teamId: string;
    userId: string;
    viewId: string;
    privateMetadata: string;
    value: string | undefined;
    typedText: string | undefined;
    view: SubmittedView;
  },
): Promise<void> {
  const keep = { text: args.typedText ?? '', parentId: null };
  const sayInModal = (problem: Mrkdwn) =>
    slack.views.update({
      view_id: args.viewId,
      view: refilledView(args.view, { ...keep, problem }),
    });
  let state: CommentModalMetadata;
  let commentId: string;
  try {
    state = await decode('commentModal', args.privateMetadata, context.store, context.clock());
    commentId = (await decode('commentDelete', args.value, context.store, context.clock())).d;
  } catch (error) {
    if (!(error instanceof StaleValueError)) throw error;
    await sayInModal(
      mrkdwn`That button is out of date or was changed, so nothing was deleted. Close this window and press Comment again.`,
    );
    return;
  }
  const allowed =
    state.u === args.userId &&
    (await mayDelete(context, args.teamId, args.userId, [commentId])).has(commentId);
  if (!allowed) {
    context.logger.info({ teamId: args.teamId, userId: args.userId }, 'comment deletion refused');
    await redrawModal(context, slack, {
      ...keep,
      viewId: args.viewId,
      state,
      teamId: args.teamId,
      userId: args.userId,
      problem: DELETE_REFUSAL,
      current: args.view,
    });
    return;
  }
  let said: { problem: Mrkdwn } | { notice: Mrkdwn };
  try {
    const { client } = await context.clients.forWrite(args.teamId, args.userId);
    await client.comments.delete(commentId);
    context.logger.info({ teamId: args.teamId, userId: args.userId }, 'comment deleted');
    // Its words leave the threads posted in channels too, as the window's confirmation promised.
    followCommentChange(context, slack, args.teamId, { entityType: state.e, entityId: state.id });
    said = { notice: mrkdwn`The comment was deleted.` };
  } catch (error) {
    context.logger.warn({ err: error, teamId: args.teamId }, 'could not delete a comment');
    said = {
      problem:
        error instanceof PersonalKeyRequiredError
          ? PERSONAL_KEY_REQUIRED_SENTENCE
          : mrkdwn`The comment was not deleted. ${describeFailure(error).sentence}`,
    };
  }
  await redrawModal(context, slack, {
    ...keep,
    ...said,
    viewId: args.viewId,
    state,
    teamId: args.teamId,
    userId: args.userId,
    current: args.view,
  });
}
