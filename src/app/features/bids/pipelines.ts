/*
 * Over 500 lines for now: bid commands, card changes and the bid forms live here until the app's
 * rebuild into a folder per feature (the open issue "A house a Bolt maintainer would hold up")
 * splits them with the rest of src/app in one step, rather than moving them twice.
 */
import { randomUUID } from 'node:crypto';
import {
  ForbiddenError,
  IdempotencyConflictError,
  NotFoundError,
  SubmissionNotAllowedError,
} from '../../../client/errors.ts';
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import {
  type PIPELINE_ARCHIVE_FILTERS,
  PIPELINE_STATUSES,
  type Pipeline,
  STAGE_STATUSES,
  type Stage,
} from '../../../contract/schemas.ts';
import type { AppSlack } from '../../adapters/app-slack.ts';
import type { WorkspaceClient } from '../../adapters/workspace-clients.ts';
import { describeFailure } from '../../shared/failure-sentences.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { refuseGuests, reply } from '../../shared/feature-context.ts';
import { PipelineIds } from '../../shared/ids.ts';
import { writerOr, writerOrSentence } from '../../shared/key-access.ts';
import { type ActionKind, decode, encodeKept, type StateOf } from '../../shared/values/codec.ts';
import { STAGE_LABELS, STATUS_LABELS } from '../../shared/views/bid-parts.ts';
import type { KeySource } from '../../shared/views/key-identity.ts';
import { sentenceMessage } from '../../shared/views/messages.ts';
import {
  clip,
  code,
  escapeMrkdwn,
  joinMrkdwn,
  type Mrkdwn,
  mention,
  mrkdwn,
  text as plain,
  safeText,
  upperFirst,
} from '../../shared/views/mrkdwn.ts';
import type { SafeModalView as ModalView } from '../../shared/views/safe-blocks.ts';
import { withinBudget } from '../../shared/within-budget.ts';
import { postPipelineCard, redrawEverywhere, threadLine } from './pipeline-live.ts';
import {
  checkStartBid,
  isDay,
  parseNotesSubmission,
  parseStartBidSubmission,
} from './pipeline-submissions.ts';
import { pipelinesListMessage } from './views/pipeline-card.ts';
import {
  DEFAULT_STAGE_TEMPLATE,
  type StartBidFields,
  sentenceView,
  stageNotesLoadingView,
  stageNotesModal,
  startBidLoadingView,
  startBidModal,
  startBidWorkingView,
} from './views/pipeline-modals.ts';

/** Where a click came from: the card's message in a channel (null for an ephemeral one). */
export type CardPlace = { channelId: string; ts: string } | null;

/** Slack waits 3 s for a modal's answer; the service gets most of it, the rest is margin. */
export const SUBMIT_BUDGET_MS = 2000;

const say = (request: SlackRequest, sentence: Mrkdwn) => reply(request, sentenceMessage(sentence));

function notFoundSentence(id: string, source: KeySource): Mrkdwn {
  return source === 'personal'
    ? mrkdwn`No bid with the id ${code(id, 300)} can be seen with your own key: it may be mistyped, or not shared with you. \`/tender pipelines all\` lists the bids you can see.`
    : mrkdwn`No bid with the id ${code(id, 300)} can be seen with this workspace’s key: it may be mistyped, or not shared with the person who made the key. \`/tender pipelines all\` lists the bids it can see.`;
}

function forbiddenSentence(source: KeySource): Mrkdwn {
  return source === 'personal'
    ? mrkdwn`The service did not let you change this bid with your own key: you can only view it (or are a viewer in the organisation). Nothing was changed. Ask the bid’s owner to give you edit access.`
    : mrkdwn`The service did not let this workspace’s key change this bid: the person who made the key can only view it (or is a viewer in the organisation). Nothing was changed. Ask the bid’s owner to give them edit access, or an admin to connect a key that can edit bids.`;
}

function startForbiddenSentence(source: KeySource): Mrkdwn {
  return source === 'personal'
    ? mrkdwn`The service did not let you start bids with your own key: you are a viewer in the organisation. Nothing was started.`
    : mrkdwn`The service did not let this workspace’s key start bids: the person who made the key is a viewer in the organisation. Nothing was started. Ask an admin to connect a key made by someone who can edit bids.`;
}

