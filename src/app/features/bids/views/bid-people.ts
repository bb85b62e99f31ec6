/* Who a bid belongs to and who started it, and a stage's notes as long as a card has room for. */
import { cutText } from '../../../../shared/cut-text.ts';
import { formatDay } from '../../../shared/views/bid-parts.ts';
import { counted } from '../../../shared/views/formats.ts';
import { type Mrkdwn, mention, mrkdwn, text as plain, safeText } from '../../../shared/views/mrkdwn.ts';

/** The Slack person who started a bid through Tenderbot, and whether with their own key. */
export interface StartedBy {
  userId: string;
  ownKey: boolean;
}

/**
 * `started by @alice · owner in the service: Carol Jones, who made the workspace’s key`: the service names the key's
 * maker as owner, who may be a stranger to the channel, so why is said; `started by @alice
 * (owner)` when the two are the same person (their own key); `owner Carol Jones` when the bid was
 * not started through Tenderbot.
 */
export function startedByPhrase(ownerName: string, starter: StartedBy | undefined): Mrkdwn {
  if (!starter) return mrkdwn`owner ${safeText(ownerName, 100)}`;
  if (starter.ownKey) return mrkdwn`started by ${mention(starter.userId)} (owner)`;
  // "owner Max (the workspace key's maker)" read as Max leading the bid: whose the record is, said as the service's.
  return mrkdwn`started by ${mention(starter.userId)} · owner in the service: ${safeText(ownerName, 100)}, who made the workspace’s key`;
}

/**
 * A stage's notes cut to about `room` characters (at a word where one is near), with what is left
 * counted: the whole notes are in the stage's *Notes and due date* form.
 */
export function notesOnCard(notes: string, room: number): Mrkdwn {
  const whole = notes.trim();
  if (whole.length <= room) return safeText(whole, whole.length * 5);
  let end = room;
  const space = whole.lastIndexOf(' ', room);
  if (space > room - 80 && space > 0) end = space;
  // Never half a character (half an emoji is not text).
  const shown = cutText(whole, end).trimEnd();
  const left = whole.length - shown.length;
  const more = plain(
    shown
      ? `… ${counted(left, 'more character')} in Notes and due date`
      : `${counted(left, 'character')} of notes in Notes and due date`,
  );
  return shown ? mrkdwn`${safeText(shown, shown.length * 5)} _${more}_` : mrkdwn`_${more}_`;
}

/**
 * What a tender a bid is started on must say first: closed, awarded, cancelled or past its deadline.
 * `awarded` is the service's status (the records hold an award); `awardedAt` is the award's date as
 * the records give it, which can be still to come (an award announced ahead of its date), so the
 * sentence says "awarded on" only for a date that has come.
 */
export function closedTenderSentence(
  tender: { status: string; deadline: string | null; awardedAt: string | null },
  now: Date,
): Mrkdwn | null {
  const deadline = tender.deadline ? formatDay(tender.deadline.slice(0, 10)) : null;
  const passed = tender.deadline !== null && Date.parse(tender.deadline) < now.getTime();
  switch (tender.status) {
    case 'awarded': {
      const awardDay = tender.awardedAt ? formatDay(tender.awardedAt.slice(0, 10)) : null;
      if (awardDay && Date.parse(tender.awardedAt as string) > now.getTime())
        return mrkdwn`This tender is listed as awarded, with an award date still to come (${plain(awardDay)})${passed && deadline ? mrkdwn`, and its deadline has passed (${plain(deadline)})` : mrkdwn``}: a bid on it is unlikely to be accepted by the buyer.`;
      return mrkdwn`This tender ${awardDay ? mrkdwn`was awarded on ${plain(awardDay)}` : mrkdwn`has been awarded`}: a bid on it can no longer be submitted to the buyer.`;
    }
    case 'cancelled':
      return mrkdwn`This tender was cancelled: a bid on it can no longer be submitted to the buyer.`;
    case 'closed':
      return mrkdwn`This tender is closed${deadline ? mrkdwn` (its deadline was ${plain(deadline)})` : mrkdwn``}: a bid on it can no longer be submitted to the buyer.`;
    default:
      return passed && deadline
        ? mrkdwn`This tender’s deadline has passed (${plain(deadline)}): a bid on it may no longer be accepted.`
        : null;
  }
}
