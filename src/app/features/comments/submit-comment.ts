import { createHash } from 'node:crypto';
import { NotFoundError, ValidationError } from '../../../client/errors.ts';
import type { Comment } from '../../../contract/schemas.ts';
import { isBlank } from '../../../contract/visible-text.ts';
import type { AppSlack } from '../../adapters/app-slack.ts';
import { describeFailure } from '../../shared/failure-sentences.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { CommentIds } from '../../shared/ids.ts';
import { writerOr } from '../../shared/key-access.ts';
import { decode, StaleValueError } from '../../shared/values/codec.ts';
import type { CommentModalMetadata } from '../../shared/values/comment-values.ts';
import { clip, code, type Mrkdwn, mrkdwn, text as plain, safeText } from '../../shared/views/mrkdwn.ts';
import {
  type FieldErrors,
  fieldErrors,
  type PlainSentence,
  plainOf,
  plainSentence,
} from '../../shared/views/plain-sentence.ts';
import type { SafeModalView as ModalView } from '../../shared/views/safe-blocks.ts';
import { section } from '../../shared/views/tender-card.ts';
import { withinBudget } from '../../shared/within-budget.ts';
import type { SubmittedView } from './comment-window.ts';
import { followCommentChange } from './posted-threads.ts';
import {
  COMMENT_INPUT_MAX,
  commentPostedView,
  commentPostingView,
  refilledView,
} from './views/comment-modal.ts';
import { ENTITY_NOUNS } from './views/comment-thread.ts';

/** A submission is answered within this long (Slack waits 3 s); a slower post finishes in the open modal. */
export const COMMENT_ACK_BUDGET_MS = 2000;

export const STALE_MODAL_SENTENCE = plainSentence`This comment window is out of date or was changed, so Tenderbot cannot tell where the comment goes. Copy your text, close the window and press Comment again. Nothing was posted.`;

export const GUEST_WRITE_REFUSAL = plainSentence`Guests can read comments but cannot write or delete them. Ask a member of the workspace to do it for you.`;

export type CommentSubmissionAnswer =
  | FieldErrors
  | { response_action: 'update'; view: ModalView }
  | undefined;

/**
 * Each submission's idempotency key: derived from the key made when the modal opened and from
 * what is posted, so a double submit or a retry of the same comment makes one comment, while a
 * text changed after a failure is a new comment (not a 409 that would lose it).
 */