function submittedSentence(current: Pipeline['status'] | null): Mrkdwn {
  return mrkdwn`A bid can only be marked Submitted through the service’s own submission workflow, not from Slack, so nothing was changed${current ? mrkdwn` (it is still ${plain(STATUS_LABELS[current])})` : mrkdwn``}. Submit the bid in the service; its card here will then show it.`;
}

/**
 * Runs a write on a pipeline; the refusals a person can cause get their own sentence (nothing was
 * changed). Anything else goes on to withFailures. Resolves true when the write was done.
 */
async function writing(
  request: SlackRequest,
  writer: WorkspaceClient,
  pipelineId: string,
  work: (client: ProcurementClient) => Promise<unknown>,
): Promise<boolean> {
  const { client, source } = writer;
  try {
    await work(client);
    return true;
  } catch (error) {
    if (error instanceof NotFoundError) await say(request, notFoundSentence(pipelineId, source));
    else if (error instanceof ForbiddenError) await say(request, forbiddenSentence(source));
    else if (error instanceof SubmissionNotAllowedError) {
      const current = await client.pipelines.get(pipelineId).then(
        (pipeline) => pipeline.status,
        () => null,
      );
      await say(request, submittedSentence(current));
    } else throw error;
    return false;
  }
}

/**
 * The bid as it is now, or null once the person was told why nothing is to be written: it is gone,
 * it is archived (its card is read-only; only restoring changes it), or the change would change
 * nothing (`unchanged` says why; a thread line for it would be noise).
 */
async function unlessUnchanged(
  request: SlackRequest,
  writer: WorkspaceClient,
  pipelineId: string,
  unchanged: (pipeline: Pipeline) => Mrkdwn | null,
  options: { archivedToo?: boolean; known?: Pipeline } = {},
): Promise<Pipeline | null> {
  let pipeline: Pipeline;
  try {
    // A command that has just read the bid (to find its stage) gives it: not read twice.
    pipeline = options.known ?? (await writer.client.pipelines.get(pipelineId));
  } catch (error) {
    if (error instanceof NotFoundError) {
      await say(request, notFoundSentence(pipelineId, writer.source));
      return null;
    }
    throw error;
  }
  const sentence =
    unchanged(pipeline) ??
    (pipeline.archived && !options.archivedToo
      ? mrkdwn`*${safeText(pipeline.name, 200)}* is archived, so it stays as it was. Restore it first with ${code(`/tender pipeline restore ${clip(pipeline.id, 100)}`)}.`
      : null);
  if (sentence) {
    await say(request, sentence);
    return null;
  }
  return pipeline;
}

/** `stage 2, Pricing`: a stage by its number as well as its name (two stages may share a name). */
function stageNamed(pipeline: Pipeline, stageId: string): Mrkdwn {
  // Numbered as the card numbers them: by position, whatever order the service lists them in.
  const stages = [...pipeline.stages].sort((a, b) => a.position - b.position);
  const index = stages.findIndex((stage) => stage.id === stageId);
  if (index === -1) return mrkdwn`a stage`;
  return mrkdwn`stage ${index + 1}, ${safeText(stages[index]?.name ?? '', 200)},`;
}

function capitalised(phrase: Mrkdwn): Mrkdwn {
  return upperFirst(phrase);
}

// ---------------------------------------------------------------------------------------------
// Commands

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
  const q = words.join(' ').slice(0, 200);
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
      found.data,
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

