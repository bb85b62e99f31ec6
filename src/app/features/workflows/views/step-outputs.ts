/* What the steps give Workflow Builder: outputs a later step may put in a message. Pure. */
import type { Pipeline, Tender, ValueRule } from '../../../../contract/schemas.ts';
import { STAGE_LABELS, STATUS_LABELS } from '../../../shared/views/bid-parts.ts';
import { valueRuleSentence } from '../../../shared/views/describe-search.ts';
import { grouped } from '../../../shared/views/formats.ts';
import {
  clipMrkdwn,
  joinMrkdwn,
  link,
  type Mrkdwn,
  mrkdwn,
  safeText,
  text,
} from '../../../shared/views/mrkdwn.ts';
import { formatDeadline } from '../../../shared/views/tender-card.ts';

/** At most this many tenders are listed in the output (a message of a later step stays short). */
export const LISTED_TENDERS = 10;

/**
 * The tenders found, one line each (title linked to its notice, buyer, deadline, id), as mrkdwn a
 * "Send a message" step can show as it is: every piece of the service's text is escaped.
 */
export function tenderListOutput(
  tenders: readonly Tender[],
  total: number,
  now: Date,
  /** The rule the service compared value bounds by (none without bounds): said under the list. */
  valueRule?: ValueRule,
  /** How the search's words were read (a region typed without quotes): said under the list too. */
  read?: Mrkdwn,
): Mrkdwn {
  const valueLine = valueRule
    ? mrkdwn`\nValues in ${text(valueRule.currency)}; ${valueRuleSentence(valueRule)}.`
    : mrkdwn``;
  const rule = read ? mrkdwn`${valueLine}\n${read}` : valueLine;
  if (tenders.length === 0) return mrkdwn`No new tenders.${rule}`;
  const lines = tenders.slice(0, LISTED_TENDERS).map((tender) => {
    const title = safeText(tender.title, 150);
    const titled = link(tender.url, title) ?? title;
    const buyer = tender.buyer ? mrkdwn` · ${safeText(tender.buyer.name, 100)}` : mrkdwn``;
    return mrkdwn`• ${titled}${buyer} · ${text(formatDeadline(tender.deadline, now))} · ${text(tender.id)}`;
  });
  const more = total - lines.length;
  if (more > 0) lines.push(mrkdwn`…and ${text(grouped(more))} more.`);
  return mrkdwn`${joinMrkdwn(lines, mrkdwn`\n`)}${rule}`;
}

/** A bid in one line: its name, status and stages done, for the summary step's output. */
export function bidLine(pipeline: Pipeline): Mrkdwn {
  const done = pipeline.stages.filter((stage) => stage.status === 'completed').length;
  return mrkdwn`${clipMrkdwn(safeText(pipeline.name, 200), 200)}: ${text(STATUS_LABELS[pipeline.status])}, ${done} of ${pipeline.stages.length} stages done`;
}

/** "Draft response is now In progress", for the move step's output. */
export function stageMovedLine(stageName: string, status: keyof typeof STAGE_LABELS): Mrkdwn {
  return mrkdwn`${safeText(stageName, 200)} is now ${text(STAGE_LABELS[status])}`;
}
