import type { Stage } from '../../../../contract/schemas.ts';
import { daysUntil, formatDay, STAGE_LABELS } from '../../../shared/views/bid-parts.ts';
import {
  clipMrkdwn,
  joinMrkdwn,
  type Mrkdwn,
  mrkdwn,
  text as plain,
  safeText,
} from '../../../shared/views/mrkdwn.ts';
import { notesOnCard } from './bid-people.ts';
import { afterClosingNote } from './tender-closes.ts';

export const STAGE_EMOJI: Record<Stage['status'], string> = {
  pending: ':white_circle:',
  in_progress: ':large_blue_circle:',
  blocked: ':red_circle:',
  completed: ':white_check_mark:',
};

/**
 * A stage's line: its status, due date or length, and its notes cut to `notesRoom`. A due date
 * after `closingDay` (the tender's deadline, from cardClosingDay) is flagged until the stage is done;
 * one after `targetDay` (the bid's target submission, while it is still to be submitted) too.
 */
export function stageText(
  stage: Stage,
  number: number,
  now: Date,
  notesRoom: number,
  closingDay: string | null = null,
  targetDay: string | null = null,
  /** Submitted, settled or archived: nobody works to its days any more, so none is overdue. */
  settled = false,
): Mrkdwn {
  const facts = [
    mrkdwn`${plain(STAGE_EMOJI[stage.status])} *${number}. ${safeText(stage.name, 200)}* · ${plain(STAGE_LABELS[stage.status])}`,
  ];
  const due = dueOf(stage, now, closingDay, targetDay, settled);
  if (due) facts.push(due.text);
  // A length of 0 days says nothing a bid lead can use ("about 0 days"): left out.
  if (stage.expectedDurationDays !== null && stage.expectedDurationDays > 0 && !stage.dueDate)
    facts.push(
      plain(`about ${stage.expectedDurationDays} day${stage.expectedDurationDays === 1 ? '' : 's'}`),
    );
  const notes = stage.notes?.trim() ? mrkdwn`\n${notesOnCard(stage.notes, notesRoom)}` : mrkdwn``;
  return clipMrkdwn(mrkdwn`${joinMrkdwn(facts, mrkdwn` · `)}${notes}`, 3000);
}

/**
 * A stage's due date as its line says it, with what it is flagged for (overdue, after the tender's
 * closing, after the bid's target), and whether it is flagged. Null without a due date.
 */
export function dueOf(
  stage: Stage,
  now: Date,
  closingDay: string | null,
  targetDay: string | null,
  settled: boolean,
): { text: Mrkdwn; flagged: boolean } | null {
  if (!stage.dueDate) return null;
  const days = daysUntil(stage.dueDate, now);
  const late = stage.status !== 'completed' && days < 0 && !settled ? ' (overdue)' : '';
  const afterClosing = stage.status === 'completed' ? mrkdwn`` : afterClosingNote(stage.dueDate, closingDay);
  // After the bid's own target (but not after the closing, which says more): a stage that will
  // hold up the submission, or one planned for after it (a presentation): either way, worth a look.
  const afterTarget =
    stage.status !== 'completed' &&
    String(afterClosing) === '' &&
    targetDay !== null &&
    stage.dueDate > targetDay
      ? mrkdwn` :warning: after the target submission (${plain(formatDay(targetDay))})`
      : mrkdwn``;
  return {
    text: mrkdwn`${plain(`due ${formatDay(stage.dueDate)}${late}`)}${afterClosing}${afterTarget}`,
    flagged: late !== '' || String(afterClosing) !== '' || String(afterTarget) !== '',
  };
}
