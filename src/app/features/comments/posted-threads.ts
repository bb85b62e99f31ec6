/*
 * Comment threads posted in channels (`/tender comments <id>`) follow their comments: each thread
 * posted is remembered, and a comment written or deleted through Tenderbot redraws every thread of
 * that record posted in the workspace, so a deleted comment's words do not stay in a channel and a
 * new one joins the threads people read.
 */
import type { AppSlack } from '../../adapters/app-slack.ts';
import { isMessageGone } from '../../adapters/slack-errors.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { queuePerKey } from '../../shared/queue-per-key.ts';
import { type CommentTarget, entityName, threadOf } from './comment-access.ts';
import { commentsThreadMessage } from './views/comment-thread.ts';

/**
 * How many of a record's posted threads are redrawn after a change, the newest first: where people
 * most likely still read them, at Slack's pace.
 */
const THREADS_REDRAWN = 20;

/** One record's redraws one after another, each reading the comments when its turn comes. */
const inTurn = queuePerKey();

/**
 * Runs `work` in the record's turn: a thread read, posted and remembered there is never missed by a
 * redraw for a comment changed meanwhile (that redraw waits, then finds the thread remembered).
 */
export function inRecordTurn<T>(teamId: string, target: CommentTarget, work: () => Promise<T>): Promise<T> {
  return inTurn(turnKey(teamId, target), work);
}

function turnKey(teamId: string, target: CommentTarget): string {
  return `${teamId}\u0000${target.entityType}\u0000${target.entityId}`;
}

/** Remembers a thread just posted, so that a later comment written or deleted redraws it. */
export async function rememberPostedThread(
  context: FeatureContext,
  thread: CommentTarget & { teamId: string; channelId: string; ts: string; postedBy: string },
): Promise<void> {
  await context.store.rememberCommentThread(thread, context.clock());
}

/**
 * Redraws the record's posted threads in the workspace as the comments now read, each with the key
 * of the person who posted it (their own, else the workspace's, as it was shown). A thread Slack
 * says is gone is forgotten; any other failure is only logged: the comment itself was changed.
 */
export function redrawPostedThreads(
  context: FeatureContext,
  slack: AppSlack,
  teamId: string,
  target: CommentTarget,
): Promise<number> {
  return inTurn(turnKey(teamId, target), async () => {
    const threads = await context.store.commentThreads(teamId, target, THREADS_REDRAWN);
    // Most records' comments are posted nowhere: nothing is read for them.
    if (threads.length === 0) return 0;
    let redrawn = 0;
    for (const thread of threads) {
      try {
        const { client } = await context.clients.forPerson(teamId, thread.postedBy);
        const [named, comments] = await Promise.all([entityName(client, target), threadOf(client, target)]);
        const slackAuthors = await context.store.commentAuthors(
          teamId,
          comments.map((comment) => comment.id),
        );
        const message = commentsThreadMessage({
          ...target,
          entityName: named.name,
          comments,
          slackAuthors,
          postedBy: thread.postedBy,
        });
        await slack.chat.update({
          channel: thread.channelId,
          ts: thread.ts,
          text: message.text,
          blocks: message.blocks,
        });
        redrawn++;
      } catch (error) {
        if (isMessageGone(error))
          await context.store.forgetCommentThread(teamId, thread.channelId, thread.ts);
        else context.logger.warn({ err: error, teamId }, 'could not redraw a posted comment thread');
      }
    }
    return redrawn;
  });
}

/** After a comment was written or deleted: the threads posted in channels redrawn, in the background. */
export function followCommentChange(
  context: FeatureContext,
  slack: AppSlack,
  teamId: string,
  target: CommentTarget,
): void {
  void redrawPostedThreads(context, slack, teamId, target).catch((error) =>
    context.logger.warn({ err: error, teamId }, 'could not redraw the posted threads of a record'),
  );
}