export function submissionKey(modalKey: string, body: string, parentId: string | null): string {
  const hex = createHash('sha256')
    .update(JSON.stringify([modalKey, body, parentId]))
    .digest('hex');
  // A name-based UUID (version 5 layout, RFC 4122 variant).
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((Number.parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function fieldError(block: string, sentence: PlainSentence): CommentSubmissionAnswer {
  return fieldErrors({ [block]: sentence });
}

/**
 * The comment modal's submission, answered within Slack's 3 s whatever the service does:
 * input problems show on their field; a quick success closes the modal; a quick failure redraws
 * it with the text kept and a sentence; a slow post shows "posting…" and finishes in the modal.
 */
export async function submitComment(
  context: FeatureContext,
  slack: AppSlack,
  args: {
    teamId: string;
    userId: string;
    text: string;
    parentValue: string | null;
    privateMetadata: string;
    viewId: string | undefined;
    view: SubmittedView;
  },
  ack: (answer?: CommentSubmissionAnswer) => Promise<void>,
  budgetMs = COMMENT_ACK_BUDGET_MS,
): Promise<void> {
  let state: CommentModalMetadata;
  try {
    state = await decode('commentModal', args.privateMetadata, context.store, context.clock());
  } catch (error) {
    if (!(error instanceof StaleValueError)) throw error;
    return ack(fieldError(CommentIds.textBlock, STALE_MODAL_SENTENCE));
  }
  if (state.u !== args.userId) return ack(fieldError(CommentIds.textBlock, STALE_MODAL_SENTENCE));
  if ((await context.users.facts(args.userId, args.teamId)).isGuest)
    return ack(fieldError(CommentIds.textBlock, GUEST_WRITE_REFUSAL));
  // Refused before the text is looked at: nothing would be written whatever it says.
  const writer = await writerOr(context, args.teamId, args.userId, (sentence) =>
    ack(fieldError(CommentIds.textBlock, plainOf(sentence))),
  );
  if (!writer) return;
  const body = args.text.trim();
  if (isBlank(body)) return ack(fieldError(CommentIds.textBlock, plainSentence`Write your comment first.`));
  const length = [...body].length;
  if (length > COMMENT_INPUT_MAX)
    return ack(
      fieldError(
        CommentIds.textBlock,
        plainSentence`A comment can be at most ${COMMENT_INPUT_MAX.toLocaleString('en-GB')} characters here; this one has ${length.toLocaleString('en-GB')}. Shorten it.`,
      ),
    );
  let parentId: string | null = null;
  if (args.parentValue) {
    try {
      parentId = await decode('record', args.parentValue, context.store, context.clock());
    } catch (error) {
      if (!(error instanceof StaleValueError)) throw error;
      return ack(
        fieldError(
          CommentIds.parentBlock,
          plainSentence`That choice is out of date. Choose the comment to reply to again.`,
        ),
      );
    }
  }

  const post = async (): Promise<Comment> => {
    const { client } = writer;
    const comment = await client.comments.create(
      { entityType: state.e, entityId: state.id, body, parentId },
      { idempotencyKey: submissionKey(state.k, body, parentId) },
    );
    // The service knows only the key's creator: who in Slack wrote it is Tenderbot's to keep.
    await context.store.recordCommentAuthor({
      commentId: comment.id,
      teamId: args.teamId,
      userId: args.userId,
      createdAt: context.clock(),
    });
    // The threads posted in channels take it in (in the background: the window is answered first).
    followCommentChange(context, slack, args.teamId, { entityType: state.e, entityId: state.id });
    return comment;
  };
  const { quick, outcome } = await withinBudget(post(), budgetMs);
  const name = state.n ?? `this ${ENTITY_NOUNS[state.e]}`;
  const problemOf = (error: unknown): { field: string | null; sentence: Mrkdwn } => {
    context.logger.warn({ err: error, teamId: args.teamId, what: 'comment' }, 'could not post a comment');
    if (error instanceof ValidationError) {
      const onParent = error.fieldErrors.some((field) => field.field === 'parentId');
      if (onParent)
        return {
          field: CommentIds.parentBlock,
          sentence: mrkdwn`The service cannot attach a reply to that comment (it may have been deleted). Choose another.`,
        };
    }
    if (error instanceof NotFoundError)
      return {
        field: null,
        sentence: mrkdwn`That ${plain(ENTITY_NOUNS[state.e])} was not found: it may have been removed. Your text is kept here; copy it before closing.`,
      };
    const { sentence, retryable } = describeFailure(error);
    return {
      field: null,
      sentence: mrkdwn`Your comment was not posted. ${sentence} ${retryable ? mrkdwn`Your text is kept here: press Post comment to try again.` : mrkdwn`Your text is kept here; copy it before closing this window.`}`,
    };
  };
  const refill = (problem: Mrkdwn) =>
    refilledView(args.view, { text: args.text, parentId: args.parentValue, problem });

  if (quick) {
    if ('value' in quick) {
      await ack();
      await tellPosted(context, slack, args.userId, state, name);
      return;
    }
    const problem = problemOf(quick.error);
    if (problem.field) return ack(fieldError(problem.field, plainOf(problem.sentence)));
    return ack({ response_action: 'update', view: refill(problem.sentence) });
  }
  await ack({ response_action: 'update', view: commentPostingView(args.privateMetadata, args.text) });
  const result = await outcome;
  if (!args.viewId) return;
  const view =
    'value' in result
      ? commentPostedView(args.privateMetadata, name)
      : refill(problemOf(result.error).sentence);
  await slack.views
    .update({ view_id: args.viewId, view: view })
    .catch((error) =>
      context.logger.warn({ err: error, teamId: args.teamId }, 'could not update the comment modal'),
    );
  if ('value' in result) await tellPosted(context, slack, args.userId, state, name);
}

/** "Posted": in the channel the modal was opened from (only to them), else by direct message. */
async function tellPosted(
  context: FeatureContext,
  slack: AppSlack,
  userId: string,
  state: CommentModalMetadata,
  name: string,
): Promise<void> {
  const text = mrkdwn`Your comment on the ${plain(ENTITY_NOUNS[state.e])} *${safeText(name, 200)}* is posted. ${code(`/tender comments ${clip(state.id, 300)}`)} shows the thread.`;
  try {
    if (state.c) {
      await slack.chat.postEphemeral({ channel: state.c, user: userId, text, blocks: [section(text)] });
      return;
    }
  } catch (error) {
    context.logger.info(
      { err: error },
      'could not confirm a comment in its channel; trying a direct message',
    );
  }
  await slack.chat
    .postMessage({ channel: userId, text, blocks: [section(text)] })
    .catch((error) => context.logger.warn({ err: error }, 'could not confirm a comment'));
}
