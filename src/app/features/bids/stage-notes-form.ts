/* "Notes and due date" on a stage of a bid's card: the form and its submission. */

import { ForbiddenError, NotFoundError } from '../../../client/errors.ts';
import type { Pipeline } from '../../../contract/schemas.ts';
import { cutText } from '../../../shared/cut-text.ts';
import type { AppSlack } from '../../adapters/app-slack.ts';
import { describeFailure } from '../../shared/failure-sentences.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { PipelineIds } from '../../shared/ids.ts';
import { writerOr } from '../../shared/key-access.ts';
import { encodeKept, type StateOf } from '../../shared/values/codec.ts';
import { formatDay } from '../../shared/views/bid-parts.ts';
import { type Mrkdwn, mention, mrkdwn, safeText, text } from '../../shared/views/mrkdwn.ts';
import { fieldErrors, plainOf, plainSentence } from '../../shared/views/plain-sentence.ts';
import { withinBudget } from '../../shared/within-budget.ts';
import { bidNotFoundSentence, forbiddenSentence } from './bid-sentences.ts';
import { type CardPlace, stageNamed } from './card-changes.ts';
import {
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
import { isDay, openedNotesFields, parseNotesSubmission } from './pipeline-submissions.ts';
import { redrawStagesForm } from './stages-form.ts';
import { tenderDeadlineOf } from './tender-deadlines.ts';
import {
  SAVE_BUTTON,
  sentenceView,
  stageNotesLoadingView,
  stageNotesModal,
} from './views/pipeline-modals.ts';
import { openDeadline } from './views/tender-closes.ts';

/** "Notes and due date" on a stage: the modal opens at once (loading), then shows the stage as it is now. */
export async function openStageNotes(
  context: FeatureContext,
  request: SlackRequest,
  args: {
    triggerId: string;
    ref: StateOf<'pipelineStage'>;
    place: CardPlace;
    /** The "All stages" form it opens on top of (a view id), which the save redraws. */
    overForm?: string | undefined;
  },
): Promise<void> {
  const update = await openLoadingModal(
    request,
    args.triggerId,
    stageNotesLoadingView(),
    args.overForm !== undefined,
  );
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
      await update(
        sentenceView(
          'Notes and due date',
          await bidNotFoundSentence(context, request.teamId, args.ref.p, source),
        ),
      );
      return;
    }
    throw error;
  }
  const stage = pipeline.stages.find((candidate) => candidate.id === args.ref.s);
  if (!stage) {
    await update(sentenceView('Notes and due date', mrkdwn`That stage is no longer part of the bid.`));
    return;
  }
  const deadline = await tenderDeadlineOf(context, request.teamId, pipeline.tenderId, async () => client);
  const metadata = await encodeKept(
    'stageNotesModal',
    {
      p: args.ref.p,
      s: args.ref.s,
      c: args.place?.channelId ?? '',
      ts: args.place?.ts ?? null,
      ...(args.overForm ? { u: args.overForm } : {}),
    },
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
      tenderCloses: openDeadline(deadline, context.clock()),
    }),
  );
}

/**
 * The notes modal's submission: saved within the budget (a slow save still finishes, and a
 * failure after the modal closed is told in a direct message); then every card is redrawn.
 */
