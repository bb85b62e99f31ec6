import { z } from 'zod';
import { TENDER_STATUSES } from '../../contract/schemas.ts';
import type { TenderSearchFilters } from '../commands/parse-command.ts';
import { StaleButtonError } from '../features/feature-context.ts';
import type { SearchState } from '../features/tenders.ts';

/**
 * Every button value the app reads, as a schema: a value comes back from Slack as text anyone
 * holding a signed request could have written, so it is parsed and checked, never trusted.
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
}) satisfies z.ZodType<TenderSearchFilters>;

export const SearchStateValue = z.strictObject({
  f: SearchFiltersValue,
  o: z.number().int().min(0).max(10_000),
}) satisfies z.ZodType<SearchState>;

/** Where a card sits, so a click can redraw it: a named place, or the search page it is on. */
const CARD_PLACES = ['shared', 'bookmarks', 'detail'] as const;
export type CardPlace = (typeof CARD_PLACES)[number] | SearchState;

export const RecordId = z.string().trim().min(1).max(300);

const BookmarkValue = z.strictObject({ t: RecordId, c: z.string().min(1).max(2000) });

/** Parses a value with its schema; a broken, forged or outdated value is a StaleButtonError. */
export function parseValue<S extends z.ZodType>(
  schema: S,
  value: string | undefined,
  json: boolean,
): z.infer<S> {
  let raw: unknown = value;
  if (json) {
    try {
      raw = JSON.parse(value ?? '');
    } catch {
      throw new StaleButtonError('not JSON');
    }
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new StaleButtonError(parsed.error.issues[0]?.message ?? 'wrong shape');
  return parsed.data;
}

export const searchStateOf = (value: string | undefined): SearchState =>
  parseValue(SearchStateValue, value, true);

export const recordIdOf = (value: string | undefined): string => parseValue(RecordId, value, false);

/** A bookmark button: which tender, and the place of the card it is on. */
export function bookmarkValueOf(value: string | undefined): { tenderId: string; place: CardPlace } {
  const { t, c } = parseValue(BookmarkValue, value, true);
  const place = (CARD_PLACES as readonly string[]).includes(c)
    ? (c as (typeof CARD_PLACES)[number])
    : searchStateOf(c);
  return { tenderId: t, place };
}
