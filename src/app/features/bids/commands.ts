/* `/tender pipelines` (the list of bids) and `/tender pipeline …` (a bid's card, or a change to it). */
import { NotFoundError } from '../../../client/errors.ts';
import {
  type PIPELINE_ARCHIVE_FILTERS,
  PIPELINE_STATUSES,
  type Pipeline,
  type Stage,
} from '../../../contract/schemas.ts';
import { cutText } from '../../../shared/cut-text.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { reply } from '../../shared/feature-context.ts';
import { code, joinMrkdwn, type Mrkdwn, mrkdwn, safeText } from '../../shared/views/mrkdwn.ts';
import { resolveBidId, withBidReferences } from './bid-references.ts';
import { notFoundSentence, say } from './bid-sentences.ts';
import { changePipelineStatus, changeStageStatus, postCard, setArchived } from './card-changes.ts';
import { type TypedWord, typedWords } from './command-words.ts';
import {
  bidStatusMeant,
  bidStatusNamed,
  findStage,
  settableBidStatusesAsShown,
  stageStatusesAsShown,
  stageStatusMeant,
  stageStatusNamed,
} from './stage-words.ts';
import { pipelinesListMessage } from './views/pipeline-card.ts';

const ARCHIVE_WORDS: Record<string, (typeof PIPELINE_ARCHIVE_FILTERS)[number]> = {
  archived: 'archived',
  all: 'all',
  active: 'active',
};

/** `/tender pipelines [words] [status:…] [archived|all]`: the bids the key's creator can see. */
export async function pipelinesCommand(
  context: FeatureContext,
  request: SlackRequest,
  rest: string,
  /** The first bid shown (Next and Previous), and whether to redraw the message clicked in. */
  page: { offset: number; replace: boolean } = { offset: 0, replace: false },
): Promise<void> {
  const words: string[] = [];
  let status: Pipeline['status'] | undefined;
  let archived: (typeof PIPELINE_ARCHIVE_FILTERS)[number] = 'active';
  for (const word of typedWords(rest)) {
    const lower = word.text.toLowerCase();
    if (!word.quoted && lower.startsWith('status:')) {
      const wanted = bidStatusNamed(word.text.slice('status:'.length));
      if (!wanted) {
        await say(
          request,
          mrkdwn`${code(word.text, 100)} is not a bid status. Use one of: ${joinMrkdwn(
            PIPELINE_STATUSES.map((s) => code(`status:${s.replace('_', '-')}`)),
            mrkdwn`, `,
          )}.`,
        );
        return;
      }
      status = wanted;
    } else if (!word.quoted && Object.hasOwn(ARCHIVE_WORDS, lower))
      archived = ARCHIVE_WORDS[lower] as (typeof PIPELINE_ARCHIVE_FILTERS)[number];
    else words.push(word.text);
  }
  const q = cutText(words.join(' '), 200);
  const { client, source } = await context.clients.forPerson(request.teamId, request.userId);
  const [found, facts] = await Promise.all([
    client.pipelines.list({
      ...(q ? { q } : {}),
      ...(status ? { status } : {}),
      archived,
      limit: PIPELINES_PAGE_SIZE,
      offset: page.offset,
    }),
    context.users.facts(request.userId, request.teamId),
  ]);
  await reply(
    request,
    await pipelinesListMessage(
      await withBidReferences(context, request.teamId, found.data),
      found.pagination.total,
      { words: q, ...(status ? { status } : {}), archived },
      context.store,
      context.clock(),
      {
        offset: page.offset,
        typed: rest,
        pageSize: PIPELINES_PAGE_SIZE,
      },
      source,
      facts.isGuest,
    ),
    page.replace,
  );
}

/** Bids a page of `/tender pipelines` shows (each is one block; Slack allows 50 a message). */
const PIPELINES_PAGE_SIZE = 20;

const PIPELINE_USAGE = mrkdwn`Use \`/tender pipeline &lt;bid&gt;\` (the card, for the channel), \`/tender pipeline status &lt;bid&gt; &lt;status&gt;\`, \`/tender pipeline stage &lt;bid&gt; &lt;stage name or number&gt; &lt;status&gt;\`, or \`/tender pipeline archive|restore &lt;bid&gt;\`, where &lt;bid&gt; is its reference as its card shows it (like \`BID-7\`). \`/tender pipelines\` lists them.`;

/** The bid id that what a person typed names, or null once a sentence has said why there is none. */
async function typedBidId(
  context: FeatureContext,
  request: SlackRequest,
  typed: string,
): Promise<string | null> {
  const { client } = await context.clients.forPerson(request.teamId, request.userId);
  const found = await resolveBidId(context, request.teamId, typed, client);
  if ('id' in found) return found.id;
  await say(request, found.problem);
  return null;
}

/** What was typed, shown back in quotes (cut, escaped). */
function typedBack(words: readonly TypedWord[]): Mrkdwn {
  return safeText(joinedText(words), 60);
}

