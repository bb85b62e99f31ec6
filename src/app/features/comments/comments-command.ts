import { createHash } from 'node:crypto';
import { NotFoundError, ValidationError } from '../../../client/errors.ts';
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import type { Pipeline } from '../../../contract/schemas.ts';
import { isMessageGone } from '../../adapters/slack-errors.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { reply } from '../../shared/feature-context.ts';
import { firstWithin } from '../../shared/repeat-guard.ts';
import { COMMENT_ENTITY_TYPES, type CommentEntityType } from '../../shared/values/button-values.ts';
import { type Message, sentenceMessage } from '../../shared/views/messages.ts';
import { clip, code, joinMrkdwn, mrkdwn, text as plain, safeText } from '../../shared/views/mrkdwn.ts';
import { resolveBidId } from '../bids/index.ts';
import { tenderByReference } from '../tenders/index.ts';
import { type CommentTarget, entityName, threadOf } from './comment-access.ts';
import { inRecordTurn, redrawPostedThreads, rememberPostedThread } from './posted-threads.ts';
import { commentsThreadMessage, ENTITY_NOUNS } from './views/comment-thread.ts';

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

/** The same thread posted again in a channel within this is a repeat (the command run twice), not posted. */
const REPEAT_THREAD_MS = 60_000;

const COMMENTS_USAGE = mrkdwn`Give the id of a tender, buyer, supplier or framework: \`/tender comments ocds-b5fd17-…\`. To name the kind, write \`buyer:&lt;id&gt;\`, \`supplier:&lt;id&gt;\`, \`framework:&lt;id&gt;\` or \`tender:&lt;id&gt;\`.`;

/** The thread of one record: to the asker alone when empty, else posted in the channel once a minute. */
async function showThread(
  context: FeatureContext,
  request: SlackRequest,
  client: ProcurementClient,
  shown: { target: CommentTarget; name: string },
  others: readonly { target: CommentTarget; name: string }[],
): Promise<void> {
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
  const draw = (postedBy?: string) =>
    commentsThreadMessage({
      ...target,
      entityName: name,
      comments,
      slackAuthors,
      ...(note ? { note } : {}),
      ...(postedBy ? { postedBy } : {}),
    });
  const message = draw();
  // No comments yet: said to the asker alone (with the way to write the first), not to the channel.
  if (comments.length === 0) {
    await reply(request, message);
    return;
  }
  // The same thread posted in this channel within the minute (the command run twice) is said, not
  // posted again; a comment added, changed or deleted since makes it another thread, posted.
  const drawn = createHash('sha256').update(JSON.stringify(message.blocks)).digest('base64url');
  const claim = await firstWithin(
    context.store,
    `comments:${request.teamId}:${request.channelId}:${drawn}`,
    REPEAT_THREAD_MS,
    context.clock(),
  );
  if (!claim.first) {
    await reply(
      request,
      sentenceMessage(
        mrkdwn`These comments were posted in this channel moments ago, so they were not posted again.`,
      ),
    );
    return;
  }
  try {
    await postThread(
      context,
      request,
      target,
      draw,
      async () => JSON.stringify(await threadOf(client, target)) === JSON.stringify(comments),
    );
  } catch (error) {
    // Not posted, so not a repeat: the next run goes ahead.
    await claim.release();
    throw error;
  }
}

/**
 * Posts a thread in the request's channel as Tenderbot and remembers it, so that a comment written
 * or deleted later redraws it (posted-threads.ts). Where Tenderbot is not a member, the command's
 * own answer posts it in the channel instead: seen alike, but not redrawn.
 */
async function postThread(
  context: FeatureContext,
  request: SlackRequest,
  target: CommentTarget,
  draw: (postedBy?: string) => Message,
  /** Whether the comments still read as drawn. */
  stillAsDrawn: () => Promise<boolean>,
): Promise<void> {
  const kept = draw(request.userId);
  let ts: string | undefined;
  try {
    ts = (
      await request.slack.chat.postMessage({
        channel: request.channelId,
        text: kept.text,
        blocks: kept.blocks,
        unfurl_links: false,
      })
    ).ts;
  } catch (error) {
    if (!isMessageGone(error)) throw error;
  }
  if (ts) {
    // Posted: a failure to remember it only means it is not redrawn, said in the log (a throw
    // here would have the person run it again, and post it twice).
    await rememberPostedThread(context, {
      ...target,
      teamId: request.teamId,
      channelId: request.channelId,
      ts,
      postedBy: request.userId,
    }).catch((error) =>
      context.logger.warn(
        { err: error, teamId: request.teamId },
        'could not remember a posted comment thread',
      ),
    );
    // A change another copy made between the read and the remembering found no thread to redraw:
    // read again once remembered, and redraw it (in the record's next turn) if they differ. A
    // change after the remembering redraws it itself, so no change is missed either way.
    if (!(await stillAsDrawn().catch(() => false)))
      void redrawPostedThreads(context, request.slack, request.teamId, target).catch((error: unknown) =>
        context.logger.warn(
          { err: error, teamId: request.teamId },
          'could not redraw a posted comment thread',
        ),
      );
    return;
  }
  const message = draw();
  await request.respond({
    response_type: 'in_channel',
    replace_original: false,
    text: message.text,
    blocks: message.blocks,
  });
}

