/*
 * Changes to a bid from its card or a command (a stage's status, the bid's status, archiving) and
 * posting its card: each change writes, then redraws every card from a fresh read, then says so
 * in the card's thread.
 */
import { ForbiddenError, NotFoundError, SubmissionNotAllowedError } from '../../../client/errors.ts';
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import type { Pipeline } from '../../../contract/schemas.ts';
import type { WorkspaceClient } from '../../adapters/workspace-clients.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { refuseGuests } from '../../shared/feature-context.ts';
import { writerOrSentence } from '../../shared/key-access.ts';
import { inStoreTurn } from '../../shared/store-turn.ts';
import type { StateOf } from '../../shared/values/codec.ts';
import { STAGE_LABELS, STATUS_LABELS } from '../../shared/views/bid-parts.ts';
import {
  channelLink,
  code,
  type Mrkdwn,
  mention,
  mrkdwn,
  text as plain,
  safeText,
  upperFirst,
} from '../../shared/views/mrkdwn.ts';
import { bidReferences } from './bid-references.ts';
import { bidNotFoundSentence, forbiddenSentence, say } from './bid-sentences.ts';
import { postPipelineCard, redrawEverywhere } from './pipeline-live.ts';

/** Where a click came from: the card's message in a channel (null for an ephemeral one). */
export type CardPlace = { channelId: string; ts: string } | null;

function submittedSentence(current: Pipeline['status'] | null): Mrkdwn {
  return mrkdwn`A bid can only be marked Submitted through the Procurement Intelligence Service’s own submission workflow (with its receipt and final files), not from Slack, so nothing was changed${current ? mrkdwn` (it is still ${plain(STATUS_LABELS[current])})` : mrkdwn``}. Submit the bid there; its card here will then show it.`;
}

/**
 * Runs a write on a pipeline; the refusals a person can cause get their own sentence (nothing was
 * changed). Anything else goes on to withFailures. Resolves true when the write was done.
 */
async function writing(
  context: FeatureContext,
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
    if (error instanceof NotFoundError)
      await say(request, await bidNotFoundSentence(context, request.teamId, pipelineId, source));
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
 * Checks that a change would change something (unlessUnchanged), then writes it, in the bid's
 * turn on every copy of the app (inStoreTurn): a double click's second check runs after the first
 * write, whichever copy each click reached, so it finds the change made and says so, rather than
 * writing again and adding a second line to the card's thread. Resolves with the bid as it was
 * before, or null when nothing was written (the person was told why).
 */
async function changedOnce(
  context: FeatureContext,
  request: SlackRequest,
  writer: WorkspaceClient,
  pipelineId: string,
  unchanged: (pipeline: Pipeline) => Mrkdwn | null,
  write: (client: ProcurementClient) => Promise<unknown>,
  options: { archivedToo?: boolean } = {},
): Promise<Pipeline | null> {
  // An id typed in capitals is the same bid to a service that reads ids in any case: one turn.
  const turn = `bid-change:${request.teamId}:${pipelineId.toLowerCase()}`;
  return inStoreTurn(
    context.store,
    turn,
    async () => {
      // Read in the turn: a bid read before it began (by a command finding its stage) may be out of date.
      const before = await unlessUnchanged(context, request, writer, pipelineId, unchanged, options);
      if (!before) return null;
      return (await writing(context, request, writer, pipelineId, write)) ? before : null;
    },
    { clock: context.clock },
  );
}

/**
 * The bid as it is now, or null once the person was told why nothing is to be written: it is gone,
 * it is archived (its card is read-only; only restoring changes it), or the change would change
 * nothing (`unchanged` says why; a thread line for it would be noise).
 */
async function unlessUnchanged(
  context: FeatureContext,
  request: SlackRequest,
  writer: WorkspaceClient,
  pipelineId: string,
  unchanged: (pipeline: Pipeline) => Mrkdwn | null,
  options: { archivedToo?: boolean } = {},
): Promise<Pipeline | null> {
  let pipeline: Pipeline;
  try {
    pipeline = await writer.client.pipelines.get(pipelineId);
  } catch (error) {
    if (error instanceof NotFoundError) {
      await say(request, await bidNotFoundSentence(context, request.teamId, pipelineId, writer.source));
      return null;
    }
    throw error;
  }
  const archived = pipeline.archived && !options.archivedToo;
  const reference = archived
    ? (await bidReferences(context, request.teamId, [pipeline.id])).get(pipeline.id)
    : '';
  const sentence =
    unchanged(pipeline) ??
    (archived
      ? mrkdwn`*${safeText(pipeline.name, 200)}* is archived, so it stays as it was. Restore it first with ${code(`/tender pipeline restore ${reference}`)}.`
      : null);
  if (sentence) {
    await say(request, sentence);
    return null;
  }
  return pipeline;
}

/** `stage 2, Pricing`: a stage by its number as well as its name (two stages may share a name). */
export function stageNamed(pipeline: Pipeline, stageId: string): Mrkdwn {
  // Numbered as the card numbers them: by position, whatever order the service lists them in.
  const stages = [...pipeline.stages].sort((a, b) => a.position - b.position);
  const index = stages.findIndex((stage) => stage.id === stageId);
  if (index === -1) return mrkdwn`a stage`;
  return mrkdwn`stage ${index + 1}, ${safeText(stages[index]?.name ?? '', 200)},`;
}

function capitalised(phrase: Mrkdwn): Mrkdwn {
  return upperFirst(phrase);
}

/**
 * `/tender pipeline <id>`, "Post in channel" and the Home tab's Post and Open: the card in
 * `request.channelId`, for everyone, remembered (one live card per direct message). True when
 * posted; every refusal is said to the person.
 */
export async function postCard(
  context: FeatureContext,
  request: SlackRequest,
  id: string,
  /** A card for the person alone (their direct message): guests may have one. */
  options: { direct?: boolean } = {},
): Promise<boolean> {
  if (!options.direct && (await refuseGuests(context, request, 'post bid cards in a channel'))) return false;
  const { client, source } = await context.clients.forPerson(request.teamId, request.userId);
  let pipeline: Pipeline;
  try {
    pipeline = await client.pipelines.get(id);
  } catch (error) {
    if (error instanceof NotFoundError) {
      await say(request, await bidNotFoundSentence(context, request.teamId, id, source));
      return false;
    }
    throw error;
  }
  try {
    await postPipelineCard(context, request.slack, request.teamId, request.channelId, pipeline, client);
  } catch (error) {
    const slackError = (error as { data?: { error?: string } }).data?.error ?? '';
    const refusal = Object.hasOwn(POST_REFUSALS, slackError) ? POST_REFUSALS[slackError] : undefined;
    if (!refusal) throw error;
    await say(request, refusal(request.channelId));
    return false;
  }
  if (request.kind === 'click')
    await say(
      request,
      mrkdwn`Posted the card of *${safeText(pipeline.name, 200)}* in ${channelLink(request.channelId)}.`,
    );
  return true;
}

/** Slack's refusals of a card's post that the person can mend, named by the channel (they may be elsewhere). */
const POST_REFUSALS: Partial<Record<string, (channelId: string) => Mrkdwn>> = {
  not_in_channel: (channelId) =>
    mrkdwn`Invite Tenderbot to ${channelLink(channelId)} first (\`/invite @Tenderbot\`), then post the card again.`,
  is_archived: (channelId) => mrkdwn`${channelLink(channelId)} is archived, so nothing can be posted there.`,
  channel_not_found: () =>
    mrkdwn`Tenderbot cannot find that channel (a private channel it was not invited to?).`,
};

/** "Post in channel" on the list of bids. */
export async function postCardFromList(
  context: FeatureContext,
  request: SlackRequest,
  id: string,
): Promise<void> {
  await postCard(context, request, id);
}

/**
 * After a write: keeps the clicked card live, redraws every card and tells the change, with who made
 * it, under each of them (one line per card, the clicked one too), and answers a command.
 */
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
  const drawn = await redrawEverywhere(
    context,
    request.slack,
    request.teamId,
    pipelineId,
    writer.client,
    line,
  );
  if (!drawn)
    return say(request, await bidNotFoundSentence(context, request.teamId, pipelineId, writer.source));
  if (request.kind !== 'command') return;
  const reference = (await bidReferences(context, request.teamId, [pipelineId])).get(pipelineId) as string;
  await say(
    request,
    mrkdwn`${answer} ${drawn.copies === 0 ? mrkdwn`It has no card in a channel yet: ${code(`/tender pipeline ${reference}`)} posts one.` : drawn.copies === 1 ? mrkdwn`Its card shows it now, with a note in the card's thread.` : mrkdwn`Its ${drawn.copies} cards show it now, each with a note in its thread.`}`,
  );
}

