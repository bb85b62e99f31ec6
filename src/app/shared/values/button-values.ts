import { z } from 'zod';
import { TENDER_STATUSES, VALUE_CURRENCIES } from '../../../contract/schemas.ts';
import type { TenderSearchFilters } from '../commands/parse-command.ts';

/**
 * The schema of every value the app writes into Slack and reads back (button values, option
 * values, private_metadata). A value comes back as text anyone holding a signed request could
 * have written, so it is parsed and checked by src/app/shared/values/codec.ts, never trusted.
 */
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const amount = z.number().finite().nonnegative();

export const SearchFiltersValue = z.strictObject({
  q: z.string().max(200).optional(),
  region: z.string().max(200).optional(),
  status: z.enum(TENDER_STATUSES).optional(),
  valueMin: amount.optional(),
  valueMax: amount.optional(),
  deadlineFrom: day.optional(),
  deadlineTo: day.optional(),
  cpv: z
    .string()
    .regex(/^\d{1,8}$/)
    .optional(),
  buyerId: z.string().min(1).max(200).optional(),
  /** Added with money in its own currency; values written before it have none (GBP). */
  currency: z.enum(VALUE_CURRENCIES).optional(),
}) satisfies z.ZodType<TenderSearchFilters>;

/** A search as carried in buttons: its filters and the page's offset. */
export interface SearchState {
  f: TenderSearchFilters;
  o: number;
  /** The chosen buyer's name, when the search is by buyer (only to say so). */
  b?: string;
  /** The saved search's name, when the page is a saved search's run (only to say so). */
  n?: string;
}

export const SearchStateValue = z.strictObject({
  f: SearchFiltersValue,
  o: z.number().int().min(0).max(10_000),
  /** The chosen buyer's name, to say whose tenders these are (`f.buyerId` is what is searched). */
  b: z.string().min(1).max(200).optional(),
  /** The saved search's name, when the page is a saved search's run (to say which). */
  n: z.string().min(1).max(200).optional(),
}) satisfies z.ZodType<SearchState>;

/** Where a card sits, so a click can redraw it: a named place, or the search page it is on. */
export const CARD_PLACES = ['shared', 'bookmarks', 'detail'] as const;
export type CardPlace = (typeof CARD_PLACES)[number] | SearchState;

export const RecordId = z.string().trim().min(1).max(300);

/** A Slack user id (`U…`, `W…`): the only form ever written into a value. */
export const SlackUserId = z.string().regex(/^[UW][A-Z0-9]{1,30}$/);

/** `t` the tender, `c` where its card sits, `s` who shared it (a shared card only). */
export const BookmarkValue = z.strictObject({
  t: RecordId,
  c: z.union([z.enum(CARD_PLACES), SearchStateValue]),
  s: SlackUserId.optional(),
});

export const ConnectMetadataValue = z.object({ channelId: z.string().min(1).max(50).nullable() });

export const COMMENT_ENTITY_TYPES = ['tender', 'buyer', 'supplier', 'framework'] as const;
export type CommentEntityType = (typeof COMMENT_ENTITY_TYPES)[number];

/** "Comment": on what (entity type and id). */
export const CommentTargetValue = z.strictObject({ e: z.enum(COMMENT_ENTITY_TYPES), id: RecordId });

/** "Start a bid": the tender. */
export const StartBidValue = z.strictObject({ t: RecordId });

/** The lists that page with Next and Previous, by the command that shows them. */
export const PAGED_LISTS = ['pipelines', 'buyers', 'suppliers', 'frameworks', 'bookmarks', 'saved'] as const;
export type PagedList = (typeof PAGED_LISTS)[number];

/** A page of a list: which list, what was typed after its command, and the first item shown. */
export const ListPageValue = z.strictObject({
  l: z.enum(PAGED_LISTS),
  t: z.string().max(300),
  o: z.number().int().min(0).max(10_000),
});

/** What a Home tab row's Post in channel or Subscribe is about: a bid, a tender or a saved search. */
export const HOME_CHANNEL_TARGETS = ['bid', 'tender', 'saved'] as const;

/** The "Which channel?" window's private_metadata: what to post there, and its name to say so. */
export const HomeChannelValue = z.object({
  k: z.enum(HOME_CHANNEL_TARGETS),
  id: RecordId,
  /** Subscribe (a feed in the channel) rather than post once. */
  s: z.boolean().optional(),
  n: z.string().max(200).optional(),
});

/** The search form's private_metadata: the channel it was opened from (its answer leaves a pointer there). */
export const SearchBuilderMetadataValue = z.object({ c: z.string().regex(/^[CG][A-Z0-9]{1,30}$/) });
