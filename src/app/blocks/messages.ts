import type { Button } from '@slack/types';
import type { z } from 'zod';
import type {
  Bookmark,
  Buyer,
  BuyerDetail,
  Framework,
  FrameworkDetail,
  SavedSearch,
  Supplier,
  SupplierDetail,
  Tender,
} from '../../contract/schemas.ts';
import type { SearchState } from '../features/tenders.ts';
import { ConnectIds, DirectoryIds, ErrorIds, ReachIds, SavedSearchIds, SearchIds } from '../ids.ts';
import type { CommentEntityType } from '../listeners/button-values.ts';
import { encode } from '../state/codec.ts';
import { formatMoney } from './formats.ts';
import { listPaging, pageRange } from './list-paging.ts';
import { clip, escapeMrkdwn, safeText } from './mrkdwn.ts';
import {
  type Block,
  button,
  commentButton,
  contextLine,
  formatDeadline,
  section,
  tenderCard,
} from './tender-card.ts';

export const PAGE_SIZE = 5;

export interface Message {
  text: string;
  blocks: Block[];
}

/** A page of search results, shown to the caller alone, with Next and Previous. */
export function searchResultsMessage(args: {
  description: string;
  tenders: Tender[];
  total: number;
  offset: number;
  bookmarked: ReadonlySet<string>;
  /** The search, compact, for the buttons; `offset` is added per button. */
  state: (offset: number) => SearchState;
  now: Date;
}): Message {
  const { tenders, total, offset } = args;
  if (total === 0) {
    return {
      text: `No tenders match ${args.description}.`,
      blocks: [
        section(`No tenders match ${args.description}. Try fewer words or filters, or \`/tender help\`.`),
      ],
    };
  }
  const shown = `${offset + 1}–${offset + tenders.length} of ${total.toLocaleString('en-GB')}`;
  const heading = listHeading('Tenders', args.description);
  const blocks: Block[] = [section(`*${heading}* · ${shown}`)];
  for (const tender of tenders) {
    blocks.push({ type: 'divider' });
    blocks.push(
      ...tenderCard(tender, {
        bookmarked: args.bookmarked.has(tender.id),
        shared: false,
        now: args.now,
        context: args.state(offset),
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
  return { text: `${heading}: ${shown}`, blocks };
}

/** One tender for everyone in the channel, after "Share in channel". */
export function sharedTenderMessage(
  tender: Tender,
  sharedBy: string,
  bookmarked: boolean,
  now: Date,
): Message {
  return {
    text: `Tender shared by <@${sharedBy}>: ${escapeMrkdwn(tender.title)}`,
    blocks: [
      contextLine(`Shared by <@${sharedBy}>`),
      ...tenderCard(tender, { bookmarked, shared: true, now, context: 'shared', sharedBy }),
    ],
  };
}

/** Which page of a list is shown, and what was typed after its command (for Next and Previous). */
export interface ListPage {
  offset: number;
  typed: string;
  pageSize: number;
}

const FIRST_PAGE = (pageSize: number): ListPage => ({ offset: 0, typed: '', pageSize });

/** The workspace's bookmarks, saying whose list it is. */
export function bookmarksMessage(
  bookmarks: Bookmark[],
  total: number,
  keySource: 'workspace' | 'default',
  now: Date,
  page: ListPage = FIRST_PAGE(BOOKMARKS_PAGE_SIZE),
): Message {
  const whose =
    keySource === 'workspace'
      ? 'Bookmarks belong to whoever made the key this workspace connected, so everyone here shares this one list.'
      : 'Bookmarks belong to whoever made the key Tenderbot was set up with, so everyone here shares this one list.';
  if (total === 0 || bookmarks.length === 0)
    return {
      text: 'No bookmarks yet.',
      blocks: [section('*No bookmarks yet.* Bookmark a tender from `/tender search`.'), contextLine(whose)],
    };
  const shown = bookmarks.slice(0, page.pageSize);
  const blocks: Block[] = [
    section(`*Bookmarks* · ${pageRange(page.offset, shown.length, total)}`),
    contextLine(whose),
  ];
  for (const bookmark of shown) {
    blocks.push(
      { type: 'divider' },
      ...tenderCard(bookmark.tender, { bookmarked: true, shared: false, now, context: 'bookmarks' }),
    );
  }
  const paging = listPaging('bookmarks', page.typed, page.offset, shown.length, total, page.pageSize);
  return { text: `Bookmarks: ${total}`, blocks: [...blocks.slice(0, 50 - paging.length), ...paging] };
}

/** Bookmarks a page shows: each is a card of four blocks and a divider, so 9 fit under Slack's 50. */
export const BOOKMARKS_PAGE_SIZE = 9;

/** `Buyers matching “leeds”`, or `All buyers` when nothing narrows the list. */
function listHeading(label: string, description: string): string {
  return description === 'everything' ? `All ${label.toLowerCase()}` : `${label} matching ${description}`;
}

type Organisation = Buyer | Supplier;

/** A list of buyers or suppliers, each with a Details button. */
export function organisationsMessage(
  kind: 'buyers' | 'suppliers',
  items: Organisation[],
  total: number,
  description: string,
  page: ListPage = FIRST_PAGE(10),
): Message {
  const label = kind === 'buyers' ? 'Buyers' : 'Suppliers';
  if (total === 0 || items.length === 0)
    return {
      text: `No ${kind} match ${description}.`,
      blocks: [section(`No ${kind} match ${description}.`)],
    };
  const shown = items.slice(0, page.pageSize);
  const heading = listHeading(label, description);
  const blocks: Block[] = [section(`*${heading}* · ${pageRange(page.offset, shown.length, total)}`)];
  for (const item of shown) {
    const facts = [
      item.region,
      item.locality,
      `${item.noticeCount} notice${item.noticeCount === 1 ? '' : 's'}`,
    ].filter(Boolean);
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: clip(`*${escapeMrkdwn(item.name)}*\n${escapeMrkdwn(facts.join(' · '))}`, 3000),
      },
      accessory: button(
        'Details',
        kind === 'buyers' ? DirectoryIds.showBuyer : DirectoryIds.showSupplier,
        item.id,
      ),
    });
    blocks.push(...commentActions(kind === 'buyers' ? 'buyer' : 'supplier', item.id));
  }
  blocks.push(...listPaging(kind, page.typed, page.offset, shown.length, total, page.pageSize));
  return { text: heading, blocks };
}

/** A buyer or supplier with its latest notices; says so when the service capped them at 100. */
export function organisationDetailMessage(
  kind: 'buyer' | 'supplier',
  detail: z.infer<typeof BuyerDetail>['data'] | z.infer<typeof SupplierDetail>['data'],
  now: Date,
): Message {
  const facts = [
    detail.region,
    detail.locality,
    detail.postalCode,
    'type' in detail && detail.type ? `type: ${detail.type}` : null,
    detail.website,
  ].filter(Boolean);
  const listed = detail.notices.slice(0, 10);
  const capped = detail.noticeCount > detail.tenderPreviewLimit;
  const counted = capped
    ? `${detail.tenderPreviewLimit} of ${detail.noticeCount.toLocaleString('en-GB')} shown by the service (its latest); the first ${listed.length} here`
    : `${detail.noticeCount} notice${detail.noticeCount === 1 ? '' : 's'}${listed.length < detail.noticeCount ? `; the latest ${listed.length} here` : ''}`;
  const blocks: Block[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(detail.name, 150) } },
    section(
      `${kind === 'buyer' ? 'Buyer' : 'Supplier'} · ${escapeMrkdwn(facts.join(' · ') || 'no address given')}`,
    ),
    contextLine(counted),
  ];
  blocks.push(...commentActions(kind, detail.id));
  for (const notice of listed) blocks.push(noticeLine(notice, now));
  return { text: `${detail.name}: ${counted}`, blocks };
}

