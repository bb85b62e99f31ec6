/**
 * The comments feature's handlers, split by concern; this path keeps exporting them for the
 * callers that import it (listeners, the `/tender` command, index.ts, tests).
 */
export type { CommentTarget } from './comment-access.ts';
export {
  COMMENT_NEEDS_OWN_KEY,
  openCommentModal,
  type SubmittedView,
  showCommentModal,
} from './comment-window.ts';
export { candidateTargets, commentsCommand } from './comments-command.ts';
export { DELETE_REFUSAL, deleteFromModal } from './delete-comment.ts';
export {
  COMMENT_ACK_BUDGET_MS,
  type CommentSubmissionAnswer,
  STALE_MODAL_SENTENCE,
  submissionKey,
  submitComment,
} from './submit-comment.ts';
