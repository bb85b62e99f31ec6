import type { z } from 'zod';
import type {
  Buyer,
  BuyerDetail,
  Framework,
  FrameworkDetail,
  SavedSearch,
  Supplier,
  SupplierDetail,
  Tender,
} from '../../../../contract/schemas.ts';
import { DirectoryIds, SavedSearchIds, TenderIds } from '../../../shared/ids.ts';
import type { CommentEntityType } from '../../../shared/values/button-values.ts';
import { counted, formatDayOf, formatMoney } from '../../../shared/views/formats.ts';
import {
  FIRST_PAGE,
  type ListPage,
  listHeading,
  listPaging,
  pageRange,
} from '../../../shared/views/list-paging.ts';
import type { Message } from '../../../shared/views/messages.ts';
import { followLine } from '../../../shared/views/messages.ts';
import {
  clip,
  clipMrkdwn,
  joinMrkdwn,
  type Mrkdwn,
  mrkdwn,
  safeText,
  text,
} from '../../../shared/views/mrkdwn.ts';
import {
  type Block,
  button,
  commentButton,
  contextLine,
  deadlineMrkdwn,
  section,
} from '../../../shared/views/tender-card.ts';

type Organisation = Buyer | Supplier;

/** A list of buyers or suppliers, each with a Details button. */
export function organisationsMessage(
  kind: 'buyers' | 'suppliers',
  items: Organisation[],
  total: number,
  description: Mrkdwn,
  page: ListPage = FIRST_PAGE(10),
): Message {
  const label = kind === 'buyers' ? 'Buyers' : 'Suppliers';
  if (total === 0 || items.length === 0)
    return {
      text: mrkdwn`No ${text(kind)} match ${description}.`,
      blocks: [
        section(
          // "cleaning" finds no supplier: they are found by what they are called, not what they do.
          mrkdwn`No ${text(kind)} match ${description}. ${text(kind === 'buyers' ? 'Buyers' : 'Suppliers')} are found by their names (part of one will do), not by what they buy or sell: try fewer or other words, or \`/tender help\`.`,
        ),
      ],
    };
  const shown = items.slice(0, page.pageSize);
  const heading = listHeading(label, description);
  const blocks: Block[] = [section(mrkdwn`*${heading}* · ${pageRange(page.offset, shown.length, total)}`)];
  for (const item of shown) {
    const facts = [item.region, item.locality, counted(item.noticeCount, 'notice')].filter(Boolean);
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: clipMrkdwn(mrkdwn`*${text(item.name)}*\n${text(facts.join(' · '))}`, 3000),
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
    'type' in detail && detail.type ? BUYER_TYPE_LABELS[detail.type] : null,
    detail.website,
  ].filter(Boolean);
  const listed = detail.notices.slice(0, 10);
  const capped = detail.noticeCount > detail.tenderPreviewLimit;
  const notices = text(
    capped
      ? `${detail.tenderPreviewLimit} of ${detail.noticeCount.toLocaleString('en-GB')} shown by the service (its latest); the first ${listed.length} here`
      : `${counted(detail.noticeCount, 'notice')}${listed.length < detail.noticeCount ? `; the latest ${listed.length} here` : ''}`,
  );
  const blocks: Block[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(detail.name, 150) } },
    section(
      mrkdwn`${text(kind === 'buyer' ? 'Buyer' : 'Supplier')} · ${text(facts.join(' · ') || 'no address given')}`,
    ),
    contextLine(notices),
  ];
  blocks.push(...commentActions(kind, detail.id));
  if (listed.length > 0) {
    blocks.push(
      { type: 'divider' },
      section(kind === 'buyer' ? mrkdwn`*Latest notices*` : mrkdwn`*Latest contracts and notices*`),
    );
    for (const notice of listed) blocks.push(noticeLine(notice, now));
  }
  return { text: mrkdwn`${text(detail.name)}: ${notices}`, blocks };
}

