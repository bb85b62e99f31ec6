/** What a tender search, a shared card and the bookmarks look like in Slack. */

import type { Bookmark, Tender } from '../../../../contract/schemas.ts';
import { SearchIds } from '../../../shared/ids.ts';
import type { SearchState } from '../../../shared/values/button-values.ts';
import { encode } from '../../../shared/values/codec.ts';
import {
  bookmarkButtonsLine,
  bookmarksOwnerLine,
  type KeySource,
} from '../../../shared/views/key-identity.ts';
import { FIRST_PAGE, type ListPage, listPaging, pageRange } from '../../../shared/views/list-paging.ts';
import type { Message } from '../../../shared/views/messages.ts';
import {
  lowerFirst as lowerFirstLetter,
  type Mrkdwn,
  mention,
  mrkdwn,
  text,
} from '../../../shared/views/mrkdwn.ts';
import type { Button } from '../../../shared/views/safe-blocks.ts';
import { type Block, button, contextLine, section, tenderCard } from '../../../shared/views/tender-card.ts';

export const PAGE_SIZE = 5;

/** A page of search results, shown to the caller alone, with Next and Previous. */
export function searchResultsMessage(args: {
  /** The search as a heading: `Open tenders matching “cleaning”, in North West`. */
  heading: Mrkdwn;
  /** False in a direct message with Tenderbot: there is no channel to share a card into. */
  canShare?: boolean;
  tenders: Tender[];
  total: number;
  offset: number;
  bookmarked: ReadonlySet<string>;
  /** The search, compact, for the buttons; `offset` is added per button. */
  state: (offset: number) => SearchState;
  now: Date;
  /** Whose key drew the page: said under it, since the Bookmark buttons change that key's list. */
  keySource?: KeySource;
  /** A guest's page: cards without the buttons a guest is refused. */
  readOnly?: boolean;
}): Message {
  const { tenders, total, offset } = args;
  if (total === 0) {
    return {
      text: mrkdwn`Found no ${lowerFirst(args.heading)}.`,
      blocks: [
        section(
          mrkdwn`Found no ${lowerFirst(args.heading)}. Try fewer words or filters, or \`/tender help\`.`,
        ),
      ],
    };
  }
  if (tenders.length === 0) {
    // A page past the end: the results shrank since the page before was drawn, or the value was altered.
    const sentence = mrkdwn`That page is past the last of the ${text(total.toLocaleString('en-GB'))} ${lowerFirst(args.heading)} found now. Run the search again to see them from the start.`;
    return { text: sentence, blocks: [section(sentence)] };
  }
  // The service's order (CONTRACT: newest published first), said so a tender closing tomorrow
  // low on the page is not taken for the search ranking it low.
  const shown = mrkdwn`${pageRange(offset, tenders.length, total)}, newest published first`;
  const heading = args.heading;
  const blocks: Block[] = [section(mrkdwn`*${heading}* · ${shown}`)];
  // Every card of the page carries the same page in its buttons: one state for all of them.
  const here = args.state(offset);
  for (const tender of tenders) {
    blocks.push({ type: 'divider' });
    blocks.push(
      ...tenderCard(tender, {
        bookmarked: args.bookmarked.has(tender.id),
        shared: false,
        now: args.now,
        context: here,
        canShare: args.canShare !== false,
        readOnly: args.readOnly === true,
      }),
    );
  }
  const paging: Button[] = [];
  if (offset > 0)
    paging.push(
      button(
        'Previous',
        SearchIds.previous,
        encode('searchPage', args.state(Math.max(0, offset - PAGE_SIZE))),
      ),
    );
  if (offset + tenders.length < total)
    paging.push(button('Next', SearchIds.next, encode('searchPage', args.state(offset + PAGE_SIZE))));
  if (paging.length > 0) blocks.push({ type: 'divider' }, { type: 'actions', elements: paging });
  if (args.keySource && !args.readOnly) blocks.push(contextLine(bookmarkButtonsLine(args.keySource)));
  return { text: mrkdwn`${heading}: ${shown}`, blocks };
}

/** One tender for everyone in the channel, after "Share in channel". */
export function sharedTenderMessage(
  tender: Tender,
  sharedBy: string,
  bookmarked: boolean,
  now: Date,
): Message {
  return {
    text: mrkdwn`Tender shared by ${mention(sharedBy)}: ${text(tender.title)}`,
    blocks: [
      contextLine(mrkdwn`Shared by ${mention(sharedBy)}`),
      ...tenderCard(tender, { bookmarked, shared: true, now, context: 'shared', sharedBy }),
    ],
  };
}

/** The workspace's bookmarks, saying whose list it is. */
export function bookmarksMessage(
  bookmarks: Bookmark[],
  total: number,
  keySource: KeySource,
  now: Date,
  page: ListPage = FIRST_PAGE(BOOKMARKS_PAGE_SIZE),
  /** A guest's list: cards without the buttons a guest is refused. */
  readOnly = false,
): Message {
  const whose = bookmarksOwnerLine(keySource);
  if (total === 0 || bookmarks.length === 0)
    return {
      text:
        keySource === 'personal' ? mrkdwn`You have no bookmarks of your own yet.` : mrkdwn`No bookmarks yet.`,
      blocks: [
        section(
          mrkdwn`*${keySource === 'personal' ? mrkdwn`You have no bookmarks of your own yet.` : mrkdwn`No bookmarks yet.`}* Bookmark a tender from \`/tender search\`.`,
        ),
        contextLine(whose),
      ],
    };
  const shown = bookmarks.slice(0, page.pageSize);
  const blocks: Block[] = [
    section(
      mrkdwn`*${keySource === 'personal' ? mrkdwn`Your own bookmarks` : mrkdwn`Bookmarks`}* · ${pageRange(page.offset, shown.length, total)}`,
    ),
    contextLine(whose),
  ];
  for (const bookmark of shown) {
    blocks.push(
      { type: 'divider' },
      ...tenderCard(bookmark.tender, {
        bookmarked: true,
        shared: false,
        now,
        context: 'bookmarks',
        readOnly,
      }),
    );
  }
  const paging = listPaging('bookmarks', page.typed, page.offset, shown.length, total, page.pageSize);
  return { text: mrkdwn`Bookmarks: ${total}`, blocks: [...blocks.slice(0, 50 - paging.length), ...paging] };
}

/** Bookmarks a page shows: each is a card of four blocks and a divider, so 9 fit under Slack's 50. */
export const BOOKMARKS_PAGE_SIZE = 9;

/** `All tenders` → `tenders`, `Open tenders …` → `open tenders …`: a heading inside a sentence. */
function lowerFirst(heading: Mrkdwn): Mrkdwn {
  if (heading === 'All tenders') return mrkdwn`tenders`;
  return lowerFirstLetter(heading);
}