/** `/tender pipeline <id>` and `/tender pipeline status|stage|archive|restore …`. */
export async function pipelineCommand(
  context: FeatureContext,
  request: SlackRequest,
  rest: string,
): Promise<void> {
  const words = typedWords(rest);
  const verb = words[0]?.quoted ? '' : (words[0]?.text ?? '').toLowerCase();
  if (words.length === 0) return say(request, mrkdwn`Which bid? ${PIPELINE_USAGE}`);
  if (verb === 'status') {
    const [, typed, ...statusWords] = words;
    // `status no bid`: a status alone, the bid left out.
    const statusAlone = typed && bidStatusNamed(joinedText(words.slice(1)));
    if (statusAlone)
      return say(
        request,
        mrkdwn`Which bid? Give its reference before the status: ${code(`/tender pipeline status BID-7 ${joinedText(words.slice(1))}`, 100)}.`,
      );
    if (!typed)
      return say(
        request,
        mrkdwn`Which bid, and which status? For example \`/tender pipeline status BID-7 bidding\`, with one of ${settableBidStatusesAsShown()}.`,
      );
    if (statusWords.length === 0)
      return say(
        request,
        mrkdwn`Which status for ${code(typed.text, 100)}? Give one after it: ${settableBidStatusesAsShown()}. For example \`/tender pipeline status BID-7 bidding\`.`,
      );
    const status = bidStatusNamed(joinedText(statusWords));
    if (!status)
      return say(
        request,
        mrkdwn`“${typedBack(statusWords)}” is not a status.${bidStatusMeant(joinedText(statusWords))} Use one of ${settableBidStatusesAsShown()}.`,
      );
    const id = await typedBidId(context, request, typed.text);
    if (!id) return;
    return changePipelineStatus(context, request, { p: id, v: status }, null);
  }
  if (verb === 'stage') {
    const [, typed, ...others] = words;
    if (!typed || others.length === 0)
      return say(
        request,
        mrkdwn`${typed ? mrkdwn`Which stage of ${code(typed.text, 100)}, and which status?` : mrkdwn`Which bid, stage and status?`} Give the stage (its number on the card, or its name, in quotes if you like) and one of ${stageStatusesAsShown()}. For example \`/tender pipeline stage BID-7 2 completed\` or \`/tender pipeline stage BID-7 "Draft response" in progress\`.`,
      );
    const id = await typedBidId(context, request, typed.text);
    if (!id) return;
    const { client, source } = await context.clients.forPerson(request.teamId, request.userId);
    let pipeline: Pipeline;
    try {
      pipeline = await client.pipelines.get(id);
    } catch (error) {
      if (error instanceof NotFoundError) return say(request, notFoundSentence(typed.text, source));
      throw error;
    }
    const found = splitStageAndStatus(others);
    if ('unknown' in found) {
      // Only a stage given: ask for its status, naming the stage as the card does.
      const named = findStage(pipeline.stages, joinedText(others));
      if ('stage' in named && !found.afterQuote) {
        const number = [...pipeline.stages].sort((a, b) => a.position - b.position).indexOf(named.stage) + 1;
        return say(
          request,
          mrkdwn`Which status for stage ${number}, ${safeText(named.stage.name, 200)}? Give one after it: ${stageStatusesAsShown()}.`,
        );
      }
      // Only a status given (`stage BID-7 completed`): the stage is what is missing.
      if (!found.afterQuote && stageStatusNamed(joinedText(others)))
        return say(
          request,
          mrkdwn`Which stage of ${code(typed.text, 100)}? Name it before the status, as in ${code(`/tender pipeline stage ${typed.text} "Draft response" ${joinedText(others)}`, 300)}.`,
        );
      return say(
        request,
        mrkdwn`“${typedBack(found.unknown)}” is not a stage status.${stageStatusMeant(joinedText(found.unknown))} Use one of ${stageStatusesAsShown()}.`,
      );
    }
    const stage = findStage(pipeline.stages, found.stage);
    if ('problem' in stage) return say(request, stage.problem);
    return changeStageStatus(context, request, { p: id, s: stage.stage.id, v: found.status }, null);
  }
  if (verb === 'archive' || verb === 'restore') {
    const typed = words[1];
    if (!typed)
      return say(
        request,
        mrkdwn`Which bid? ${code(`/tender pipeline ${verb} <bid>`)}, like ${code(`/tender pipeline ${verb} BID-7`)}.`,
      );
    const id = await typedBidId(context, request, typed.text);
    if (!id) return;
    return setArchived(context, request, id, verb === 'archive', null);
  }
  if (words.length > 1) return say(request, PIPELINE_USAGE);
  const id = await typedBidId(context, request, (words[0] as TypedWord).text);
  if (!id) return;
  await postCard(context, request, id);
}

function joinedText(words: readonly TypedWord[]): string {
  return words.map((word) => word.text).join(' ');
}

/**
 * The stage and its status from the words after the bid: after a quoted stage name, every word
 * after it is the status; otherwise the last one or two words (`Draft response in progress`).
 * Unknown: the words that should have been a status (`afterQuote` when they followed a quoted name).
 */
function splitStageAndStatus(
  words: readonly TypedWord[],
): { stage: string; status: Stage['status'] } | { unknown: TypedWord[]; afterQuote: boolean } {
  const quoted = words.findIndex((word) => word.quoted);
  if (quoted !== -1 && quoted < words.length - 1) {
    const statusWords = words.slice(quoted + 1);
    const status = stageStatusNamed(joinedText(statusWords));
    const stage = joinedText(words.slice(0, quoted + 1));
    return status ? { stage, status } : { unknown: statusWords, afterQuote: true };
  }
  for (const take of [2, 1]) {
    if (words.length <= take) continue;
    const status = stageStatusNamed(joinedText(words.slice(-take)));
    if (status) return { stage: joinedText(words.slice(0, -take)), status };
  }
  return { unknown: words.slice(-1), afterQuote: false };
}