export function frameworksMessage(
  items: Framework[],
  total: number,
  description: string,
  page: ListPage = FIRST_PAGE(10),
): Message {
  if (total === 0 || items.length === 0)
    return {
      text: `No frameworks match ${description}.`,
      blocks: [section(`No frameworks match ${description}.`)],
    };
  const shown = items.slice(0, page.pageSize);
  const heading = listHeading('Frameworks', description);
  const blocks: Block[] = [section(`*${heading}* · ${pageRange(page.offset, shown.length, total)}`)];
  for (const item of shown) {
    const facts = [
      item.status,
      item.type === 'dynamic_purchasing_system' ? 'DPS' : 'framework',
      item.endDate ? `ends ${item.endDate}` : null,
    ];
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: clip(`*${escapeMrkdwn(item.title)}*\n${facts.filter(Boolean).join(' · ')}`, 3000),
      },
      accessory: button('Details', DirectoryIds.showFramework, item.id),
    });
    blocks.push(...commentActions('framework', item.id));
  }
  blocks.push(...listPaging('frameworks', page.typed, page.offset, shown.length, total, page.pageSize));
  return { text: heading, blocks };
}

export function frameworkDetailMessage(
  framework: z.infer<typeof FrameworkDetail>['data'],
  now: Date,
): Message {
  const count = (shown: number, total: number | null, noun: string) =>
    total === null
      ? `${shown} ${noun} known`
      : total > shown
        ? `${shown} of ${total.toLocaleString('en-GB')} ${noun} shown`
        : `${total} ${noun}`;
  const blocks: Block[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(framework.title, 150) } },
    section(
      [
        `*Status* ${framework.status} · *Type* ${framework.type === 'dynamic_purchasing_system' ? 'dynamic purchasing system' : 'framework'}`,
        `*Owner* ${framework.owner ? escapeMrkdwn(framework.owner.name) : 'not stated'} · *Runs* ${framework.startDate ?? '?'} to ${framework.endDate ?? '?'}`,
        `*Value* ${formatMoney(framework.value)} · *Lots* ${framework.lots.length}`,
      ].join('\n'),
    ),
    contextLine(
      [
        count(framework.suppliers.length, framework.supplierCount, 'suppliers'),
        count(framework.callOffs.length, framework.callOffCount, 'call-offs'),
        `${framework.buyers.length} buyers`,
      ].join(' · '),
    ),
  ];
  blocks.push(...commentActions('framework', framework.id));
  if (framework.description) blocks.push(section(safeText(framework.description, 1500)));
  if (framework.suppliers.length > 0) {
    blocks.push(
      section(
        clip(
          `*Suppliers* ${framework.suppliers
            .slice(0, 30)
            .map((s) => escapeMrkdwn(s.name))
            .join(', ')}`,
          3000,
        ),
      ),
    );
  }
  for (const callOff of framework.callOffs.slice(0, 5)) blocks.push(noticeLine(callOff, now));
  return { text: framework.title, blocks };
}

