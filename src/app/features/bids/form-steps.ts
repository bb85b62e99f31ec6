/* What the two bid forms (start a bid, notes and due date) share: opening, refusing guests, reading metadata. */
import { createHash } from 'node:crypto';
import { cutText } from '../../../shared/cut-text.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { type ActionKind, decode, type StateOf } from '../../shared/values/codec.ts';
import { daysUntil, formatDay } from '../../shared/views/bid-parts.ts';
import { counted } from '../../shared/views/formats.ts';
import { joinMrkdwn, type Mrkdwn, mrkdwn } from '../../shared/views/mrkdwn.ts';
import { type PlainSentence, plainSentence } from '../../shared/views/plain-sentence.ts';
import type { SafeModalView as ModalView } from '../../shared/views/safe-blocks.ts';
import { sentenceView } from './views/pipeline-modals.ts';
import { deadlineDay, formatClosing, isAfterDeadline } from './views/tender-closes.ts';

/** Slack waits 3 s for a modal's answer; the service gets most of it, the rest is margin. */
export const SUBMIT_BUDGET_MS = 2000;

export type ViewAck = (answer?: unknown) => Promise<void>;

export type ViewUpdate = (view: ModalView) => Promise<unknown>;

/**
 * Opens `loading` at once (a trigger_id lasts 3 s), on top of the modal the click came from when
 * `onTop` (Slack opens no second modal beside one); the function it gives replaces that view.
 */
export async function openLoadingModal(
  request: SlackRequest,
  triggerId: string,
  loading: ModalView,
  onTop = false,
): Promise<ViewUpdate> {
  const args = { trigger_id: triggerId, view: loading };
  const opened = onTop ? await request.slack.views.push(args) : await request.slack.views.open(args);
  const viewId = opened.view?.id as string;
  return (view) => request.slack.views.update({ view_id: viewId, view: view });
}

/** For a guest, replaces the opened modal with `refusal` and says true; false for anyone else. */
export async function guestGetsSentence(
  context: FeatureContext,
  request: SlackRequest,
  update: ViewUpdate,
  refusal: { title: string; sentence: Mrkdwn },
): Promise<boolean> {
  if (!(await context.users.facts(request.userId, request.teamId)).isGuest) return false;
  await update(sentenceView(refusal.title, refusal.sentence));
  return true;
}

/**
 * A pipeline modal's metadata, or null once the submission is answered with `stale` (the form
 * replaced by a sentence) because the metadata is out of date or was changed.
 */
