import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../../../client/errors.ts';
import { cutText } from '../../../shared/cut-text.ts';
import type { AppSlack } from '../../adapters/app-slack.ts';
import { describeFailure } from '../../shared/failure-sentences.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { encodeKept } from '../../shared/values/codec.ts';
import type { CommentModalMetadata } from '../../shared/values/comment-values.ts';
import { type Mrkdwn, mrkdwn, text as plain } from '../../shared/views/mrkdwn.ts';
import type { SafeModalView as ModalView } from '../../shared/views/safe-blocks.ts';
import { type CommentTarget, loadThread, mayDelete, writesAllowed } from './comment-access.ts';
import {
  commentLoadingView,
  commentModal,
  commentProblemView,
  refilledView,
  type ViewLike,
} from './views/comment-modal.ts';
import { ENTITY_NOUNS } from './views/comment-thread.ts';

/** The parts of a submitted view that can be sent back to Slack as a view. */
export type SubmittedView = ViewLike;

/** In the window, instead of the form, when the workspace requires each person's own key for changes. */
export const COMMENT_NEEDS_OWN_KEY = mrkdwn`In this workspace, comments are written with each person’s own key, and you have not linked yours. Run \`/tender connect me\` to link it, then press Comment again.`;

const CHANNEL_ID = /^[CDG][A-Z0-9]{1,30}$/;

/** The window's state as its private_metadata, kept in the store when too long for Slack. */
async function metadataOf(context: FeatureContext, state: CommentModalMetadata): Promise<string> {
  return encodeKept('commentModal', state, 'metadata', context.store, context.clock());
}

/**
 * "Comment" on a card or detail panel: opens a loading modal at once (the trigger_id lasts 3 s),
 * then fills it with the thread. The idempotency key is made here and travels in the metadata.
 */
export async function openCommentModal(
  context: FeatureContext,
  request: SlackRequest,
  args: { triggerId: string; target: CommentTarget; text?: string },
): Promise<void> {
  await showCommentModal(context, request, args, async (view) => {
    const opened = await request.slack.views.open({ trigger_id: args.triggerId, view: view });
    return opened.view?.id;
  });
}

/**
 * The same window shown by `show` (which puts the loading view up and answers its view id): the
 * message shortcut turns its own window, or a submitted one, into it. `text` fills the box (a quoted message).
 */
export async function showCommentModal(
  context: FeatureContext,
  request: SlackRequest,
  args: { target: CommentTarget; text?: string },
  show: (loadingView: ModalView) => Promise<string | undefined>,
): Promise<void> {
  const state: CommentModalMetadata = {
    e: args.target.entityType,
    id: args.target.entityId,
    k: randomUUID(),
    c: CHANNEL_ID.test(request.channelId) ? request.channelId : null,
    u: request.userId,
  };
  const metadata = await metadataOf(context, state);
  const viewId = await show(commentLoadingView(metadata));
  if (!viewId) throw new Error('the comment window was shown without a view id');
  await redrawModal(context, request.slack, {
    viewId,
    state,
    teamId: request.teamId,
    userId: request.userId,
    ...(args.text ? { text: args.text } : {}),
  });
}

/** Draws the modal from the service's latest thread; a failure to load is said in the modal. */
export async function redrawModal(
  context: FeatureContext,
  slack: AppSlack,
  args: {
    viewId: string;
    state: CommentModalMetadata;
    teamId: string;
    userId: string;
    text?: string;
    parentId?: string | null;
    problem?: Mrkdwn;
    notice?: Mrkdwn;
    /** The view as it is now, to refill (keeping the text) if the thread cannot be loaded. */
    current?: SubmittedView;
  },
): Promise<void> {
  const target = { entityType: args.state.e, entityId: args.state.id };
  let view: ModalView;
  try {
    const [loaded, facts, mayWrite] = await Promise.all([
      loadThread(context, args.teamId, args.userId, target),
      context.users.facts(args.userId, args.teamId),
      writesAllowed(context, args.teamId, args.userId),
    ]);
    const deletable = await mayDelete(
      context,
      args.teamId,
      args.userId,
      loaded.comments.map((comment) => comment.id),
    );
    const metadata = await metadataOf(context, { ...args.state, n: cutText(loaded.name, 300) });
    view = commentModal({
      privateMetadata: metadata,
      entityType: target.entityType,
      entityName: loaded.name,
      comments: loaded.comments,
      slackAuthors: loaded.slackAuthors,
      deletable,
      canWrite: !facts.isGuest,
      ...(mayWrite ? {} : { writeRefusal: COMMENT_NEEDS_OWN_KEY }),
      postedAs: loaded.source,
      ...(args.text !== undefined ? { text: args.text } : {}),
      ...(args.parentId !== undefined ? { parentId: args.parentId } : {}),
      ...(args.problem ? { problem: args.problem } : {}),
      ...(args.notice ? { notice: args.notice } : {}),
    });
  } catch (error) {
    context.logger.warn(
      { err: error, teamId: args.teamId, what: 'comment modal' },
      'could not load the thread',
    );
    const sentence =
      error instanceof NotFoundError
        ? mrkdwn`That ${plain(ENTITY_NOUNS[target.entityType])} was not found: it may have been removed, or your organisation cannot see it.`
        : describeFailure(error).sentence;
    const earlier = args.problem ?? args.notice;
    const problem = earlier ? mrkdwn`${earlier} ${sentence}` : sentence;
    view = args.current
      ? refilledView(args.current, { text: args.text ?? '', parentId: args.parentId ?? null, problem })
      : commentProblemView(await metadataOf(context, args.state), problem);
  }
  // The person may have closed the window meanwhile: nothing left to show, so only the log hears of it.
  await slack.views
    .update({ view_id: args.viewId, view: view })
    .catch((error) =>
      context.logger.warn({ err: error, teamId: args.teamId }, 'could not update the comment modal'),
    );
}