/** A card's own actions row with "Comment" (buyer, supplier and framework cards and panels). */
function commentActions(entity: CommentEntityType, id: string): Block[] {
  const comment = commentButton(entity, id);
  return comment ? [{ type: 'actions', elements: [comment] }] : [];
}

export function savedSearchesMessage(
  items: { saved: SavedSearch; description: string }[],
  total: number,
  page: ListPage = FIRST_PAGE(SAVED_PAGE_SIZE),
): Message {
  if (total === 0 || items.length === 0)
    return { text: 'No saved searches.', blocks: [section('Your organisation has no saved searches yet.')] };
  const shown = items.slice(0, page.pageSize);
  const blocks: Block[] = [section(`*Saved searches* · ${pageRange(page.offset, shown.length, total)}`)];
  for (const { saved, description } of shown) {
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        // What the search finds, in the words a heading of its results uses (never its stored fields).
        text: clip(`*${escapeMrkdwn(saved.name)}*\nTenders matching ${description}`, 3000),
      },
      accessory: button('Run', SavedSearchIds.run, saved.id, 'primary'),
    });
  }
  blocks.push(...listPaging('saved', page.typed, page.offset, shown.length, total, page.pageSize));
  return { text: `Saved searches: ${total}`, blocks };
}

/** Saved searches a page shows (one block each). */
export const SAVED_PAGE_SIZE = 20;

// mrkdwn: `<…>` is Slack's control syntax, so the placeholders are written as entities.
export const USAGE_LINES = [
  '`/tender search &lt;words&gt; [filters]` · filters: `region:"North West"` `status:open` `value&gt;100k` `closes&lt;14d` `cpv:72` `buyer:&lt;name or id&gt;`',
  '`/tender &lt;id&gt;` or `/tender show &lt;id&gt;` · one tender in full',
  '`/tender bookmarks` · the bookmarked tenders',
  '`/tender buyers &lt;words&gt; [region:…]` · `/tender suppliers &lt;words&gt;` · `/tender frameworks &lt;words&gt; [status:live] [type:dps]`',
  '`/tender saved` · your organisation’s saved searches, each with Run',
  '`/tender comments &lt;id&gt;` · the comments on a tender, buyer, supplier or framework',
  '`/tender pipelines [words] [status:…] [archived|all]` · your bids · `/tender pipeline &lt;id&gt;` · a bid’s card for the channel',
  '`/tender pipeline status &lt;id&gt; &lt;status&gt;` · `/tender pipeline stage &lt;id&gt; &lt;stage&gt; &lt;status&gt;` · `/tender pipeline archive|restore &lt;id&gt;`',
  '`/tender subscribe pipeline &lt;id&gt; [daily|weekly] [HH:MM]` · a bid’s progress in this channel (weekly on Mondays)',
  '`/tender subscribe search &lt;saved search id, or words and filters&gt; [hourly|daily]` · new tenders in this channel, each once',
  '`/tender subscribe deadlines [days]` · bookmarked tenders and bids coming due (default 7 days) · times are in your own time zone',
  '`/tender subscriptions` · this channel’s subscriptions, with Send now and Unsubscribe · `/tender unsubscribe &lt;id&gt;`',
  '`/tender connect` · `/tender disconnect` · `/tender status` · the workspace’s API key (admins)',
];

