/* "Edit details" on a bid's card: its name, summary, target date and stage names, in one form. */

import { ForbiddenError, NotFoundError } from '../../../client/errors.ts';
import type { Pipeline, UpdatePipelineBody } from '../../../contract/schemas.ts';
import type { AppSlack } from '../../adapters/app-slack.ts';
import { describeFailure } from '../../shared/failure-sentences.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { PipelineIds } from '../../shared/ids.ts';
import { writerOr } from '../../shared/key-access.ts';
import { encodeKept } from '../../shared/values/codec.ts';
import { formatDay } from '../../shared/views/bid-parts.ts';
import {
  code,
  joinMrkdwn,
  type Mrkdwn,
  mention,
  mrkdwn,
  text as plain,
  safeText,
} from '../../shared/views/mrkdwn.ts';
import { fieldErrors, plainOf, plainSentence } from '../../shared/views/plain-sentence.ts';
import { withinBudget } from '../../shared/within-budget.ts';
import { bidReferences } from './bid-references.ts';
import { bidNotFoundSentence, forbiddenSentence } from './bid-sentences.ts';
import type { CardPlace } from './card-changes.ts';
import {
  afterClosingQuestion,
  ChangedMeanwhile,
  changedMeanwhileSentence,
  guestGetsSentence,
  modalStateOr,
  openLoadingModal,
  pastDayQuestion,
  SUBMIT_BUDGET_MS,
  unlessChangedMeanwhile,
  type ViewAck,
} from './form-steps.ts';
import { redrawEverywhere } from './pipeline-live.ts';
import { checkEditBid, openedFields, parseEditBidSubmission } from './pipeline-submissions.ts';
import { tenderDeadlineOf } from './tender-deadlines.ts';
import { editBidModal, stageNameBlock } from './views/edit-bid-modal.ts';
import { SAVE_BUTTON, sentenceView } from './views/pipeline-modals.ts';
import { openDeadline } from './views/tender-closes.ts';

const TITLE = 'Edit the bid';

/** "Edit details": the form opens at once (loading), then shows the bid as it is now. */
export async function openEditBid(
  context: FeatureContext,
  request: SlackRequest,
  args: { triggerId: string; pipelineId: string; place: CardPlace },
): Promise<void> {
  const update = await openLoadingModal(
    request,
    args.triggerId,
    sentenceView(TITLE, mrkdwn`Reading the bid…`),
  );
  if (
    await guestGetsSentence(context, request, update, {
      title: TITLE,
      sentence: mrkdwn`Guests can read bids but cannot change them. Ask a member of the workspace.`,
    })
  )
    return;
  const writer = await writerOr(context, request.teamId, request.userId, (sentence) =>
    update(sentenceView(TITLE, sentence)),
  );
  if (!writer) return;
  let pipeline: Pipeline;
  try {
    pipeline = await writer.client.pipelines.get(args.pipelineId);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    await update(
      sentenceView(TITLE, await bidNotFoundSentence(context, request.teamId, args.pipelineId, writer.source)),
    );
    return;
  }
  if (pipeline.archived) {
    await update(sentenceView(TITLE, await archivedSentence(context, request.teamId, pipeline)));
    return;
  }
  const stages = [...pipeline.stages].sort((a, b) => a.position - b.position);
  const deadline = await tenderDeadlineOf(
    context,
    request.teamId,
    pipeline.tenderId,
    async () => writer.client,
  );
  const closes = openDeadline(deadline, context.clock());
  const metadata = await encodeKept(
    'editBidModal',
    {
      p: pipeline.id,
      s: stages.map((stage) => stage.id),
      c: args.place?.channelId ?? '',
      ts: args.place?.ts ?? null,
      // The deadline the form says, so that a target date moved after it is asked about.
      ...(closes ? { d: closes } : {}),
    },
    'metadata',
    context.store,
    context.clock(),
  );
  await update(
    editBidModal({
      privateMetadata: metadata,
      name: pipeline.name,
      summary: pipeline.summary,
      targetDate: pipeline.targetSubmissionDate,
      stages,
      tenderCloses: closes,
    }),
  );
}

async function archivedSentence(
  context: FeatureContext,
  teamId: string,
  pipeline: Pipeline,
): Promise<Mrkdwn> {
  const reference = (await bidReferences(context, teamId, [pipeline.id])).get(pipeline.id) ?? pipeline.id;
  return mrkdwn`*${safeText(pipeline.name, 200)}* is archived, so it stays as it was. Restore it first with ${code(`/tender pipeline restore ${reference}`)}.`;
}

/**
 * One change the form asks for: the line under the cards says it of the bid as it was just before
 * (`said`), and `meanwhile` says whether someone else changed the same field since the form opened.
 */
interface Edit {
  said(current: Pipeline): Mrkdwn;
  meanwhile(current: Pipeline): Mrkdwn | null;
}