/**
 * `/tender comments BID-7`: comments are kept on records, not bids, so the bid's tender's thread is
 * posted, said to be the tender's; a bid with no tender is said to have no thread.
 */
async function bidTenderThread(
  context: FeatureContext,
  request: SlackRequest,
  client: ProcurementClient,
  typed: string,
): Promise<void> {
  const resolved = await resolveBidId(context, request.teamId, typed, client);
  if ('problem' in resolved) {
    await reply(request, sentenceMessage(resolved.problem));
    return;
  }
  let bid: Pipeline;
  try {
    bid = await client.pipelines.get(resolved.id);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    await reply(
      request,
      sentenceMessage(
        mrkdwn`${code(typed.trim(), 40)} cannot be seen with this key, so neither can its tender’s comments.`,
      ),
    );
    return;
  }
  if (!bid.tenderId) {
    await reply(
      request,
      sentenceMessage(
        mrkdwn`Comments are kept on tenders, buyers, suppliers and frameworks, not on bids, and *${safeText(bid.name, 200)}* was started without a tender, so it has none.`,
      ),
    );
    return;
  }
  await commentsCommand(context, request, `tender:${bid.tenderId}`);
}

/** `/tender comments <id>`: the thread on a tender, buyer, supplier or framework, for everyone in the channel. */
export async function commentsCommand(
  context: FeatureContext,
  request: SlackRequest,
  rest: string,
): Promise<void> {
  // A bid's reference (`BID-7`, `bid 7`): bids have no thread of their own, their tender's is
  // theirs. Asked first: it is one store read, where the record kinds are three service reads.
  if (/^\s*bid[-\s]?\d+\s*$/i.test(rest)) {
    const { client } = await context.clients.forPerson(request.teamId, request.userId);
    await bidTenderThread(context, request, client, rest);
    return;
  }
  const candidates = candidateTargets(rest);
  if (candidates.length === 0) {
    await reply(request, sentenceMessage(COMMENTS_USAGE));
    return;
  }
  const { client } = await context.clients.forPerson(request.teamId, request.userId);
  // Every kind the id may be is asked at once; the first found (in the documented order) is shown.
  const found = await Promise.all(
    candidates.map(async (target) => {
      try {
        const named = await entityName(client, target);
        return { target: { ...target, entityId: named.entityId }, name: named.name };
      } catch (error) {
        if (error instanceof NotFoundError || error instanceof ValidationError) return null;
        throw error;
      }
    }),
  );
  const [shown, ...others] = found.filter((entry) => entry !== null);
  if (shown) {
    // Read, posted and remembered in the record's turn: a redraw for a comment changed meanwhile
    // waits for it, then finds this thread remembered.
    await inRecordTurn(request.teamId, shown.target, () =>
      showThread(context, request, client, shown, others),
    );
    return;
  }
  // A tender's printed reference (its source's notice id, as its card shows it) names it too.
  const tenderCandidate = candidates.find((target) => target.entityType === 'tender');
  if (tenderCandidate) {
    const byReference = await tenderByReference(context, request, tenderCandidate.entityId);
    if (byReference.kind === 'one') {
      await commentsCommand(context, request, `tender:${byReference.tender.id}`);
      return;
    }
    if (byReference.kind === 'several') {
      // One printed reference, several tenders (a notice and its amendments): each one's comments by its id, as /tender show lists them.
      const each = joinMrkdwn(
        byReference.tenders.map(
          (tender) => mrkdwn`${code(`/tender comments ${tender.id}`, 200)} ${safeText(tender.title, 150)}`,
        ),
        mrkdwn`\n`,
      );
      await reply(
        request,
        sentenceMessage(
          mrkdwn`${plain(byReference.total.toLocaleString('en-GB'))} tenders have the reference ${code(tenderCandidate.entityId, 300)}; say which one's comments:\n${each}`,
        ),
      );
      return;
    }
  }
  const kinds =
    candidates.length === 1
      ? plain(`No ${ENTITY_NOUNS[candidates[0]?.entityType ?? 'tender']} has`)
      : mrkdwn`No tender, buyer, supplier or framework has`;
  const sentence = mrkdwn`${kinds} the id ${code(candidates[0]?.entityId ?? '', 300)} (or your organisation cannot see it). Check the id: \`/tender search\`, \`/tender buyers\` and \`/tender frameworks\` show them.`;
  await reply(request, sentenceMessage(sentence));
}
