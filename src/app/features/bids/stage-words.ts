/*
 * A stage and a status as people type them, read the same by `/tender pipeline <bid> <stage>
 * <status>` and by the Workflow Builder step "Move a bid's stage": the same words for a status,
 * and stages numbered as the card numbers them (1 is the first shown).
 */
import type { Stage } from '../../../contract/schemas.ts';
import { cutText } from '../../../shared/cut-text.ts';
import { joinMrkdwn, type Mrkdwn, mrkdwn, safeText, text } from '../../shared/views/mrkdwn.ts';

/** The words each status is typed as. */
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

/** A status as typed: `in progress`, `In-Progress`, `in_progress`, `done`…; null for other words. */
export function stageStatusNamed(typed: string): Stage['status'] | null {
  const key = typed
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return Object.hasOwn(STAGE_WORDS, key) ? (STAGE_WORDS[key] as Stage['status']) : null;
}

/** A stage by its number on the card (1 first) or by its name (whole, or the start of just one). */
export function findStage(stages: Stage[], wanted: string): { stage: Stage } | { problem: Mrkdwn } {
  const ordered = [...stages].sort((a, b) => a.position - b.position);
  if (/^\d+$/.test(wanted)) {
    const stage = ordered[Number(wanted) - 1];
    return stage
      ? { stage }
      : {
          problem: mrkdwn`This bid has ${ordered.length} stage${ordered.length === 1 ? mrkdwn`` : mrkdwn`s`}; there is no stage ${text(cutText(wanted, 20))}.`,
        };
  }
  const byId = ordered.find((stage) => stage.id === wanted);
  if (byId) return { stage: byId };
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
