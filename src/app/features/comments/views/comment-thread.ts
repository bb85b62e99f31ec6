import type { Comment } from '../../../../contract/schemas.ts';
import { CommentIds } from '../../../shared/ids.ts';
import type { CommentEntityType } from '../../../shared/values/button-values.ts';
import { encodeIfFits } from '../../../shared/values/codec.ts';
import { counted, formatMomentUtc } from '../../../shared/views/formats.ts';
import {
  clipMrkdwn,
  indentLines,
  joinMrkdwn,
  localMoment,
  type Mrkdwn,
  mention,
  mrkdwn,
  pieces,
  safeText,
  text,
} from '../../../shared/views/mrkdwn.ts';
import type { Message } from '../../../shared/views/safe-blocks.ts';
import { type Block, commentButton, contextLine, section } from '../../../shared/views/tender-card.ts';

/** One comment placed in its thread: replies follow their parent, one level deeper. */
export interface ThreadEntry {
  comment: Comment;
  depth: number;
}

/** How deep replies are drawn; deeper ones sit at this depth (still after their parent). */
const MAX_DEPTH = 3;

/**
 * The thread in reading order: top-level comments oldest first, each followed by its replies
 * (oldest first, recursively). A reply whose parent is not in the list is drawn as top-level.
 */
export function threadOrder(comments: readonly Comment[]): ThreadEntry[] {
  const byId = new Map(comments.map((comment) => [comment.id, comment]));
  const children = new Map<string, Comment[]>();
  const roots: Comment[] = [];
  for (const comment of comments) {
    const parent =
      comment.parentId && comment.parentId !== comment.id ? byId.get(comment.parentId) : undefined;
    if (parent) children.set(parent.id, [...(children.get(parent.id) ?? []), comment]);
    else roots.push(comment);
  }
  const ordered: ThreadEntry[] = [];
  const seen = new Set<string>();
  const walk = (comment: Comment, depth: number) => {
    if (seen.has(comment.id)) return; // a cycle in the data must not loop forever
    seen.add(comment.id);
    ordered.push({ comment, depth: Math.min(depth, MAX_DEPTH) });
    for (const child of children.get(comment.id) ?? []) walk(child, depth + 1);
  };
  for (const root of roots) walk(root, 0);
  // Anything left (only in a cycle) still shows, at the top level.
  for (const comment of comments) walk(comment, 0);
  return ordered;
}

/** `21 Nov 2026, 09:30 UTC`, for plain text (an option's label); what the service wrote if no moment. */
export function commentTimeUtc(instant: string): string {
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return instant.slice(0, 40);
  return formatMomentUtc(date);
}

/** When a comment was written, in each reader's own time (its UTC words where Slack draws no date). */
export function formatCommentTime(instant: string): Mrkdwn {
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return safeText(instant, 40);
  return localMoment(date, 'moment', commentTimeUtc(instant));
}

/** The Slack person who wrote it through Tenderbot (`<@U…>`), else the service's author name. */
export function authorOf(comment: Comment, slackAuthors: ReadonlyMap<string, string>): Mrkdwn {
  const slackUser = slackAuthors.get(comment.id);
  if (slackUser && /^[UW][A-Z0-9]+$/.test(slackUser)) return mention(slackUser);
  return safeText(comment.author.name, 100) || mrkdwn`someone`;
}

export const DELETED_LINE = mrkdwn`_This comment was deleted._`;

/** One comment as mrkdwn: the indent for its depth, the author and time, then its text (clipped to `maxBody`). */
export function commentText(
  entry: ThreadEntry,
  slackAuthors: ReadonlyMap<string, string>,
  maxBody: number,
  /** Where a comment cut to `maxBody` can be read whole, said after the cut. */
  wholeWhere = '“Comment or reply” shows the newest comments whole',
): Mrkdwn {
  const { comment, depth } = entry;
  const indent = depth === 0 ? mrkdwn`` : text(`${'\u2003'.repeat(depth - 1)}↳ `);
  const head = mrkdwn`${indent}*${authorOf(comment, slackAuthors)}* · ${formatCommentTime(comment.createdAt)}${depth > 0 ? mrkdwn` · reply` : mrkdwn``}`;
  const escaped = comment.deletedAt !== null || comment.body === null ? DELETED_LINE : text(comment.body);
  // A cut comment says so, and where it can be read whole.
  const body =
    escaped.length > maxBody
      ? mrkdwn`${safeText(comment.body, maxBody)} _(cut: ${text(wholeWhere)})_`
      : escaped;
  // A reply's text is indented as far as its heading's arrow, so it reads as under its parent.
  return mrkdwn`${head}\n${indentLines(body, depth)}`;
}

/** What the thread of a command message holds at most: Slack refuses a message over 12,000 characters of blocks. */
const MESSAGE_TEXT_BUDGET = 9000;
const MESSAGE_SECTION_ROOM = 2900;

/**
 * `/tender comments <id>`: the thread for everyone in the channel. The newest comments that fit
 * are shown (with how many earlier ones are not), packed into sections of at most Slack's 3,000
 * characters; "Comment" opens the modal where one can also reply and delete.
 */