export async function submitStageNotes(
  context: FeatureContext,
  slack: AppSlack,
  args: {
    teamId: string;
    userId: string;
    values: unknown;
    privateMetadata: string;
    viewId?: string | undefined;
    /** The submitted view's blocks: what the form opened with (a date already there is not asked about again). */
    openedBlocks?: unknown;
  },
  ack: ViewAck,
  budgetMs = SUBMIT_BUDGET_MS,
): Promise<void> {
  const meta = await modalStateOr(context, 'stageNotesModal', args.privateMetadata, ack, {
    title: 'Notes and due date',
    sentence: mrkdwn`This form is out of date. Close it and open it again from the card.`,
  });
  if (!meta) return;
  const fields = parseNotesSubmission(args.values);
  const opened = openedNotesFields(args.openedBlocks);
  if (!isDay(fields.dueDate))
    return ack(fieldErrors({ [PipelineIds.dueBlock]: plainSentence`Pick the date from the calendar.` }));
  const pastDue = await pastDayQuestion(context, {
    button: SAVE_BUTTON,
    formId: args.viewId ?? args.privateMetadata,
    field: PipelineIds.dueBlock,
    day: fields.dueDate,
    unchanged: opened.dueDate,
  });
  if (pastDue) return ack(fieldErrors({ [PipelineIds.dueBlock]: pastDue }));
  if (fields.notes !== undefined && fields.notes.length > 3000)
    return ack(
      fieldErrors({ [PipelineIds.notesBlock]: plainSentence`Notes hold 3,000 characters at most.` }),
    );
  if ((await context.users.facts(args.userId, args.teamId)).isGuest)
    return ack(
      fieldErrors({ [PipelineIds.notesBlock]: plainSentence`Guests can read bids but cannot change them.` }),
    );
  const notes = fields.notes?.trim() || null;
  const changed = {
    // No notes field (notes longer than it holds): they stay as they are.
    notes:
      fields.notes !== undefined && (opened.notes === undefined || notes !== (opened.notes.trim() || null)),
    dueDate: opened.notes === undefined || fields.dueDate !== opened.dueDate,
  };
  // Save with nothing changed closes the form and writes nothing: no write, no line under the cards.
  if (!changed.notes && !changed.dueDate) return ack();
  const writer = await writerOr(context, args.teamId, args.userId, (sentence) =>
    ack(fieldErrors({ [PipelineIds.notesBlock]: plainOf(sentence) })),
  );
  if (!writer) return;
  const { client } = writer;
  const save = async () => {
    // Someone else's change since the form opened, to what this save changes, is said first: the
    // notes are free text, and one save over another would lose the other's without a trace.
    if (opened.notes !== undefined) {
      const stage = (await client.pipelines.get(meta.p)).stages.find((each) => each.id === meta.s);
      const meanwhile: Mrkdwn[] = [];
      if (stage && changed.notes && (stage.notes?.trim() || null) !== (opened.notes.trim() || null))
        meanwhile.push(
          stage.notes
            ? mrkdwn`the notes now read “${safeText(cutText(stage.notes, 300), 300)}”`
            : mrkdwn`the notes were cleared`,
        );
      if (stage && changed.dueDate && stage.dueDate !== opened.dueDate)
        meanwhile.push(
          stage.dueDate
            ? mrkdwn`the due date is now ${text(formatDay(stage.dueDate))}`
            : mrkdwn`the due date was cleared`,
        );
      await unlessChangedMeanwhile(context, args.viewId ?? args.privateMetadata, meanwhile);
    }
    return client.pipelines.updateStage(meta.p, meta.s, {
      ...(changed.notes ? { notes } : {}),
      ...(changed.dueDate ? { dueDate: fields.dueDate } : {}),
    });
  };
  const { quick, outcome: write } = await withinBudget(save(), budgetMs);
  const problemOf = (error: unknown) => {
    context.logger.warn({ err: error, teamId: args.teamId }, 'could not save a stage’s notes');
    if (error instanceof ChangedMeanwhile) return changedMeanwhileSentence(error);
    if (error instanceof ForbiddenError) return forbiddenSentence(writer.source);
    if (error instanceof NotFoundError)
      return mrkdwn`That bid or stage can no longer be found with ${writer.source === 'personal' ? mrkdwn`your own key` : mrkdwn`this workspace’s key`}. Nothing was changed.`;
    return mrkdwn`${describeFailure(error).sentence} Your notes are kept: save again when you are ready.`;
  };
  if (quick && 'error' in quick)
    return ack(fieldErrors({ [PipelineIds.notesBlock]: plainOf(problemOf(quick.error)) }));
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
  // Opened from "All stages": the save closes back onto that form, which shows the notes now too,
  // at once, beside the cards' redraws (which go one at a time per bid).
  const form = meta.u
    ? redrawStagesForm(
        context,
        { slack, teamId: args.teamId, userId: args.userId },
        { pipelineId: meta.p, stageId: meta.s, viewId: meta.u },
      ).catch((error: unknown) =>
        context.logger.warn({ err: error, teamId: args.teamId }, 'could not redraw the All stages form'),
      )
    : null;
  await redrawEverywhere(context, slack, args.teamId, meta.p, writer.client, (pipeline) =>
    notesLine(args.userId, pipeline, meta.s, changed, fields.dueDate),
  ).finally(() => form);
}

/** The line under the cards: what changed, of which stage (by number and name), of which bid. */
function notesLine(
  userId: string,
  pipeline: Pipeline,
  stageId: string,
  changed: { notes: boolean; dueDate: boolean },
  dueDate: string | null,
): Mrkdwn {
  const of = mrkdwn`${stageNamed(pipeline, stageId)} of ${safeText(pipeline.name, 200)}`;
  if (!changed.dueDate) return mrkdwn`${mention(userId)} updated the notes of ${of}`;
  const due = dueDate
    ? mrkdwn`set the due date of ${of} to ${text(formatDay(dueDate))}`
    : mrkdwn`cleared the due date of ${of}`;
  // The date next to its own verb, the notes after it: "updated the notes and set the due date …
  // to 20 Nov" read as notes set to a date.
  return changed.notes
    ? mrkdwn`${mention(userId)} ${due}, and updated that stage’s notes`
    : mrkdwn`${mention(userId)} ${due}`;
}
