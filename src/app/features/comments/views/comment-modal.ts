import type { PlainTextElement } from '@slack/types';
import type { Comment } from '../../../../contract/schemas.ts';
import { CommentIds } from '../../../shared/ids.ts';
import type { CommentEntityType } from '../../../shared/values/button-values.ts';
import { encodeIfFits } from '../../../shared/values/codec.ts';
import { counted } from '../../../shared/views/formats.ts';
import { commentAuthorLine, type KeySource } from '../../../shared/views/key-identity.ts';
import { clip, type Mrkdwn, mrkdwn, text as plain, safeText } from '../../../shared/views/mrkdwn.ts';
import type { SafeModalView as ModalView } from '../../../shared/views/safe-blocks.ts';
import { type Block, contextLine, section } from '../../../shared/views/tender-card.ts';
import { commentTimeUtc, ENTITY_NOUNS, modalThreadBlocks, threadOrder } from './comment-thread.ts';

/** Slack's plain_text_input holds 3,000 characters; the service allows 5,000. */
export const COMMENT_INPUT_MAX = 3000;

/** What a person sees, for the lead's browser test and the notes. */
export const COMMENT_LABELS = {
  title: 'Comment',
  submit: 'Post comment',
  close: 'Cancel',
  input: 'Your comment',
  inputHint: 'Up to 3,000 characters (Slack’s limit for one box).',
  parentLabel: 'Reply to',
  parentPlaceholder: 'Choose a comment to reply to',
  tenderNotice: 'Colleagues who bookmarked this tender may be notified of your comment.',
  /** Threads posted with `/tender comments` follow their comments: said before one is written. */
  postedThreadsNotice:
    'Where these comments were posted in a channel (/tender comments), yours shows there too.',
} as const;

/** Slack allows 100 options in a select. */
const PARENT_OPTIONS_MAX = 100;

function modalShell(privateMetadata: string, blocks: Block[], withSubmit: boolean): ModalView {
  return {
    type: 'modal' as const,
    callback_id: CommentIds.callback,
    private_metadata: privateMetadata,
    title: { type: 'plain_text' as const, text: COMMENT_LABELS.title },
    ...(withSubmit ? { submit: { type: 'plain_text' as const, text: COMMENT_LABELS.submit } } : {}),
    close: { type: 'plain_text' as const, text: withSubmit ? COMMENT_LABELS.close : 'Close' },
    blocks,
  };
}

/** Opened at once on "Comment" (the click's trigger lasts 3 s), then filled with views.update. */
export function commentLoadingView(privateMetadata: string): ModalView {
  return modalShell(privateMetadata, [section(mrkdwn`Loading the comments…`)], false);
}

/** A sentence in place of the form (the record is gone, the service failed while loading). */
export function commentProblemView(privateMetadata: string, sentence: Mrkdwn): ModalView {
  return modalShell(privateMetadata, [section(mrkdwn`:warning: ${sentence}`)], false);
}

/** Shown while a slow service is still posting the comment (the submission had to be answered). */
export function commentPostingView(privateMetadata: string, text: string): ModalView {
  return modalShell(
    privateMetadata,
    [
      section(mrkdwn`Posting your comment… The service is slow; this window will say when it is done.`),
      contextLine(safeText(text, 2900)),
    ],
    false,
  );
}

/** After a slow post succeeded. */
export function commentPostedView(privateMetadata: string, entityName: string): ModalView {
  return modalShell(
    privateMetadata,
    [section(mrkdwn`Your comment on *${safeText(entityName, 200)}* is posted.`)],
    false,
  );
}

/**
 * The comment modal: whose thread, the thread so far, the text box (3,000 characters, said in
 * its hint) and the comment to reply to. `text` and `parentId` refill the form after a failure,
 * so nothing typed is lost; `problem` says what went wrong, above the box.
 */
