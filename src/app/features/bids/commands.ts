/* `/tender pipelines` (the list of bids) and `/tender pipeline …` (a bid's card, or a change to it). */
import { NotFoundError } from '../../../client/errors.ts';
import {
  type PIPELINE_ARCHIVE_FILTERS,
  PIPELINE_STATUSES,
  type Pipeline,
  STAGE_STATUSES,
  type Stage,
} from '../../../contract/schemas.ts';
import { cutText } from '../../../shared/cut-text.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { reply } from '../../shared/feature-context.ts';
import { STATUS_LABELS } from '../../shared/views/bid-parts.ts';
import { code, joinMrkdwn, mrkdwn, text as plain } from '../../shared/views/mrkdwn.ts';
import { resolveBidId, withBidReferences } from './bid-references.ts';
import { notFoundSentence, say } from './bid-sentences.ts';
import { changePipelineStatus, changeStageStatus, postCard, setArchived } from './card-changes.ts';
import { findStage, stageStatusNamed } from './stage-words.ts';
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
  for (const word of rest.trim().split(/\s+/).filter(Boolean)) {
    const lower = word.toLowerCase();
    if (lower.startsWith('status:')) {
      const wanted = pipelineStatusOf(lower.slice('status:'.length));
      if (!wanted) {
        await say(
          request,
          mrkdwn`${code(word, 100)} is not a bid status. Use one of: ${joinMrkdwn(
            PIPELINE_STATUSES.map((s) => code(`status:${s}`)),
            mrkdwn`, `,
          )}.`,
        );
        return;
      }
      status = wanted;
    } else if (ARCHIVE_WORDS[lower]) archived = ARCHIVE_WORDS[lower];
    else words.push(word);
  }
  const q = cutText(words.join(' '), 200);
  const { client, source } = await context.clients.forPerson(request.teamId, request.userId);
  const found = await client.pipelines.list({
    ...(q ? { q } : {}),
    ...(status ? { status } : {}),
    archived,
    limit: PIPELINES_PAGE_SIZE,
    offset: page.offset,
  });
  const description = joinMrkdwn(
    [
      ...(q ? [mrkdwn`“${plain(q)}”`] : []),
      ...(status ? [plain(STATUS_LABELS[status].toLowerCase())] : []),
      archived === 'active'
        ? mrkdwn`active`
        : archived === 'archived'
          ? mrkdwn`archived`
          : mrkdwn`active or archived`,
    ],
    mrkdwn`, `,
  );
  await reply(
    request,
    await pipelinesListMessage(
      await withBidReferences(context, request.teamId, found.data),
      found.pagination.total,
      description,
      context.store,
      context.clock(),
      {
        offset: page.offset,
        typed: rest,
        pageSize: PIPELINES_PAGE_SIZE,
      },
      source,
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

/** `/tender pipeline <id>` and `/tender pipeline status|stage|archive|restore …`. */
export async function pipelineCommand(
  context: FeatureContext,
  request: SlackRequest,
  rest: string,
): Promise<void> {
  const words = rest.trim().split(/\s+/).filter(Boolean);
  const verb = (words[0] ?? '').toLowerCase();
  if (words.length === 0) return say(request, mrkdwn`Which bid? ${PIPELINE_USAGE}`);
  if (verb === 'status') {
    const [, typed, ...statusWords] = words;
    const status = pipelineStatusOf(statusWords.join('_'));
    if (!typed || !status)
      return say(
        request,
        mrkdwn`Give the bid’s id and one of these statuses: ${joinMrkdwn(
          PIPELINE_STATUSES.filter((s) => s !== 'submitted').map((s) => code(s)),
          mrkdwn`, `,
        )}. For example \`/tender pipeline status BID-7 bidding\`.`,
      );
    const id = await typedBidId(context, request, typed);
    if (!id) return;
    return changePipelineStatus(context, request, { p: id, v: status }, null);
  }
  if (verb === 'stage') {
    const [, typed, ...others] = words;
    const found = splitStageAndStatus(others);
    if (!typed || !found)
      return say(
        request,
        mrkdwn`Give the bid’s id, the stage (its name or number) and one of ${joinMrkdwn(
          STAGE_STATUSES.map((s) => code(s)),
          mrkdwn`, `,
        )}. For example \`/tender pipeline stage BID-7 2 completed\`.`,
      );
    const id = await typedBidId(context, request, typed);
    if (!id) return;
    const { client, source } = await context.clients.forPerson(request.teamId, request.userId);
    let pipeline: Pipeline;
    try {
      pipeline = await client.pipelines.get(id);
    } catch (error) {
      if (error instanceof NotFoundError) return say(request, notFoundSentence(typed, source));
      throw error;
    }
    const stage = findStage(pipeline.stages, found.stage);
    if ('problem' in stage) return say(request, stage.problem);
    return changeStageStatus(context, request, { p: id, s: stage.stage.id, v: found.status }, null, pipeline);
  }
  if (verb === 'archive' || verb === 'restore') {
    const typed = words[1];
    if (!typed)
      return say(
        request,
        mrkdwn`Which bid? ${code(`/tender pipeline ${verb} <bid>`)}, like ${code(`/tender pipeline ${verb} BID-7`)}.`,
      );
    const id = await typedBidId(context, request, typed);
    if (!id) return;
    return setArchived(context, request, id, verb === 'archive', null);
  }
  if (words.length > 1) return say(request, PIPELINE_USAGE);
  const id = await typedBidId(context, request, words[0] as string);
  if (!id) return;
  await postCard(context, request, id);
}

function pipelineStatusOf(word: string): Pipeline['status'] | null {
  const key = word
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return (PIPELINE_STATUSES as readonly string[]).includes(key) ? (key as Pipeline['status']) : null;
}

/** `Draft response in progress` → the stage words and the status (the last one or two words). */
function splitStageAndStatus(words: string[]): { stage: string; status: Stage['status'] } | null {
  for (const take of [2, 1]) {
    if (words.length <= take) continue;
    const status = stageStatusNamed(words.slice(-take).join(' '));
    if (status) return { stage: words.slice(0, -take).join(' '), status };
  }
  return null;
}
