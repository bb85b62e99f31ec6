import { type SavedSearch, VALUE_CURRENCIES } from '../../../contract/schemas.ts';
import type { TenderSearchFilters } from './parse-command.ts';

/** The tender-search parameters a saved search holds, by their API names; anything else is left out. */
export function filtersOf(saved: SavedSearch): TenderSearchFilters {
  const query = saved.query;
  const text = (name: string) =>
    typeof query[name] === 'string' && query[name] !== '' ? (query[name] as string) : undefined;
  const number = (name: string) => {
    const value = Number(query[name]);
    return query[name] !== undefined && query[name] !== null && Number.isFinite(value) ? value : undefined;
  };
  const filters: TenderSearchFilters = {
    q: text('q'),
    region: text('region'),
    status: text('status') as TenderSearchFilters['status'],
    cpv: text('cpv'),
    buyerId: text('buyerId'),
    valueMin: number('valueMin'),
    valueMax: number('valueMax'),
    deadlineFrom: text('deadlineFrom'),
    deadlineTo: text('deadlineTo'),
  };
  // The currency of the value bounds, in any letter case. One the service cannot compare in is kept
  // all the same: the search is then refused with the service's sentence naming the currencies it
  // takes, rather than run in pounds (a saved `valueMin: 5, currency: JPY` is not "over £5").
  const currency = text('currency')?.toUpperCase();
  if (currency && (filters.valueMin !== undefined || filters.valueMax !== undefined))
    filters.currency = (
      (VALUE_CURRENCIES as readonly string[]).includes(currency) ? currency : text('currency')
    ) as TenderSearchFilters['currency'];
  return Object.fromEntries(
    Object.entries(filters).filter(([, value]) => value !== undefined),
  ) as TenderSearchFilters;
}