export async function modalStateOr<K extends ActionKind>(
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

/** How long a warned date stays confirmable by submitting it again. */
const CONFIRM_MS = 60 * 60_000;

/**
 * Whether the question `key` (a form, a field and the date asked about) was asked within the hour:
 * true takes the date; false remembers that it is being asked now. Kept in the bot's store, so
 * any copy of the app takes the confirmation.
 */
export async function confirmedOnResubmit(context: FeatureContext, key: string): Promise<boolean> {
  const now = context.clock();
  const token = cutText(key, 300);
  if (await context.store.loadState(token, now)) return true;
  await context.store.saveState(token, '1', new Date(now.getTime() + CONFIRM_MS));
  return false;
}

/**
 * A date before today asks whether it is meant: the first submission with it gets a sentence under
 * the field, and the same date submitted again from the same form is taken (the form keeps what
 * was typed, so confirming is one more click, and no checkbox sits on every form). A date already
 * there before the form opened (`unchanged`) is not asked about again. Resolves with the sentence,
 * or null to go on.
 */
export async function pastDayQuestion(
  context: FeatureContext,
  args: { formId: string; field: string; button: string; day: string | null; unchanged?: string | null },
): Promise<PlainSentence | null> {
  const now = context.clock();
  if (!args.day || args.day === args.unchanged || daysUntil(args.day, now) >= 0) return null;
  if (await confirmedOnResubmit(context, `past-day:${cutText(args.formId, 200)}:${args.field}:${args.day}`))
    return null;
  const ago = -daysUntil(args.day, now);
  return plainSentence`${formatDay(args.day)} is in the past (${counted(ago, 'day')} ago). Press “${args.button}” again to keep it, or pick another date.`;
}

/**
 * A target date after the tender closes asks whether it is meant (a bid aims to be in by the
 * deadline; a stage may come after it, so only the target date is asked about): once, as a date in
 * the past is, and not for a date the form opened with. `deadline` is the tender's, as the form said
 * it under the date (while it was ahead).
 */
export async function afterClosingQuestion(
  context: FeatureContext,
  args: {
    formId: string;
    field: string;
    button: string;
    day: string | null;
    deadline: string | null | undefined;
    unchanged?: string | null;
  },
): Promise<PlainSentence | null> {
  if (!args.day || !args.deadline || args.day === args.unchanged) return null;
  const closingDay = deadlineDay(args.deadline);
  if (!closingDay || !isAfterDeadline(args.day, closingDay)) return null;
  if (
    await confirmedOnResubmit(context, `after-closing:${cutText(args.formId, 200)}:${args.field}:${args.day}`)
  )
    return null;
  return plainSentence`${formatDay(args.day)} is after the tender closes (${formatClosing(args.deadline)}). Press “${args.button}” again to keep it, or pick an earlier date.`;
}

/**
 * Stages that add up to more days than are left, today and the last day included, up to the target
 * date or the day the tender closes, whichever comes first, ask whether they are meant: once for
 * the form and those days (moving a date does not ask again), as a date in the past is. A bid's
 * stages are fixed when it starts, so a plan that cannot fit is worth a second look first. Dates
 * already past are left to their own question.
 */
export async function stagesLongerQuestion(
  context: FeatureContext,
  args: {
    formId: string;
    field: string;
    button: string;
    stages: readonly { expectedDurationDays: number | null }[];
    targetDate: string | null;
    deadline: string | null | undefined;
  },
): Promise<PlainSentence | null> {
  const total = args.stages.reduce((sum, stage) => sum + (stage.expectedDurationDays ?? 0), 0);
  if (total === 0) return null;
  const now = context.clock();
  const closingDay = deadlineDay(args.deadline);
  // The earlier of the two: a target after the closing does not give the stages more time.
  const byTarget = args.targetDate !== null && (closingDay === null || args.targetDate <= closingDay);
  const by = byTarget ? args.targetDate : closingDay;
  if (!by) return null;
  const left = daysUntil(by, now) + 1;
  if (left < 1 || total <= left) return null;
  if (await confirmedOnResubmit(context, `stages-longer:${cutText(args.formId, 200)}:${args.field}:${total}`))
    return null;
  const days = (count: number) => counted(count, 'day');
  const limit =
    left === 1
      ? byTarget
        ? `the target date, ${formatDay(by)}, is today`
        : `the tender closes today (${formatClosing(args.deadline ?? '')})`
      : `only ${days(left)} are left up to ${byTarget ? `the target date, ${formatDay(by)}` : `the day the tender closes (${formatClosing(args.deadline ?? '')})`}, today and that day included`;
  return plainSentence`The stages add up to ${days(total)}, but ${limit}. Press “${args.button}” again to keep them, or shorten the stages.`;
}

/** Someone else changed, since a form opened, what its Save changes: said on the form, kept unless saved again. */
export class ChangedMeanwhile extends Error {
  constructor(readonly changes: Mrkdwn[]) {
    super('changed meanwhile');
  }
}

/**
 * Throws ChangedMeanwhile for `changes` (each "the name is now …"), unless there are none or the
 * same ones were said to this form before: saved again over them, the person has seen them and
 * means theirs. Kept in the bot's store, so any copy of the app takes the second Save.
 */
export async function unlessChangedMeanwhile(
  context: FeatureContext,
  formId: string,
  changes: Mrkdwn[],
): Promise<void> {
  if (changes.length === 0) return;
  const seen = createHash('sha256').update(changes.join('\n')).digest('base64url');
  if (!(await confirmedOnResubmit(context, `meanwhile:${cutText(formId, 200)}:${seen}`)))
    throw new ChangedMeanwhile(changes);
}

/** What a form says of ChangedMeanwhile. */
export function changedMeanwhileSentence(error: ChangedMeanwhile): Mrkdwn {
  return mrkdwn`Since this form opened, someone else changed what you are changing: ${joinMrkdwn(error.changes, mrkdwn`; `)}. Nothing was saved. Save again to put yours in their place, or close the form to keep theirs.`;
}