export function commentsThreadMessage(args: {
  entityType: CommentEntityType;
  entityId: string;
  entityName: string;
  comments: readonly Comment[];
  slackAuthors: ReadonlyMap<string, string>;
  /** A line under the title (the id also names another kind of record). */
  note?: Mrkdwn;
  /** Who posted it in the channel, when Tenderbot keeps it up to date (said last). */
  postedBy?: string;
}): Message {
  const noun = ENTITY_NOUNS[args.entityType];
  const name = safeText(args.entityName, 200);
  const count = args.comments.length;
  const title = mrkdwn`*Comments on the ${text(noun)} ${name}* · ${text(count === 0 ? 'none yet' : counted(count, 'comment'))}`;
  const blocks: Block[] = [section(title)];
  if (args.note) blocks.push(contextLine(args.note));
  const texts = threadOrder(args.comments).map((entry) => commentText(entry, args.slackAuthors, 700));
  // The newest that fit the budget, in reading order.
  let used = 0;
  let first = texts.length;
  while (first > 0 && used + (texts[first - 1]?.length ?? 0) + 2 <= MESSAGE_TEXT_BUDGET) {
    used += (texts[first - 1]?.length ?? 0) + 2;
    first -= 1;
  }
  if (first > 0)
    blocks.push(
      contextLine(
        mrkdwn`${first} earlier comment${first === 1 ? mrkdwn` is` : mrkdwn`s are`} not shown here; the Comment window shows more.`,
      ),
    );
  let current: Mrkdwn[] = [];
  let currentLength = 0;
  for (const entryText of texts.slice(first)) {
    if (current.length > 0 && currentLength + entryText.length + 2 > MESSAGE_SECTION_ROOM) {
      blocks.push(section(joinMrkdwn(current, mrkdwn`\n\n`)));
      current = [];
      currentLength = 0;
    }
    currentLength += (current.length > 0 ? 2 : 0) + entryText.length;
    current.push(entryText);
  }
  if (current.length > 0) blocks.push(section(joinMrkdwn(current, mrkdwn`\n\n`)));
  if (count === 0) blocks.push(section(mrkdwn`No one has commented yet.`));
  const open = commentButton(args.entityType, args.entityId);
  if (open) {
    open.text.text = count === 0 ? 'Write the first comment' : 'Comment or reply';
    blocks.push({ type: 'actions', elements: [open] });
  }
  if (args.postedBy)
    blocks.push(
      contextLine(
        mrkdwn`Posted by ${mention(args.postedBy)} with \`/tender comments\`. Comments written or deleted in Tenderbot show here too.`,
      ),
    );
  return {
    text: clipMrkdwn(mrkdwn`Comments on the ${text(noun)} ${text(args.entityName)}: ${count}`, 300),
    blocks,
  };
}

export const ENTITY_NOUNS: Record<CommentEntityType, string> = {
  tender: 'tender',
  buyer: 'buyer',
  supplier: 'supplier',
  framework: 'framework',
};

/** The modal holds at most this many comments (Slack allows 100 blocks in a modal). */
export const MODAL_THREAD_MAX = 80;

/**
 * The thread inside the comment modal: one section per comment, so a comment the viewer may
 * delete carries "Delete" (behind a confirm dialog). The newest MODAL_THREAD_MAX are shown.
 */
export function modalThreadBlocks(args: {
  comments: readonly Comment[];
  slackAuthors: ReadonlyMap<string, string>;
  /** Comment ids the person looking may delete. */
  deletable: ReadonlySet<string>;
}): Block[] {
  const entries = threadOrder(args.comments);
  // The newest MODAL_THREAD_MAX comments, each whole where the modal's blocks allow (a long one
  // takes consecutive sections of Slack's 3,000 characters): from the newest back, a comment is
  // whole while every older one shown can still have its block; the rest are cut, and say so.
  const shown = entries.slice(Math.max(0, entries.length - MODAL_THREAD_MAX));
  const drawn: Mrkdwn[][] = new Array(shown.length);
  let free = MODAL_THREAD_MAX;
  for (let index = shown.length - 1; index >= 0; index--) {
    const entry = shown[index] as ThreadEntry;
    const whole = pieces(commentText(entry, args.slackAuthors, Number.POSITIVE_INFINITY), 2900);
    // Whole while the `index` older comments shown can each still have their block.
    drawn[index] =
      whole.length === 1 || free - whole.length >= index
        ? whole
        : [commentText(entry, args.slackAuthors, 2500, 'this window shows the newest long comments whole')];
    free -= drawn[index]?.length ?? 1;
  }
  const blocks: Block[] = [];
  if (shown.length < entries.length)
    blocks.push(
      contextLine(
        mrkdwn`${entries.length - shown.length} earlier comments are not shown. \`/tender comments\` shows the thread in the channel.`,
      ),
    );
  for (const [index, entry] of shown.entries()) {
    const [head = mrkdwn``, ...continued] = drawn[index] ?? [];
    const block = section(head);
    const deleted = entry.comment.deletedAt !== null || entry.comment.body === null;
    const value =
      !deleted && args.deletable.has(entry.comment.id)
        ? encodeIfFits('commentDelete', { d: entry.comment.id })
        : null;
    if (value && block.type === 'section')
      block.accessory = {
        type: 'button',
        text: { type: 'plain_text', text: 'Delete' },
        action_id: CommentIds.delete,
        value,
        style: 'danger',
        confirm: {
          title: { type: 'plain_text', text: 'Delete this comment?' },
          text: { type: 'plain_text', text: 'Everyone will see it as deleted. This cannot be undone.' },
          confirm: { type: 'plain_text', text: 'Delete' },
          deny: { type: 'plain_text', text: 'Keep it' },
          style: 'danger',
        },
      };
    blocks.push(block, ...continued.map((piece) => section(piece)));
  }
  return blocks;
}