export async function changeStageStatus(
  context: FeatureContext,
  request: SlackRequest,
  change: StateOf<'stageStatusOption'>,
  place: CardPlace,
): Promise<void> {
  if (await refuseGuests(context, request, 'change bids')) return;
  const writer = await writerOrSentence(context, request);
  if (!writer) return;
  // As the card shows it: the line under the card and the answer read as the card does.
  const label = STAGE_LABELS[change.v];
  const before = await changedOnce(
    context,
    request,
    writer,
    change.p,
    (pipeline) => {
      const stage = pipeline.stages.find((each) => each.id === change.s);
      return stage?.status === change.v
        ? mrkdwn`${capitalised(stageNamed(pipeline, change.s))} is already ${plain(label)}: nothing changed.`
        : null;
    },
    (client) => client.pipelines.updateStage(change.p, change.s, { status: change.v }),
  );
  if (!before) return;
  await afterChange(
    context,
    request,
    change.p,
    place,
    (pipeline) =>
      mrkdwn`${mention(request.userId)} moved ${stageNamed(pipeline, change.s)} of ${safeText(pipeline.name, 200)} to ${plain(label)}`,
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
  const before = await changedOnce(
    context,
    request,
    writer,
    change.p,
    (pipeline) =>
      pipeline.status === change.v
        ? mrkdwn`*${safeText(pipeline.name, 200)}* is already ${plain(STATUS_LABELS[change.v])}: nothing changed.`
        : null,
    (client) => client.pipelines.update(change.p, { status: change.v }),
  );
  if (!before) return;
  await afterChange(
    context,
    request,
    change.p,
    place,
    (pipeline) =>
      mrkdwn`${mention(request.userId)} set the status of ${safeText(pipeline.name, 200)} to ${plain(STATUS_LABELS[change.v])}`,
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
  const before = await changedOnce(
    context,
    request,
    writer,
    pipelineId,
    (pipeline) =>
      pipeline.archived === archived
        ? archived
          ? mrkdwn`That bid is archived already: nothing changed.`
          : mrkdwn`That bid is not archived: there is nothing to restore.`
        : null,
    (client) => client.pipelines.archive(pipelineId, archived),
    { archivedToo: true },
  );
  if (!before) return;
  await afterChange(
    context,
    request,
    pipelineId,
    place,
    (pipeline) =>
      mrkdwn`${mention(request.userId)} ${archived ? mrkdwn`archived` : mrkdwn`restored`} ${safeText(pipeline.name, 200)}`,
    archived ? mrkdwn`Archived the bid.` : mrkdwn`Restored the bid.`,
    writer,
  );
}
