/*
 * Over 500 lines for now: the comment feature (its window, posting once, the thread, delete) is
 * one folder's worth; the app's rebuild into a folder per feature (the open issue "A house a Bolt
 * maintainer would hold up") splits it with the rest of src/app in one step, rather than moving it
 * twice.
 */
import { createHash, randomUUID } from 'node:crypto';
import { NotFoundError, ValidationError } from '../../../client/errors.ts';
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import type { Comment } from '../../../contract/schemas.ts';
import type { AppSlack } from '../../adapters/app-slack.ts';
import { PersonalKeyRequiredError } from '../../shared/errors.ts';
import { describeFailure, PERSONAL_KEY_REQUIRED_SENTENCE } from '../../shared/failure-sentences.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { reply } from '../../shared/feature-context.ts';
import { CommentIds } from '../../shared/ids.ts';
import { writerOr } from '../../shared/key-access.ts';
import { COMMENT_ENTITY_TYPES, type CommentEntityType } from '../../shared/values/button-values.ts';
import { decode, encodeKept, StaleValueError } from '../../shared/values/codec.ts';
import type { CommentModalMetadata } from '../../shared/values/comment-values.ts';
import type { KeySource } from '../../shared/views/key-identity.ts';
import { sentenceMessage } from '../../shared/views/messages.ts';
import {
  clip,
  code,
  escapeMrkdwn,
  joinMrkdwn,
  type Mrkdwn,
  mrkdwn,
  text as plain,
  safeText,
} from '../../shared/views/mrkdwn.ts';
import type { SafeModalView as ModalView } from '../../shared/views/safe-blocks.ts';
import { section } from '../../shared/views/tender-card.ts';
import { withinBudget } from '../../shared/within-budget.ts';
import {
  COMMENT_INPUT_MAX,
  commentLoadingView,
  commentModal,
  commentPostedView,
  commentPostingView,
  commentProblemView,
  refilledView,
  type ViewLike,
} from './views/comment-modal.ts';
import { commentsThreadMessage, ENTITY_NOUNS } from './views/comment-thread.ts';

/** What "Comment" was clicked on. */
export interface CommentTarget {
  entityType: CommentEntityType;
  entityId: string;
}

/** The most comments read for one thread (the service pages by 100). */
const THREAD_MAX = 1000;

/** A submission is answered within this long (Slack waits 3 s); a slower post finishes in the open modal. */
export const COMMENT_ACK_BUDGET_MS = 2000;

export const STALE_MODAL_SENTENCE =
  'This comment window is out of date or was changed, so Tenderbot cannot tell where the comment goes. Copy your text, close the window and press Comment again. Nothing was posted.';

export const DELETE_REFUSAL = mrkdwn`Only the person who wrote a comment, or a workspace owner or admin, can delete it. Nothing was deleted.`;

/** In the window, instead of the form, when the workspace requires each person's own key for changes. */
export const COMMENT_NEEDS_OWN_KEY = mrkdwn`In this workspace, comments are written with each person’s own key, and you have not linked yours. Run \`/tender connect me\` to link it, then press Comment again.`;

const GUEST_WRITE_REFUSAL =
  'Guests can read comments but cannot write or delete them. Ask a member of the workspace to do it for you.';

// ------------------------------------------------------------------------------------------------
// Reading: the entity's name and its thread

async function entityName(client: ProcurementClient, target: CommentTarget): Promise<string> {
  switch (target.entityType) {
    case 'tender':
      return (await client.tenders.get(target.entityId)).title;
    case 'buyer':
      return (await client.buyers.get(target.entityId)).name;
    case 'supplier':
      return (await client.suppliers.get(target.entityId)).name;
    case 'framework':
      return (await client.frameworks.get(target.entityId)).title;
  }
}

async function threadOf(client: ProcurementClient, target: CommentTarget): Promise<Comment[]> {
  const comments: Comment[] = [];
  for await (const comment of client.comments.all({
    entityType: target.entityType,
    entityId: target.entityId,
    limit: 100,
  })) {
    comments.push(comment);
    if (comments.length >= THREAD_MAX) break;
  }
  return comments;
}

interface LoadedThread {
  name: string;
  comments: Comment[];
  slackAuthors: Map<string, string>;
  /** Whose key the person's comment would be posted with (said in the window). */
  source: KeySource;
}

async function loadThread(
  context: FeatureContext,
  teamId: string,
  userId: string,
  target: CommentTarget,
): Promise<LoadedThread> {
  const { client, source } = await context.clients.forPerson(teamId, userId);
  const [name, comments] = await Promise.all([entityName(client, target), threadOf(client, target)]);
  const slackAuthors = await context.store.commentAuthors(
    teamId,
    comments.map((comment) => comment.id),
  );
  return { name, comments, slackAuthors, source };
}

/** False when the workspace requires a person's own key for changes and this person has none. */
async function writesAllowed(context: FeatureContext, teamId: string, userId: string): Promise<boolean> {
  try {
    await context.clients.forWrite(teamId, userId);
    return true;
  } catch (error) {
    if (error instanceof PersonalKeyRequiredError) return false;
    throw error;
  }
}

/** Who may delete a comment through Tenderbot: whoever wrote it through Tenderbot, and workspace owners and admins. */
async function mayDelete(
  context: FeatureContext,
  teamId: string,
  userId: string,
  commentIds: readonly string[],
): Promise<Set<string>> {
  const facts = await context.users.facts(userId);
  if (facts.isGuest) return new Set();
  if (facts.isAdmin) return new Set(commentIds);
  const authors = await context.store.commentAuthors(teamId, commentIds);
  return new Set(commentIds.filter((id) => authors.get(id) === userId));
}