const PIPELINE_USAGE = mrkdwn`Use \`/tender pipeline &lt;id&gt;\` (the card, for the channel), \`/tender pipeline status &lt;id&gt; &lt;status&gt;\`, \`/tender pipeline stage &lt;id&gt; &lt;stage name or number&gt; &lt;status&gt;\`, or \`/tender pipeline archive|restore &lt;id&gt;\`. \`/tender pipelines\` lists the ids.`;

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
    const [, id, ...statusWords] = words;
    const status = pipelineStatusOf(statusWords.join('_'));
    if (!id || !status)
      return say(
        request,
        mrkdwn`Give the bid’s id and one of these statuses: ${joinMrkdwn(
          PIPELINE_STATUSES.filter((s) => s !== 'submitted').map((s) => code(s)),
          mrkdwn`, `,
        )}. For example \`/tender pipeline status pl-123 bidding\`.`,
      );
    return changePipelineStatus(context, request, { p: id, v: status }, null);
  }
  if (verb === 'stage') {
    const [, id, ...others] = words;
    const found = splitStageAndStatus(others);
    if (!id || !found)
      return say(
        request,
        mrkdwn`Give the bid’s id, the stage (its name or number) and one of ${joinMrkdwn(
          STAGE_STATUSES.map((s) => code(s)),
          mrkdwn`, `,
        )}. For example \`/tender pipeline stage pl-123 2 completed\`.`,
      );
    const { client, source } = await context.clients.forPerson(request.teamId, request.userId);
    let pipeline: Pipeline;
    try {
      pipeline = await client.pipelines.get(id);
    } catch (error) {
      if (error instanceof NotFoundError) return say(request, notFoundSentence(id, source));
      throw error;
    }
    const stage = findStage(pipeline.stages, found.stage);
    if ('problem' in stage) return say(request, stage.problem);
    return changeStageStatus(context, request, { p: id, s: stage.stage.id, v: found.status }, null, pipeline);
  }
  if (verb === 'archive' || verb === 'restore') {
    const id = words[1];
    if (!id) return say(request, mrkdwn`Which bid? ${code(`/tender pipeline ${verb} <id>`)}.`);
    return setArchived(context, request, id, verb === 'archive', null);
  }
  if (words.length > 1) return say(request, PIPELINE_USAGE);
  return postCard(context, request, words[0] as string);
}

function pipelineStatusOf(word: string): Pipeline['status'] | null {
  const key = word
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return (PIPELINE_STATUSES as readonly string[]).includes(key) ? (key as Pipeline['status']) : null;
}

const STAGE_WORDS: Record<string, Stage['status']> = {
  pending: 'pending',
  todo: 'pending',
  in_progress: 'in_progress',
  started: 'in_progress',
  blocked: 'blocked',
  completed: 'completed',
  complete: 'completed',
  done: 'completed',
};

/** `Draft response in progress` → the stage words and the status (the last one or two words). */
function splitStageAndStatus(words: string[]): { stage: string; status: Stage['status'] } | null {
  for (const take of [2, 1]) {
    if (words.length <= take) continue;
    const status = STAGE_WORDS[words.slice(-take).join('_').toLowerCase().replace(/-/g, '_')];
    if (status) return { stage: words.slice(0, -take).join(' '), status };
  }
  return null;
}

/** A stage by its number on the card (1 first) or by its name (whole, or the start of just one). */
function findStage(stages: Stage[], wanted: string): { stage: Stage } | { problem: Mrkdwn } {
  const ordered = [...stages].sort((a, b) => a.position - b.position);
  if (/^\d+$/.test(wanted)) {
    const stage = ordered[Number(wanted) - 1];
    return stage
      ? { stage }
      : {
          problem: mrkdwn`This bid has ${ordered.length} stage${ordered.length === 1 ? mrkdwn`` : mrkdwn`s`}; there is no stage ${plain(wanted)}.`,
        };
  }
  const name = wanted.toLowerCase();
  const exact = ordered.filter((stage) => stage.name.toLowerCase() === name);
  const starts = ordered.filter((stage) => stage.name.toLowerCase().startsWith(name));
  const matches = exact.length > 0 ? exact : starts;
  if (matches.length === 1) return { stage: matches[0] as Stage };
  const names = joinMrkdwn(
    ordered.map((stage, index) => mrkdwn`${index + 1}. ${safeText(stage.name, 80)}`),
    mrkdwn`, `,
  );
  return {
    problem:
      matches.length === 0
        ? mrkdwn`No stage of this bid is called “${safeText(wanted, 100)}”. Its stages: ${names}.`
        : mrkdwn`More than one stage starts with “${safeText(wanted, 100)}”; give its number. Its stages: ${names}.`,
  };
}