export function frameworksMessage(
  items: Framework[],
  total: number,
  description: Mrkdwn,
  page: ListPage = FIRST_PAGE(10),
): Message {
  if (total === 0 || items.length === 0)
    return {
      text: mrkdwn`No frameworks match ${description}.`,
      blocks: [
        section(mrkdwn`No frameworks match ${description}. Try fewer or other words, or \`/tender help\`.`),
      ],
    };
  const shown = items.slice(0, page.pageSize);
  const heading = listHeading('Frameworks', description);
  const blocks: Block[] = [section(mrkdwn`*${heading}* · ${pageRange(page.offset, shown.length, total)}`)];
  for (const item of shown) {
    const facts = [
      `${FRAMEWORK_STATUS_LABELS[item.status]} ${item.type === 'dynamic_purchasing_system' ? 'dynamic purchasing system' : 'framework'}`,
      item.endDate ? `ends ${dayOf(item.endDate)}` : null,
    ];
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: clipMrkdwn(mrkdwn`*${text(item.title)}*\n${text(facts.filter(Boolean).join(' · '))}`, 3000),
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
      ? `${counted(shown, noun)} known`
      : total > shown
        ? `${shown.toLocaleString('en-GB')} of ${counted(total, noun)} shown`
        : counted(total, noun);
  const blocks: Block[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(framework.title, 150) } },
    section(
      joinMrkdwn(
        [
          mrkdwn`*Status* ${text(FRAMEWORK_STATUS_LABELS[framework.status] ?? framework.status)} · *Type* ${text(framework.type === 'dynamic_purchasing_system' ? 'Dynamic purchasing system' : 'Framework')}`,
          mrkdwn`*Owner* ${text(framework.owner ? framework.owner.name : 'not stated')} · *Runs* ${text(runs(framework.startDate, framework.endDate))}`,
          mrkdwn`*Value* ${text(formatMoney(framework.value))} · *Lots* ${framework.lots.length}`,
        ],
        mrkdwn`\n`,
      ),
    ),
    contextLine(
      text(
        [
          count(framework.suppliers.length, framework.supplierCount, 'supplier'),
          count(framework.callOffs.length, framework.callOffCount, 'call-off'),
          counted(framework.buyers.length, 'buyer'),
        ].join(' · '),
      ),
    ),
  ];
  blocks.push(...commentActions('framework', framework.id));
  if (framework.description) blocks.push(section(safeText(framework.description, 1500)));
  if (framework.suppliers.length > 0) {
    blocks.push(
      section(
        clipMrkdwn(
          mrkdwn`*Suppliers* ${joinMrkdwn(
            framework.suppliers.slice(0, 30).map((s) => text(s.name)),
            mrkdwn`, `,
          )}`,
          3000,
        ),
      ),
    );
  }
  const callOffs = framework.callOffs.slice(0, 5);
  if (callOffs.length > 0) {
    blocks.push({ type: 'divider' }, section(mrkdwn`*Latest call-offs*`));
    for (const callOff of callOffs) blocks.push(noticeLine(callOff, now));
  }
  return { text: text(framework.title), blocks };
}

/** A card's own actions row with "Comment" (buyer, supplier and framework cards and panels). */
function commentActions(entity: CommentEntityType, id: string): Block[] {
  const comment = commentButton(entity, id);
  return comment ? [{ type: 'actions', elements: [comment] }] : [];
}

export function savedSearchesMessage(
  items: { saved: SavedSearch; description: Mrkdwn }[],
  total: number,
  page: ListPage = FIRST_PAGE(SAVED_PAGE_SIZE),
): Message {
  if (total === 0 || items.length === 0)
    return {
      text: mrkdwn`No saved searches.`,
      blocks: [section(mrkdwn`Your organisation has no saved searches yet.`)],
    };
  const shown = items.slice(0, page.pageSize);
  const blocks: Block[] = [
    section(mrkdwn`*Saved searches* · ${pageRange(page.offset, shown.length, total)}`),
  ];
  for (const { saved, description } of shown) {
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        // What the search finds, in the words a heading of its results uses (never its stored fields).
        // The follow line before the description, so a long description's cut never takes it.
        text: clipMrkdwn(mrkdwn`*${text(saved.name)}*\n${followLine(saved.id)}\n${description}`, 3000),
      },
      accessory: button('Run', SavedSearchIds.run, saved.id, 'primary'),
    });
  }
  blocks.push(...listPaging('saved', page.typed, page.offset, shown.length, total, page.pageSize));
  return { text: mrkdwn`Saved searches: ${total}`, blocks };
}

/** Saved searches a page shows (one block each). */
export const SAVED_PAGE_SIZE = 20;

/** One notice in a panel, with a button that opens it in full (as `/tender show <id>` does). */
function noticeLine(notice: Tender, now: Date): Block {
  const line = section(
    mrkdwn`*${safeText(notice.title, 400)}*\n${text(formatMoney(notice.value))} · ${deadlineMrkdwn(notice.deadline, now)}`,
  );
  return line.type === 'section' ? { ...line, accessory: button('Open', TenderIds.show, notice.id) } : line;
}

/** A buyer's kind, as people name it. */
const BUYER_TYPE_LABELS: Record<string, string> = {
  central: 'Central government',
  local: 'Local authority',
  health: 'Health body',
  education: 'Education',
  other: 'Other public body',
};

const FRAMEWORK_STATUS_LABELS: Record<string, string> = {
  upcoming: 'Upcoming',
  live: 'Live',
  expired: 'Expired',
};

/** `2028-07-12` → `12 Jul 2028`, as the cards write dates. */
function dayOf(date: string): string {
  return formatDayOf(new Date(/^\d{4}-\d{2}-\d{2}$/.test(date) ? `${date}T00:00:00Z` : date));
}

/** When a framework runs, in days; a missing end is said, not shown as `?`. */
function runs(start: string | null, end: string | null): string {
  if (start && end) return `${dayOf(start)} to ${dayOf(end)}`;
  if (start) return `from ${dayOf(start)}, no end date given`;
  if (end) return `until ${dayOf(end)}`;
  return 'dates not given';
}