// ------------------------------------------------------------------------------------------------
// `/tender comments <id>`

const PREFIXED = new RegExp(`^(${COMMENT_ENTITY_TYPES.join('|')}):(\\S+)$`, 'i');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Which entities an id may be, in the order they are tried: `buyer:<id>` (and the other three)
 * names one; a UUID is a buyer, else a supplier; any other id is a framework, else a tender (a
 * framework's own notice is also a tender under the same id: the framework is meant more often,
 * and the answer names the other).
 */
export function candidateTargets(text: string): CommentTarget[] {
  const word = text.trim();
  const prefixed = PREFIXED.exec(word);
  if (prefixed)
    return [{ entityType: prefixed[1]?.toLowerCase() as CommentEntityType, entityId: prefixed[2] as string }];
  if (!word || /\s/.test(word) || word.length > 300) return [];
  const order: CommentEntityType[] = UUID.test(word) ? ['buyer', 'supplier'] : ['framework', 'tender'];
  return order.map((entityType) => ({ entityType, entityId: word }));
}

const COMMENTS_USAGE =
  'Give the id of a tender, buyer, supplier or framework: `/tender comments ocds-b5fd17-…`. To name the kind, write `buyer:<id>`, `supplier:<id>`, `framework:<id>` or `tender:<id>`.';

/** `/tender comments <id>`: the thread on a tender, buyer, supplier or framework, for everyone in the channel. */
export async function commentsCommand(
  context: FeatureContext,
  request: SlackRequest,
  rest: string,
): Promise<void> {
  const candidates = candidateTargets(rest);
  if (candidates.length === 0) {
    const sentence = escapeMrkdwn(COMMENTS_USAGE);
    await reply(request, sentenceMessage(sentence));
    return;
  }
  const { client } = await context.clients.forPerson(request.teamId, request.userId);
  // Every kind the id may be is asked at once; the first found (in the documented order) is shown.
  const found = await Promise.all(
    candidates.map(async (target) => {
      try {
        return { target, name: await entityName(client, target) };
      } catch (error) {
        if (error instanceof NotFoundError || error instanceof ValidationError) return null;
        throw error;
      }
    }),
  );
  const [shown, ...others] = found.filter((entry) => entry !== null);
  if (shown) {
    const { target, name } = shown;
    const comments = await threadOf(client, target);
    const slackAuthors = await context.store.commentAuthors(
      request.teamId,
      comments.map((comment) => comment.id),
    );
    const note = joinMrkdwn(
      others.map(
        (other) =>
          mrkdwn`This id is also a ${plain(ENTITY_NOUNS[other.target.entityType])}: ${code(`/tender comments ${other.target.entityType}:${clip(other.target.entityId, 300)}`)} shows its comments.`,
      ),
      mrkdwn` `,
    );
    const message = commentsThreadMessage({
      ...target,
      entityName: name,
      comments,
      slackAuthors,
      ...(note ? { note } : {}),
    });
    await request.respond({
      response_type: 'in_channel',
      replace_original: false,
      text: message.text,
      blocks: message.blocks,
    });
    return;
  }
  const kinds =
    candidates.length === 1
      ? plain(`No ${ENTITY_NOUNS[candidates[0]?.entityType ?? 'tender']} has`)
      : mrkdwn`No tender, buyer, supplier or framework has`;
  const sentence = mrkdwn`${kinds} the id ${code(candidates[0]?.entityId ?? '', 300)} (or your organisation cannot see it). Check the id: \`/tender search\`, \`/tender buyers\` and \`/tender frameworks\` show them.`;
  await reply(request, sentenceMessage(sentence));
}

// ------------------------------------------------------------------------------------------------
// The modal

const CHANNEL_ID = /^[CDG][A-Z0-9]{1,30}$/;

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
async function redrawModal(
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
      context.users.facts(args.userId),
      writesAllowed(context, args.teamId, args.userId),
    ]);
    const deletable = await mayDelete(
      context,
      args.teamId,
      args.userId,
      loaded.comments.map((comment) => comment.id),
    );
    const metadata = await metadataOf(context, { ...args.state, n: loaded.name.slice(0, 300) });
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

// ------------------------------------------------------------------------------------------------
// Submitting

/** The parts of a submitted view that can be sent back to Slack as a view. */
export type SubmittedView = ViewLike;

export type CommentSubmissionAnswer =
  | { response_action: 'errors'; errors: Record<string, string> }
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

function fieldError(block: string, sentence: string): CommentSubmissionAnswer {
  return { response_action: 'errors', errors: { [block]: sentence } };
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
  if ((await context.users.facts(args.userId)).isGuest)
    return ack(fieldError(CommentIds.textBlock, GUEST_WRITE_REFUSAL));
  // Refused before the text is looked at: nothing would be written whatever it says.
  const writer = await writerOr(context, args.teamId, args.userId, (sentence) =>
    ack(fieldError(CommentIds.textBlock, sentence)),
  );
  if (!writer) return;
  const body = args.text.trim();
  if (!body) return ack(fieldError(CommentIds.textBlock, 'Write your comment first.'));
  const length = [...body].length;
  if (length > COMMENT_INPUT_MAX)
    return ack(
      fieldError(
        CommentIds.textBlock,
        `A comment can be at most ${COMMENT_INPUT_MAX.toLocaleString('en-GB')} characters here; this one has ${length.toLocaleString('en-GB')}. Shorten it.`,
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
          'That choice is out of date. Choose the comment to reply to again.',
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
    if (problem.field) return ack(fieldError(problem.field, problem.sentence));
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

// ------------------------------------------------------------------------------------------------
// Deleting

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