export function helpMessage(unknownWord?: string): Message {
  const intro = unknownWord
    ? `I don’t know \`${clip(escapeMrkdwn(unknownWord), 100)}\`. Here is what \`/tender\` can do:`
    : '*Tenderbot* finds public tenders and keeps your bids moving. Commands:';
  return {
    text: intro,
    blocks: [
      section(intro),
      section(USAGE_LINES.join('\n')),
      { type: 'actions', elements: [searchBuilderButton()] },
      contextLine(
        'Paste a notice link from Contracts Finder, Find a Tender, Public Contracts Scotland, Sell2Wales or Buyandsell to see its card; message Tenderbot directly to search.',
      ),
    ],
  };
}

/** "Search tenders": opens the search builder (on the help card and the Home tab). */
export function searchBuilderButton(): Button {
  return button('Search tenders', ReachIds.openSearchBuilder, 'open', 'primary');
}

/** A failure as a sentence saying what to do, with the reference that is also in the log. */
export function failureMessage(sentence: string, referenceId: string, retryCommand: string | null): Message {
  const blocks: Block[] = [section(`:warning: ${sentence}`), contextLine(`Reference: \`${referenceId}\``)];
  if (retryCommand !== null)
    blocks.push({ type: 'actions', elements: [button('Try again', ErrorIds.tryAgain, retryCommand)] });
  return { text: `${sentence} (reference ${referenceId})`, blocks };
}

// The Home tab's view lives in src/app/blocks/home-view.ts (with the bookmarks, bids and saved searches).

/**
 * The modal of `/tender connect`: the key, and the service URL if it is not the default. `problem`
 * (a sentence from a check that finished after the modal was acknowledged) shows above the fields.
 */
export function connectModal(privateMetadata: string, defaultServiceUrl: string, problem?: string) {
  const modal = {
    type: 'modal',
    callback_id: ConnectIds.callback,
    private_metadata: clip(privateMetadata, 3000),
    title: { type: 'plain_text', text: 'Connect Tenderbot' },
    submit: { type: 'plain_text', text: 'Connect' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      section(
        'Paste an API key of the Procurement Intelligence Service, made by an owner or admin of your organisation. Every command in this workspace will use it. The key is checked now, stored encrypted, and never shown again.',
      ),
      {
        type: 'input',
        block_id: ConnectIds.keyBlock,
        label: { type: 'plain_text', text: 'API key' },
        element: {
          type: 'plain_text_input',
          action_id: ConnectIds.keyInput,
          placeholder: { type: 'plain_text', text: 'pis_…' },
          max_length: 500,
        },
      },
      {
        type: 'input',
        block_id: ConnectIds.urlBlock,
        optional: true,
        label: { type: 'plain_text', text: 'Service URL (if not the default)' },
        element: {
          type: 'plain_text_input',
          action_id: ConnectIds.urlInput,
          placeholder: { type: 'plain_text', text: clip(defaultServiceUrl, 150) },
          max_length: 500,
        },
      },
    ] as Block[],
  };
  if (problem) modal.blocks.splice(1, 0, section(`:warning: ${problem}`));
  return modal;
}

/** What the connect modal shows while a slow check of the key goes on (it must answer within 3 s). */
export function connectCheckingView() {
  return {
    type: 'modal',
    callback_id: ConnectIds.callback,
    title: { type: 'plain_text', text: 'Connect Tenderbot' },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [section('Checking the key with the service… This can take a few seconds.')],
  };
}

/** The connect modal once the key is saved. */
export function connectDoneView() {
  return {
    type: 'modal',
    callback_id: ConnectIds.callback,
    title: { type: 'plain_text', text: 'Connect Tenderbot' },
    close: { type: 'plain_text', text: 'Done' },
    blocks: [
      section(
        'Connected. Every `/tender` command in this workspace now uses the new key. `/tender status` shows what it can do.',
      ),
    ],
  };
}

function noticeLine(notice: Tender, now: Date): Block {
  return section(
    `*${safeText(notice.title, 400)}*\n${formatMoney(notice.value)} · ${formatDeadline(notice.deadline, now)} · \`${safeText(notice.id, 200)}\``,
  );
}