export function commentModal(args: {
  privateMetadata: string;
  entityType: CommentEntityType;
  entityName: string;
  comments: readonly Comment[];
  slackAuthors: ReadonlyMap<string, string>;
  deletable: ReadonlySet<string>;
  /** A guest sees the thread and a sentence, and no form. */
  canWrite: boolean;
  /** Why this person may not write here though not a guest (the workspace requires their own key): said instead of the form. */
  writeRefusal?: Mrkdwn;
  /** Whose key a comment is posted with: said above the box, since the service names its maker as author. */
  postedAs?: KeySource;
  text?: string;
  parentId?: string | null;
  /** What went wrong (shown with a warning sign), or `notice`: what was just done. */
  problem?: Mrkdwn;
  notice?: Mrkdwn;
}): ModalView {
  const noun = ENTITY_NOUNS[args.entityType];
  const count = args.comments.length;
  const blocks: Block[] = [
    section(
      mrkdwn`*${safeText(args.entityName, 200)}* (${plain(noun)}) · ${plain(count === 0 ? 'no comments yet' : `${counted(count, 'comment')}, oldest first`)}`,
    ),
  ];
  const thread = modalThreadBlocks(args);
  if (thread.length > 0) blocks.push(...thread);
  blocks.push({ type: 'divider' });
  if (!args.canWrite) {
    if (args.problem || args.notice)
      blocks.push(problemBlock(args.problem ? mrkdwn`:warning: ${args.problem}` : (args.notice as Mrkdwn)));
    blocks.push(
      section(mrkdwn`Guests can read comments but cannot write them. Ask a member of the workspace.`),
    );
    return modalShell(args.privateMetadata, blocks, false);
  }
  if (args.writeRefusal) {
    if (args.problem || args.notice)
      blocks.push(problemBlock(args.problem ? mrkdwn`:warning: ${args.problem}` : (args.notice as Mrkdwn)));
    blocks.push(section(args.writeRefusal));
    return modalShell(args.privateMetadata, blocks, false);
  }
  if (args.problem || args.notice)
    blocks.push(problemBlock(args.problem ? mrkdwn`:warning: ${args.problem}` : (args.notice as Mrkdwn)));
  blocks.push(
    contextLine(
      args.entityType === 'tender'
        ? plain(`${COMMENT_LABELS.tenderNotice} ${COMMENT_LABELS.postedThreadsNotice}`)
        : plain(COMMENT_LABELS.postedThreadsNotice),
    ),
  );
  if (args.postedAs) blocks.push(contextLine(commentAuthorLine(args.postedAs)));
  blocks.push({
    type: 'input',
    block_id: CommentIds.textBlock,
    label: { type: 'plain_text', text: COMMENT_LABELS.input },
    hint: { type: 'plain_text', text: COMMENT_LABELS.inputHint },
    element: {
      type: 'plain_text_input',
      action_id: CommentIds.textInput,
      multiline: true,
      max_length: COMMENT_INPUT_MAX,
      ...(args.text ? { initial_value: clip(args.text, COMMENT_INPUT_MAX) } : {}),
    },
  });
  const options = parentOptions(args.comments, args.slackAuthors);
  if (options.length > 0) {
    const initial = options.find((option) => option.value === args.parentId);
    blocks.push({
      type: 'input',
      block_id: CommentIds.parentBlock,
      optional: true,
      label: { type: 'plain_text', text: COMMENT_LABELS.parentLabel },
      element: {
        type: 'static_select',
        action_id: CommentIds.parentInput,
        placeholder: { type: 'plain_text', text: COMMENT_LABELS.parentPlaceholder },
        options,
        ...(initial ? { initial_option: initial } : {}),
      },
    });
  }
  return modalShell(args.privateMetadata, blocks, true);
}

/** The comments one can reply to (not deleted), newest 100, each as "author, time: first words". */
function parentOptions(comments: readonly Comment[], slackAuthors: ReadonlyMap<string, string>) {
  const live = threadOrder(comments)
    .map((entry) => entry.comment)
    .filter((comment) => comment.deletedAt === null && comment.body !== null);
  return live.slice(Math.max(0, live.length - PARENT_OPTIONS_MAX)).flatMap((comment) => {
    const value = encodeIfFits('record', comment.id, 'option');
    if (!value) return [];
    // plain_text cannot show a Slack mention, so a comment written through Tenderbot goes by its time alone.
    const who = slackAuthors.has(comment.id) ? '' : `${comment.author.name}: `;
    const label = `${commentTimeUtc(comment.createdAt).replace(' UTC', '')} · ${who}${(comment.body ?? '').replace(/\s+/g, ' ')}`;
    return [{ text: { type: 'plain_text' as const, text: clip(label, 75) }, value }];
  });
}

/** The sentence above the text box; refilledView replaces it rather than adding another. */
const PROBLEM_BLOCK = 'comment/problem';

function problemBlock(text: Mrkdwn): Block {
  return { ...section(text), block_id: PROBLEM_BLOCK } as Block;
}

/** A view as Slack sent it back in a submission or a click (only the fields a view may be sent with). */
export interface ViewLike {
  callback_id?: string;
  private_metadata?: string;
  title?: PlainTextElement;
  submit?: PlainTextElement;
  close?: PlainTextElement;
  blocks?: unknown[];
}

// biome-ignore lint/suspicious/noExplicitAny: blocks as Slack sent them back, edited field by field.
type LooseBlock = any;

/**
 * The same modal again with the person's text (and reply choice) refilled and a sentence above
 * the box: after a failure nothing typed is lost, and no call to the (failing) service is needed.
 */
export function refilledView(
  view: ViewLike,
  args: { text: string; parentId: string | null; problem: Mrkdwn },
): ModalView {
  const blocks: LooseBlock[] = (view.blocks ?? []).filter(
    (block: LooseBlock) => block?.block_id !== PROBLEM_BLOCK,
  );
  const refilled = blocks.map((block: LooseBlock) => {
    if (block?.type !== 'input') return block;
    const element = { ...block.element };
    if (element.action_id === CommentIds.textInput) {
      delete element.initial_value;
      if (args.text) element.initial_value = clip(args.text, COMMENT_INPUT_MAX);
    }
    if (element.action_id === CommentIds.parentInput) {
      delete element.initial_option;
      const chosen = (element.options ?? []).find((option: LooseBlock) => option?.value === args.parentId);
      if (chosen) element.initial_option = chosen;
    }
    return { ...block, element };
  });
  const at = refilled.findIndex((block: LooseBlock) => block?.block_id === CommentIds.textBlock);
  refilled.splice(at === -1 ? refilled.length : at, 0, problemBlock(mrkdwn`:warning: ${args.problem}`));
  return {
    type: 'modal' as const,
    callback_id: CommentIds.callback,
    private_metadata: view.private_metadata ?? '',
    title: view.title ?? { type: 'plain_text', text: COMMENT_LABELS.title },
    ...(view.submit ? { submit: view.submit } : {}),
    close: view.close ?? { type: 'plain_text', text: COMMENT_LABELS.close },
    blocks: refilled.slice(0, 100),
  };
}
