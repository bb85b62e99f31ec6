/* How a feed names what it follows: its title, and a post's counted heading (one wording for both). */
import type { TenderSearchFilters } from '../../shared/commands/parse-command.ts';
import { STATUS_WORDS } from '../../shared/views/describe-search.ts';
import { afterLead, type Mrkdwn, mrkdwn, text as plain } from '../../shared/views/mrkdwn.ts';

/**
 * A feed's title (`New tenders for “cleaning”`, `New open tenders closing within 7 days`, `All new
 * tenders`), or with a count in place of “New” (a post's heading: `3 new tenders
 * in Wales`, `1 new open tender closing within 7 days`, `0 new tenders for “cleaning”`). A saved
 * search's name (`savedSearch`) is said after “for”, as words are.
 */
export function newTendersPhrase(
  described: Mrkdwn,
  search: TenderSearchFilters,
  count?: number,
  savedSearch = false,
): Mrkdwn {
  const lead = count === undefined ? mrkdwn`New` : mrkdwn`${plain(count.toLocaleString('en-GB'))} new`;
  const noun = plain(count === 1 ? 'tender' : 'tenders');
  if (search.q || savedSearch) return mrkdwn`${lead} ${noun} for ${described}`;
  if (described === 'everything')
    return count === undefined ? mrkdwn`All new tenders` : mrkdwn`${lead} ${noun}`;
  // The status is the description's first part when no region comes before it.
  const status = search.status ? STATUS_WORDS[search.status].toLowerCase() : null;
  const alone = status && described === status;
  const rest = status && !alone ? afterLead(described, `${status}, `) : null;
  if (status && alone) return mrkdwn`${lead} ${plain(status)} ${noun}`;
  if (status && rest) return mrkdwn`${lead} ${plain(status)} ${noun} ${rest}`;
  return mrkdwn`${lead} ${noun} ${described}`;
}
