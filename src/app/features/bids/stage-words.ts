/*
 * A stage, a stage's status and a bid's status as people type them, read the same by `/tender
 * pipeline …` and by the Workflow Builder step "Move a bid's stage": a status as its card shows it
 * (`On hold`, `No bid`, `In progress`) or as commonly spelt (`no-bid`, `nobid`, `in_progress`), in
 * any case; stages numbered as the card numbers them (1 is the first shown), a name in quotes or not.
 */
import type { Pipeline, Stage } from '../../../contract/schemas.ts';
import { cutText } from '../../../shared/cut-text.ts';
import { rankNearest } from '../../shared/commands/edit-distance.ts';
import { SETTABLE_PIPELINE_STATUSES } from '../../shared/values/pipeline-values.ts';
import { STAGE_LABELS, STATUS_LABELS } from '../../shared/views/bid-parts.ts';
import { joinMrkdwn, type Mrkdwn, mrkdwn, safeText, text } from '../../shared/views/mrkdwn.ts';

/**
 * A typed status as one key: lower case, without spaces, hyphens, underscores or the quotes around
 * it, so `No Bid`, `no-bid`, `no_bid` and `nobid` are one (no status differs from another by those).
 */
function statusKey(typed: string): string {
  return unquoted(typed)
    .toLowerCase()
    .replace(/[\s_-]+/g, '');
}

/** The words each stage status is typed as, by statusKey. */
const STAGE_WORDS: Record<string, Stage['status']> = {
  pending: 'pending',
  todo: 'pending',
  notstarted: 'pending',
  inprogress: 'in_progress',
  started: 'in_progress',
  underway: 'in_progress',
  blocked: 'blocked',
  completed: 'completed',
  complete: 'completed',
  done: 'completed',
};

/** The words each bid status is typed as, by statusKey: each as its card shows it, and `submitted` (refused with why). */
const BID_WORDS: Record<string, Pipeline['status']> = {
  draft: 'draft',
  qualifying: 'qualifying',
  bidding: 'bidding',
  onhold: 'on_hold',
  submitted: 'submitted',
  won: 'won',
  lost: 'lost',
  nobid: 'no_bid',
};

/** A stage status as typed: `in progress`, `In-Progress`, `in_progress`, `done`…; null for other words. */
export function stageStatusNamed(typed: string): Stage['status'] | null {
  const key = statusKey(typed);
  return Object.hasOwn(STAGE_WORDS, key) ? (STAGE_WORDS[key] as Stage['status']) : null;
}

/** A bid status as typed: `No bid`, `no-bid`, `nobid`, `ON_HOLD`, `on hold`…; null for other words. */
export function bidStatusNamed(typed: string): Pipeline['status'] | null {
  const key = statusKey(typed);
  return Object.hasOwn(BID_WORDS, key) ? (BID_WORDS[key] as Pipeline['status']) : null;
}

/**
 * The status a misspelt one most likely meant (`qualfying` → Qualifying, `blokced` → Blocked): the
 * nearest typed word within one edit (up to four letters) or two, when no other status is as near.
 */
function statusMeant<S extends string>(typed: string, words: Record<string, S>): S | null {
  const key = statusKey(typed);
  if (key.length < 3) return null;
  const [best, next] = rankNearest(key, Object.keys(words), (word) => word);
  if (!best || best.distance === 0 || best.distance > (key.length <= 4 ? 1 : 2)) return null;
  const meant = words[best.item] as S;
  const tie =
    next && next.distance === best.distance && next.plain === best.plain && words[next.item] !== meant;
  return tie ? null : meant;
}

/** "Did you mean Qualifying?" for a bid status typed wrong, or nothing. */
export function bidStatusMeant(typed: string): Mrkdwn {
  const meant = statusMeant(typed, BID_WORDS);
  return meant && meant !== 'submitted' ? mrkdwn` Did you mean ${text(STATUS_LABELS[meant])}?` : mrkdwn``;
}

/** "Did you mean Completed?" for a stage status typed wrong, or nothing. */
export function stageStatusMeant(typed: string): Mrkdwn {
  const meant = statusMeant(typed, STAGE_WORDS);
  return meant ? mrkdwn` Did you mean ${text(STAGE_LABELS[meant])}?` : mrkdwn``;
}

/** `Draft, Qualifying, Bidding, On hold, Won, Lost, No bid`: the statuses a person may set, as the card's menu shows them. */
export function settableBidStatusesAsShown(): Mrkdwn {
  return text(SETTABLE_PIPELINE_STATUSES.map((status) => STATUS_LABELS[status]).join(', '));
}

/** `Pending, In progress, Blocked, Completed`, as a stage's menu shows them. */
export function stageStatusesAsShown(): Mrkdwn {
  return text(Object.values(STAGE_LABELS).join(', '));
}

/** Text without the quotes around it (straight or curly, double or single), as `"Draft response"` is typed. */
function unquoted(typed: string): string {
  const trimmed = typed.trim();
  const quoted = /^(["“”„«»'‘’])(.*)(["“”„«»'‘’])$/su.exec(trimmed);
  return quoted ? (quoted[2] as string).trim() : trimmed;
}

/** A stage by its number on the card (1 first) or by its name (whole, or the start of just one). */
export function findStage(stages: Stage[], typed: string): { stage: Stage } | { problem: Mrkdwn } {
  const wanted = unquoted(typed);
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
