/** What other features may use of comments: the comment window (the message shortcut opens it). */
export { showCommentModal } from './comment-window.ts';
export { COMMENT_INPUT_MAX } from './views/comment-modal.ts';