/** `/tender pipeline <id>`: the card in the channel, for everyone, remembered. */
async function postCard(context: FeatureContext, request: SlackRequest, id: string): Promise<void> {
  if (await refuseGuests(context, request, 'post bid cards in a channel')) return;
  const { client, source } = await context.clients.forPerson(request.teamId, request.userId);
  let pipeline: Pipeline;
  try {
    pipeline = await client.pipelines.get(id);
  } catch (error) {
    if (error instanceof NotFoundError) return say(request, notFoundSentence(id, source));
    throw error;
  }
  try {
    await postPipelineCard(context, request.slack, request.teamId, request.channelId, pipeline);
  } catch (error) {
    if ((error as { data?: { error?: string } }).data?.error === 'not_in_channel')
      return say(
        request,
        mrkdwn`Invite Tenderbot to this channel first (\`/invite @Tenderbot\`), then post the card again.`,
      );
    throw error;
  }
  if (request.kind === 'click') await say(request, mrkdwn`Posted the bid’s card in the channel.`);
}

/** "Post in channel" on the list of bids. */
export async function postCardFromList(
  context: FeatureContext,
  request: SlackRequest,
  id: string,
): Promise<void> {
  await postCard(context, request, id);
}

// ---------------------------------------------------------------------------------------------
// Changes: each writes, then redraws every card from a fresh read, then says so in the thread.

