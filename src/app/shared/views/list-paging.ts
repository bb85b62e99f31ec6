import { cutText } from '../../../shared/cut-text.ts';
import { ListIds } from '../ids.ts';
import type { PagedList } from '../values/button-values.ts';
import { encodeIfFits } from '../values/codec.ts';
import { grouped } from './formats.ts';
import { type Mrkdwn, mrkdwn, text as plain } from './mrkdwn.ts';
import type { Block, Button } from './safe-blocks.ts';
import { button } from './tender-card.ts';

/** `11–20 of 125`: which part of a list a page shows. */
export function pageRange(offset: number, shown: number, total: number): Mrkdwn {
  if (shown === 0) return plain(`none of ${grouped(total)}`);
  if (shown === 1) return plain(`${grouped(offset + 1)} of ${grouped(total)}`);
  return plain(`${grouped(offset + 1)}–${grouped(offset + shown)} of ${grouped(total)}`);
}

/**
 * Previous and Next under a list, each carrying the list, what was typed and the page's first
 * item; nothing when the whole list fits on one page (or the typed text is too long to carry).
 */
export function listPaging(
  list: PagedList,
  typed: string,
  offset: number,
  shown: number,
  total: number,
  pageSize: number,
): Block[] {
  const buttons: Button[] = [];
  const text = cutText(typed, 300);
  if (offset > 0) {
    const value = encodeIfFits('listPage', { l: list, t: text, o: Math.max(0, offset - pageSize) });
    if (value) buttons.push(button('Previous', ListIds.previous, value));
  }
  if (offset + shown < total) {
    const value = encodeIfFits('listPage', { l: list, t: text, o: offset + pageSize });
    if (value) buttons.push(button('Next', ListIds.next, value));
  }
  return buttons.length > 0 ? [{ type: 'actions', elements: buttons }] : [];
}

/** Which page of a list is shown, and what was typed after its command (for Next and Previous). */
export interface ListPage {
  offset: number;
  typed: string;
  pageSize: number;
}

export const FIRST_PAGE = (pageSize: number): ListPage => ({ offset: 0, typed: '', pageSize });

/** `Buyers matching “leeds”`, or `All buyers` when nothing narrows the list. */
export function listHeading(label: string, description: Mrkdwn): Mrkdwn {
  return description === 'everything'
    ? plain(`All ${label.toLowerCase()}`)
    : mrkdwn`${plain(label)} matching ${description}`;
}