/** A stage taken away between the form opening and its Save: nothing is written. */
class StageGone extends Error {
  constructor(readonly number: number) {
    super(`stage ${number} is gone`);
  }
}

/** A bid archived between the form opening and its Save: nothing is written. */
class ArchivedMeanwhile extends Error {
  constructor(readonly pipeline: Pipeline) {
    super('the bid was archived');
  }
}

/**
 * The form's Save: only what was changed from what the form opened with is written (a field left
 * alone never overwrites another person's change made meanwhile); Save with nothing changed closes
 * the form and writes nothing. The writes run within the budget (a slow save still finishes, and a
 * failure after the form closed is told in a direct message); then every card is redrawn, with one
 * line under each saying what changed.
 */
export async function submitEditBid(
  context: FeatureContext,
  slack: AppSlack,
  args: {
    teamId: string;
    userId: string;
    values: unknown;
    privateMetadata: string;
    viewId?: string | undefined;
    /** The submitted view's blocks: what the form opened with. */
    openedBlocks?: unknown;
  },
  ack: ViewAck,
  budgetMs = SUBMIT_BUDGET_MS,
): Promise<void> {
  const meta = await modalStateOr(context, 'editBidModal', args.privateMetadata, ack, {
    title: TITLE,
    sentence: mrkdwn`This form is out of date. Close it and open it again from the card.`,
  });
  if (!meta) return;
  const fields = parseEditBidSubmission(args.values, meta.s.length);
  const errors = checkEditBid(fields);
  if (Object.keys(errors).length > 0) return ack(fieldErrors(errors));
  // What the form opened with; a view without its blocks counts every field as changed.
  const opened = openedFields(args.openedBlocks);
  const was = (block: string) => (opened ? (opened.get(block) ?? '') : undefined);
  const changes: UpdatePipelineBody = {};
  const edits: Edit[] = [];
  const known = opened !== null;
  const name = fields.name.trim();
  const nameWas = was(PipelineIds.nameBlock)?.trim();
  if (name !== nameWas) {
    changes.name = name;
    edits.push({
      said: (current) => mrkdwn`renamed it from “${safeText(current.name, 200)}”`,
      meanwhile: (current) =>
        known && current.name !== nameWas ? mrkdwn`the name is now “${safeText(current.name, 200)}”` : null,
    });
  }
  if (fields.summary !== undefined) {
    const summary = fields.summary.trim() || null;
    const summaryWas = known ? was(PipelineIds.summaryBlock)?.trim() || null : undefined;
    if (summary !== summaryWas) {
      changes.summary = summary;
      edits.push({
        said: () => (summary ? mrkdwn`changed the summary` : mrkdwn`cleared the summary`),
        meanwhile: (current) =>
          known && (current.summary?.trim() || null) !== summaryWas ? mrkdwn`the summary was changed` : null,
      });
    }
  }
  const targetWas = known ? was(PipelineIds.targetBlock) || null : undefined;
  if (fields.targetDate !== targetWas) {
    const target = fields.targetDate;
    changes.targetSubmissionDate = target;
    const day = (value: string) => plain(formatDay(value));
    edits.push({
      said: (current) => {
        const old = current.targetSubmissionDate;
        if (!target)
          return old ? mrkdwn`cleared the target date (was ${day(old)})` : mrkdwn`cleared the target date`;
        return old
          ? mrkdwn`moved the target date from ${day(old)} to ${day(target)}`
          : mrkdwn`set the target date to ${day(target)}`;
      },
      meanwhile: (current) =>
        known && current.targetSubmissionDate !== targetWas
          ? current.targetSubmissionDate
            ? mrkdwn`the target date is now ${day(current.targetSubmissionDate)}`
            : mrkdwn`the target date was cleared`
          : null,
    });
  }
  const renames = meta.s.flatMap((stageId, index) => {
    const stageName = (fields.stageNames[index] ?? '').trim();
    const before = was(stageNameBlock(index + 1))?.trim();
    return stageName === before ? [] : [{ stageId, number: index + 1, name: stageName, before }];
  });
  for (const rename of renames) {
    const nameNow = (current: Pipeline) => current.stages.find((stage) => stage.id === rename.stageId)?.name;
    edits.push({
      said: (current) =>
        mrkdwn`renamed stage ${rename.number} from “${safeText(nameNow(current) ?? rename.before ?? '', 200)}” to “${safeText(rename.name, 200)}”`,
      meanwhile: (current) =>
        known && nameNow(current) !== undefined && nameNow(current) !== rename.before
          ? mrkdwn`stage ${rename.number} is now named “${safeText(nameNow(current) ?? '', 200)}”`
          : null,
    });
  }
  if (edits.length === 0) return ack();
  const pastTarget = await pastDayQuestion(context, {
    button: SAVE_BUTTON,
    formId: args.viewId ?? args.privateMetadata,
    field: PipelineIds.targetBlock,
    day: fields.targetDate,
    unchanged: targetWas ?? null,
  });
  if (pastTarget) return ack(fieldErrors({ [PipelineIds.targetBlock]: pastTarget }));
  const lateTarget = await afterClosingQuestion(context, {
    button: SAVE_BUTTON,
    formId: args.viewId ?? args.privateMetadata,
    field: PipelineIds.targetBlock,
    day: fields.targetDate,
    deadline: meta.d,
    unchanged: targetWas ?? null,
  });
  if (lateTarget) return ack(fieldErrors({ [PipelineIds.targetBlock]: lateTarget }));
  if ((await context.users.facts(args.userId, args.teamId)).isGuest)
    return ack(
      fieldErrors({ [PipelineIds.nameBlock]: plainSentence`Guests can read bids but cannot change them.` }),
    );
  const writer = await writerOr(context, args.teamId, args.userId, (sentence) =>
    ack(fieldErrors({ [PipelineIds.nameBlock]: plainOf(sentence) })),
  );
  if (!writer) return;
  const { client } = writer;
  /** How many of the writes were made, for a failure part way: said, never hidden. */
  let written = 0;
  /** The bid as read just before the writes: what the line under the cards says was changed. */
  let read: Pipeline | null = null;
  const writes = Number(Object.keys(changes).length > 0) + renames.length;
  const save = async (): Promise<Pipeline> => {
    // Read first: an archived bid stays as it was, and a stage taken away meanwhile is not renamed.
    const current = await client.pipelines.get(meta.p);
    if (current.archived) throw new ArchivedMeanwhile(current);
    const gone = renames.find((rename) => !current.stages.some((stage) => stage.id === rename.stageId));
    if (gone) throw new StageGone(gone.number);
    read = current;
    await unlessChangedMeanwhile(
      context,
      args.viewId ?? args.privateMetadata,
      edits.flatMap((edit) => edit.meanwhile(current) ?? []),
    );
    if (Object.keys(changes).length > 0) {
      await client.pipelines.update(meta.p, changes);
      written += 1;
    }
    for (const rename of renames) {
      await client.pipelines.updateStage(meta.p, rename.stageId, { name: rename.name });
      written += 1;
    }
    return current;
  };
  const { quick, outcome } = await withinBudget(save(), budgetMs);
  const problemOf = async (error: unknown): Promise<Mrkdwn> => {
    context.logger.warn({ err: error, teamId: args.teamId }, 'could not edit a bid');
    const part =
      written > 0
        ? mrkdwn` ${written} of the ${writes} changes were saved before it stopped; save again for the rest.`
        : mrkdwn` Nothing was changed.`;
    if (error instanceof ArchivedMeanwhile) return archivedSentence(context, args.teamId, error.pipeline);
    if (error instanceof ChangedMeanwhile) return changedMeanwhileSentence(error);
    if (error instanceof StageGone)
      return mrkdwn`Stage ${error.number} was taken away from the bid since this form opened. Nothing was changed: close the form and open it again from the card.`;
    if (error instanceof ForbiddenError)
      return mrkdwn`${forbiddenSentence(writer.source)}${written > 0 ? part : mrkdwn``}`;
    if (error instanceof NotFoundError)
      return mrkdwn`That bid can no longer be found with ${writer.source === 'personal' ? mrkdwn`your own key` : mrkdwn`this workspace’s key`}.${part}`;
    return mrkdwn`${describeFailure(error).sentence}${part} What you typed is kept.`;
  };
  const place = meta.c && meta.ts ? { channelId: meta.c, ts: meta.ts } : null;
  const redraw = async () => {
    if (place)
      await context.store.rememberPipelineMessage({ pipelineId: meta.p, teamId: args.teamId, ...place });
    await redrawEverywhere(
      context,
      slack,
      args.teamId,
      meta.p,
      client,
      (pipeline) =>
        mrkdwn`${mention(args.userId)} edited ${safeText(pipeline.name, 200)}: ${joinMrkdwn(
          edits.map((edit) => edit.said(read ?? pipeline)),
          mrkdwn`; `,
        )}`,
    );
  };
  if (quick && 'error' in quick) {
    // Part saved: the cards show what was.
    if (written > 0) await redraw();
    return ack(fieldErrors({ [PipelineIds.nameBlock]: plainOf(await problemOf(quick.error)) }));
  }
  await ack();
  const result = quick ?? (await outcome);
  if ('error' in result) {
    if (written > 0) await redraw();
    await slack.chat
      .postMessage({
        channel: args.userId,
        text: mrkdwn`The bid was not edited: ${await problemOf(result.error)}`,
      })
      .catch(() => undefined);
    return;
  }
  await redraw();
}