async function afterChange(
  context: FeatureContext,
  request: SlackRequest,
  pipelineId: string,
  place: CardPlace,
  line: (pipeline: Pipeline) => Mrkdwn,
  answer: Mrkdwn,
  writer: WorkspaceClient,
): Promise<void> {
  // The card that was clicked shows this pipeline too: remember it, so it stays live.
  if (place)
    await context.store.rememberPipelineMessage({
      pipelineId,
      teamId: request.teamId,
      channelId: place.channelId,
      ts: place.ts,
    });
  const drawn = await redrawEverywhere(context, request.slack, request.teamId, pipelineId, writer.client);
  if (!drawn) return say(request, notFoundSentence(pipelineId, writer.source));
  const where = place ?? (await latestCardIn(context, request, pipelineId));
  if (where) await threadLine(context, request.slack, where, line(drawn.pipeline));
  if (request.kind === 'command')
    await say(
      request,
      mrkdwn`${answer} ${drawn.copies === 0 ? mrkdwn`It has no card in a channel yet: \`/tender pipeline &lt;id&gt;\` posts one.` : mrkdwn`Its card${drawn.copies === 1 ? mrkdwn` was` : mrkdwn`s (${drawn.copies}) were`} redrawn.`}`,
    );
}

/** The newest card of the pipeline in the channel a command was typed in, for its thread line. */
async function latestCardIn(
  context: FeatureContext,
  request: SlackRequest,
  pipelineId: string,
): Promise<CardPlace> {
  const places = await context.store.pipelineMessages(request.teamId, pipelineId);
  const here = places.filter((place) => place.channelId === request.channelId).at(-1);
  return here ? { channelId: here.channelId, ts: here.ts } : null;
}

export async function changeStageStatus(
  context: FeatureContext,
  request: SlackRequest,
  change: StateOf<'stageStatusOption'>,
  place: CardPlace,
  /** The bid as just read by the command, if it was. */
  known?: Pipeline,
): Promise<void> {
  if (await refuseGuests(context, request, 'change bids')) return;
  const writer = await writerOrSentence(context, request);
  if (!writer) return;
  const label = STAGE_LABELS[change.v].toLowerCase();
  const before = await unlessUnchanged(
    request,
    writer,
    change.p,
    (pipeline) => {
      const stage = pipeline.stages.find((each) => each.id === change.s);
      return stage?.status === change.v
        ? mrkdwn`${capitalised(stageNamed(pipeline, change.s))} is already ${plain(label)}: nothing changed.`
        : null;
    },
    known ? { known } : {},
  );
  if (!before) return;
  const done = await writing(request, writer, change.p, (client) =>
    client.pipelines.updateStage(change.p, change.s, { status: change.v }),
  );
  if (!done) return;
  await afterChange(
    context,
    request,
    change.p,
    place,
    (pipeline) =>
      mrkdwn`${mention(request.userId)} moved ${stageNamed(pipeline, change.s)} to ${plain(label)}`,
    mrkdwn`Moved ${stageNamed(before, change.s)} of *${safeText(before.name, 200)}* to ${plain(label)}.`,
    writer,
  );
}

export async function changePipelineStatus(
  context: FeatureContext,
  request: SlackRequest,
  change: { p: string; v: Pipeline['status'] },
  place: CardPlace,
): Promise<void> {
  if (await refuseGuests(context, request, 'change bids')) return;
  const writer = await writerOrSentence(context, request);
  if (!writer) return;
  const before = await unlessUnchanged(request, writer, change.p, (pipeline) =>
    pipeline.status === change.v
      ? mrkdwn`*${safeText(pipeline.name, 200)}* is already ${plain(STATUS_LABELS[change.v])}: nothing changed.`
      : null,
  );
  if (!before) return;
  const done = await writing(request, writer, change.p, (client) =>
    client.pipelines.update(change.p, { status: change.v }),
  );
  if (!done) return;
  await afterChange(
    context,
    request,
    change.p,
    place,
    () => mrkdwn`${mention(request.userId)} set the bid’s status to ${plain(STATUS_LABELS[change.v])}`,
    mrkdwn`The bid’s status is now ${plain(STATUS_LABELS[change.v])}.`,
    writer,
  );
}

export async function setArchived(
  context: FeatureContext,
  request: SlackRequest,
  pipelineId: string,
  archived: boolean,
  place: CardPlace,
): Promise<void> {
  if (await refuseGuests(context, request, archived ? 'archive bids' : 'restore bids')) return;
  const writer = await writerOrSentence(context, request);
  if (!writer) return;
  const before = await unlessUnchanged(
    request,
    writer,
    pipelineId,
    (pipeline) =>
      pipeline.archived === archived
        ? archived
          ? mrkdwn`That bid is archived already: nothing changed.`
          : mrkdwn`That bid is not archived: there is nothing to restore.`
        : null,
    { archivedToo: true },
  );
  if (!before) return;
  const done = await writing(request, writer, pipelineId, (client) =>
    client.pipelines.archive(pipelineId, archived),
  );
  if (!done) return;
  await afterChange(
    context,
    request,
    pipelineId,
    place,
    () => mrkdwn`${mention(request.userId)} ${archived ? mrkdwn`archived` : mrkdwn`restored`} this bid`,
    archived ? mrkdwn`Archived the bid.` : mrkdwn`Restored the bid.`,
    writer,
  );
}

// ---------------------------------------------------------------------------------------------
// "Start a bid"

type ViewUpdate = (view: ModalView) => Promise<unknown>;

/** Opens `loading` at once (a trigger_id lasts 3 s); the function it gives replaces that view. */
async function openLoadingModal(
  request: SlackRequest,
  triggerId: string,
  loading: ModalView,
): Promise<ViewUpdate> {
  const opened = await request.slack.views.open({ trigger_id: triggerId, view: loading });
  const viewId = opened.view?.id as string;
  return (view) => request.slack.views.update({ view_id: viewId, view: view });
}

/** For a guest, replaces the opened modal with `refusal` and says true; false for anyone else. */
async function guestGetsSentence(
  context: FeatureContext,
  request: SlackRequest,
  update: ViewUpdate,
  refusal: { title: string; sentence: Mrkdwn },
): Promise<boolean> {
  if (!(await context.users.facts(request.userId)).isGuest) return false;
  await update(sentenceView(refusal.title, refusal.sentence));
  return true;
}

/** "Start a bid" on a tender card: the modal opens at once (loading), then is filled from the tender. */
export async function openStartBidModal(
  context: FeatureContext,
  request: SlackRequest,
  args: { triggerId: string; tenderId: string },
): Promise<void> {
  // The trigger lasts 3 s: open first, then read.
  const metadata = await encodeKept(
    'startBidModal',
    { t: args.tenderId, k: randomUUID(), c: request.channelId.slice(0, 50) },
    'metadata',
    context.store,
    context.clock(),
  );
  const update = await openLoadingModal(request, args.triggerId, startBidLoadingView(metadata));
  if (
    await guestGetsSentence(context, request, update, {
      title: 'Start a bid',
      sentence: mrkdwn`Guests can read bids but cannot start them. Ask a member of the workspace to start it for you.`,
    })
  )
    return;
  const writer = await writerOr(context, request.teamId, request.userId, (sentence) =>
    update(sentenceView('Start a bid', sentence)),
  );
  if (!writer) return;
  const { client } = writer;
  try {
    const tender = await client.tenders.get(args.tenderId);
    const deadline = tender.deadline ? tender.deadline.slice(0, 10) : null;
    const future = deadline && Date.parse(`${deadline}T00:00:00Z`) >= context.clock().getTime() - 86_400_000;
    await update(
      startBidModal({
        privateMetadata: metadata,
        tenderTitle: tender.title,
        fields: {
          name: `Bid: ${tender.title}`.slice(0, 200),
          summary: '',
          targetDate: future ? deadline : null,
          stages: DEFAULT_STAGE_TEMPLATE,
        },
      }),
    );
  } catch (error) {
    if (error instanceof NotFoundError) {
      await update(
        sentenceView(
          'Start a bid',
          mrkdwn`That tender can no longer be found, so no bid can be started from it.`,
        ),
      );
      return;
    }
    // The tender could not be read: the person can still start the bid, with nothing prefilled.
    context.logger.warn({ err: error, teamId: request.teamId }, 'could not read the tender for a new bid');
    await update(
      startBidModal({
        privateMetadata: metadata,
        tenderTitle: null,
        problem: mrkdwn`${describeFailure(error).sentence} You can still start the bid here.`,
        fields: { name: '', summary: '', targetDate: null, stages: DEFAULT_STAGE_TEMPLATE },
      }),
    );
  }
}

type ViewAck = (answer?: unknown) => Promise<void>;

/**
 * A pipeline modal's metadata, or null once the submission is answered with `stale` (the form
 * replaced by a sentence) because the metadata is out of date or was changed.
 */
async function modalStateOr<K extends ActionKind>(
  context: FeatureContext,
  kind: K,
  privateMetadata: string,
  ack: ViewAck,
  stale: { title: string; sentence: Mrkdwn },
): Promise<StateOf<K> | null> {
  try {
    return await decode(kind, privateMetadata, context.store, context.clock());
  } catch {
    await ack({ response_action: 'update', view: sentenceView(stale.title, stale.sentence) });
    return null;
  }
}

/** Creations under way, by idempotency key: a double submit waits for the first instead of posting twice. */
const creating = new Map<string, Promise<Pipeline>>();

/**
 * The start-bid modal's submission: checked field by field, then created with the modal's
 * idempotency key (a double submit or a retry makes one bid); the card is posted in the channel
 * once. A failure keeps the modal open with what was typed and a sentence.
 */
export async function submitStartBid(
  context: FeatureContext,
  slack: AppSlack,
  args: {
    teamId: string;
    userId: string;
    values: unknown;
    privateMetadata: string;
    viewId: string | undefined;
  },
  ack: ViewAck,
  budgetMs = SUBMIT_BUDGET_MS,
): Promise<void> {
  const meta = await modalStateOr(context, 'startBidModal', args.privateMetadata, ack, {
    title: 'Start a bid',
    sentence: mrkdwn`This form is out of date. Close it and click “Start a bid” on the tender again.`,
  });
  if (!meta) return;
  const fields = parseStartBidSubmission(args.values);
  const checked = checkStartBid(fields);
  if (!checked.ok) return ack({ response_action: 'errors', errors: checked.errors });
  if ((await context.users.facts(args.userId)).isGuest)
    return ack({
      response_action: 'errors',
      errors: {
        [PipelineIds.nameBlock]: 'Guests can read bids but cannot start them. Ask a member of the workspace.',
      },
    });
  const kept: StartBidFields = fields;
  const writer = await writerOr(context, args.teamId, args.userId, (sentence) =>
    ack({ response_action: 'errors', errors: { [PipelineIds.nameBlock]: sentence } }),
  );
  if (!writer) return;
  const create = async (): Promise<Pipeline> => {
    const { client } = writer;
    return client.pipelines.create(
      {
        name: fields.name.trim(),
        tenderId: meta.t,
        summary: fields.summary.trim() || null,
        targetSubmissionDate: fields.targetDate,
        stages: checked.stages.map((stage) => ({
          name: stage.name,
          expectedDurationDays: stage.expectedDurationDays,
        })),
      },
      { idempotencyKey: meta.k },
    );
  };
  const already = creating.get(meta.k);
  const first = !already;
  const outcome = already ?? create();
  if (first) {
    creating.set(meta.k, outcome);
    void outcome.then(
      () => setTimeout(() => creating.delete(meta.k), 60_000).unref(),
      () => creating.delete(meta.k),
    );
  }
  const { quick, outcome: settled } = await withinBudget(outcome, budgetMs);
  const problemOf = (error: unknown) => {
    context.logger.warn({ err: error, teamId: args.teamId }, 'could not start a bid');
    if (error instanceof IdempotencyConflictError)
      return mrkdwn`This form already started a bid with other details. Close it and click “Start a bid” again for a new one.`;
    if (error instanceof ForbiddenError) return startForbiddenSentence(writer.source);
    return mrkdwn`${describeFailure(error).sentence} What you typed is kept: submit again when you are ready.`;
  };
  if (quick && 'error' in quick)
    return ack({ response_action: 'errors', errors: { [PipelineIds.nameBlock]: problemOf(quick.error) } });
  if (quick) await ack();
  else await ack({ response_action: 'update', view: startBidWorkingView(args.privateMetadata) });
  const result = quick ?? (await settled);
  if ('error' in result) {
    if (args.viewId)
      await slack.views
        .update({
          view_id: args.viewId,
          view: startBidModal({
            privateMetadata: args.privateMetadata,
            tenderTitle: null,
            problem: escapeMrkdwn(problemOf(result.error)),
            fields: kept,
          }),
        })
        .catch((error) => context.logger.warn({ err: error }, 'could not reopen the start-bid form'));
    return;
  }
  if (!quick && args.viewId)
    await slack.views
      .update({
        view_id: args.viewId,
        view: sentenceView('Start a bid', mrkdwn`The bid is started; its card is in the channel.`),
      })
      .catch(() => undefined);
  // One card per creation: the first submission posts it, a repeat finds it remembered.
  if (!first) return;
  const known = await context.store.pipelineMessages(args.teamId, result.value.id);
  if (known.some((place) => place.channelId === meta.c)) return;
  await postPipelineCard(context, slack, args.teamId, meta.c || args.userId, result.value).catch(
    async (error) => {
      context.logger.warn({ err: error, teamId: args.teamId }, 'could not post a new bid’s card');
      await slack.chat
        .postMessage({
          channel: args.userId,
          text: mrkdwn`The bid “${plain(result.value.name)}” is started, but its card could not be posted in the channel (invite Tenderbot there first). ${code(`/tender pipeline ${result.value.id}`)} posts it.`,
        })
        .catch(() => undefined);
    },
  );
}

// ---------------------------------------------------------------------------------------------
// "Notes and due date"

export async function openStageNotes(
  context: FeatureContext,
  request: SlackRequest,
  args: { triggerId: string; ref: StateOf<'pipelineStage'>; place: CardPlace },
): Promise<void> {
  const update = await openLoadingModal(request, args.triggerId, stageNotesLoadingView());
  if (
    await guestGetsSentence(context, request, update, {
      title: 'Notes and due date',
      sentence: mrkdwn`Guests can read bids but cannot change them. Ask a member of the workspace.`,
    })
  )
    return;
  const writer = await writerOr(context, request.teamId, request.userId, (sentence) =>
    update(sentenceView('Notes and due date', sentence)),
  );
  if (!writer) return;
  const { client, source } = writer;
  let pipeline: Pipeline;
  try {
    pipeline = await client.pipelines.get(args.ref.p);
  } catch (error) {
    if (error instanceof NotFoundError) {
      await update(sentenceView('Notes and due date', notFoundSentence(args.ref.p, source)));
      return;
    }
    throw error;
  }
  const stage = pipeline.stages.find((candidate) => candidate.id === args.ref.s);
  if (!stage) {
    await update(sentenceView('Notes and due date', mrkdwn`That stage is no longer part of the bid.`));
    return;
  }
  const metadata = await encodeKept(
    'stageNotesModal',
    { p: args.ref.p, s: args.ref.s, c: args.place?.channelId ?? '', ts: args.place?.ts ?? null },
    'metadata',
    context.store,
    context.clock(),
  );
  await update(
    stageNotesModal({
      privateMetadata: metadata,
      pipelineName: pipeline.name,
      stage,
      notes: stage.notes ?? '',
      dueDate: stage.dueDate,
    }),
  );
}

export async function submitStageNotes(
  context: FeatureContext,
  slack: AppSlack,
  args: { teamId: string; userId: string; values: unknown; privateMetadata: string },
  ack: ViewAck,
  budgetMs = SUBMIT_BUDGET_MS,
): Promise<void> {
  const meta = await modalStateOr(context, 'stageNotesModal', args.privateMetadata, ack, {
    title: 'Notes and due date',
    sentence: mrkdwn`This form is out of date. Close it and open it again from the card.`,
  });
  if (!meta) return;
  const fields = parseNotesSubmission(args.values);
  if (!isDay(fields.dueDate))
    return ack({
      response_action: 'errors',
      errors: { [PipelineIds.dueBlock]: 'Pick the date from the calendar.' },
    });
  if (fields.notes.length > 3000)
    return ack({
      response_action: 'errors',
      errors: { [PipelineIds.notesBlock]: 'Notes hold 3,000 characters at most.' },
    });
  if ((await context.users.facts(args.userId)).isGuest)
    return ack({
      response_action: 'errors',
      errors: { [PipelineIds.notesBlock]: 'Guests can read bids but cannot change them.' },
    });
  const writer = await writerOr(context, args.teamId, args.userId, (sentence) =>
    ack({ response_action: 'errors', errors: { [PipelineIds.notesBlock]: sentence } }),
  );
  if (!writer) return;
  const { client } = writer;
  const { quick, outcome: write } = await withinBudget(
    client.pipelines.updateStage(meta.p, meta.s, {
      notes: fields.notes.trim() || null,
      dueDate: fields.dueDate,
    }),
    budgetMs,
  );
  const problemOf = (error: unknown) => {
    context.logger.warn({ err: error, teamId: args.teamId }, 'could not save a stage’s notes');
    if (error instanceof ForbiddenError) return forbiddenSentence(writer.source);
    if (error instanceof NotFoundError)
      return mrkdwn`That bid or stage can no longer be found with ${writer.source === 'personal' ? mrkdwn`your own key` : mrkdwn`this workspace’s key`}. Nothing was changed.`;
    return mrkdwn`${describeFailure(error).sentence} Your notes are kept: save again when you are ready.`;
  };
  if (quick && 'error' in quick)
    return ack({ response_action: 'errors', errors: { [PipelineIds.notesBlock]: problemOf(quick.error) } });
  await ack();
  const result = quick ?? (await write);
  if ('error' in result) {
    await slack.chat
      .postMessage({
        channel: args.userId,
        text: mrkdwn`The notes were not saved: ${problemOf(result.error)}`,
      })
      .catch(() => undefined);
    return;
  }
  const place = meta.c && meta.ts ? { channelId: meta.c, ts: meta.ts } : null;
  if (place)
    await context.store.rememberPipelineMessage({ pipelineId: meta.p, teamId: args.teamId, ...place });
  const drawn = await redrawEverywhere(context, slack, args.teamId, meta.p, writer.client);
  if (drawn && place)
    await threadLine(
      context,
      slack,
      place,
      mrkdwn`${mention(args.userId)} updated the notes and due date of ${safeText(result.value.name, 200)}`,
    );
}
