import type { ProcurementClient } from '../../client/procurement-client.ts';
import { DEFAULT_VALUE_CURRENCY, VALUE_CURRENCIES, type ValueRule } from '../../contract/schemas.ts';
import type { TenderSearchFilters } from './commands/parse-command.ts';
import type { KnownValueRule } from './views/describe-search.ts';

/** The rules of a list of searches, by the currency of their bounds. */
export interface ValueRules {
  byCurrency: ReadonlyMap<string, ValueRule>;
  /** Why a rule could not be read, when one could not (the list is drawn all the same). */
  failure?: unknown;
}

export const NO_VALUE_RULES: ValueRules = { byCurrency: new Map() };

/** The currency a search's value bounds are in (GBP when it names none); null without bounds. */
export function boundsCurrency(filters: TenderSearchFilters): string | null {
  if (filters.valueMin === undefined && filters.valueMax === undefined) return null;
  return filters.currency ?? DEFAULT_VALUE_CURRENCY;
}

/**
 * The rule the service compares the value bounds of `searches` by, read from its own answer (one
 * result asked for) to the first search of each currency: the rates and their date are the
 * service's data, never the app's. Searches without bounds ask nothing.
 */
export async function readValueRules(
  client: ProcurementClient,
  searches: readonly TenderSearchFilters[],
): Promise<ValueRules> {
  const firstOfCurrency = new Map<string, TenderSearchFilters>();
  for (const filters of searches) {
    const currency = boundsCurrency(filters);
    // A currency the service has no rates for is refused by every search in it: no rule to say.
    if (currency === null || !(VALUE_CURRENCIES as readonly string[]).includes(currency)) continue;
    if (!firstOfCurrency.has(currency)) firstOfCurrency.set(currency, filters);
  }
  const byCurrency = new Map<string, ValueRule>();
  let failure: unknown;
  await Promise.all(
    [...firstOfCurrency].map(async ([currency, filters]) => {
      try {
        const { valueRule } = await client.tenders.search({ ...filters, limit: 1 });
        if (valueRule) byCurrency.set(currency, valueRule);
      } catch (error) {
        failure ??= error;
      }
    }),
  );
  return failure === undefined ? { byCurrency } : { byCurrency, failure };
}

/** The rule to say after `filters`' value bounds: undefined without bounds, 'unread' when not read. */
export function ruleOf(rules: ValueRules, filters: TenderSearchFilters): KnownValueRule | undefined {
  const currency = boundsCurrency(filters);
  if (currency === null) return undefined;
  return rules.byCurrency.get(currency) ?? (rules.failure === undefined ? undefined : 'unread');
}
