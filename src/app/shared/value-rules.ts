import type { ProcurementClient } from '../../client/procurement-client.ts';
import {
  DEFAULT_VALUE_CURRENCY,
  type SavedSearch,
  VALUE_CURRENCIES,
  type ValueCurrency,
  type ValueRule,
} from '../../contract/schemas.ts';
import type { TenderSearchFilters } from './commands/parse-command.ts';
import { filtersOf } from './commands/saved-search-filters.ts';
import type { FeatureContext } from './feature-context.ts';
import { type KnownValueRule, searchHeading } from './views/describe-search.ts';
import type { Mrkdwn } from './views/mrkdwn.ts';

/** The rules of a list of searches, by the currency of their bounds. */
export interface ValueRules {
  byCurrency: ReadonlyMap<string, ValueRule>;
  /** Currencies whose rule could not be read just now (said as such, the list drawn all the same). */
  unread?: ReadonlySet<string>;
  /** Why, for the log, when one could not be read. */
  failure?: unknown;
}

export const NO_VALUE_RULES: ValueRules = { byCurrency: new Map() };

/** No rule read for `searches`' bounds, because of `failure` (a key that cannot be used, say). */
export function unreadValueRules(searches: readonly TenderSearchFilters[], failure: unknown): ValueRules {
  return { byCurrency: new Map(), unread: new Set(searches.map(boundsCurrency).filter(comparable)), failure };
}

/**
 * How long a rule read is kept: the rates and their date are fixed data of a service deployment,
 * so a list, a Home tab or a confirmation says them without asking again.
 */
export const VALUE_RULE_TTL_MS = 10 * 60_000;
/** How long a rule that could not be read is said to be unread before it is asked for again. */
export const VALUE_RULE_FAILURE_TTL_MS = 30_000;
/**
 * A rule is only ever words beside a list: read with a short budget and once, so a slow or hung
 * service costs a list at most this much (the client's default is 10 s, tried three times).
 */
export const VALUE_RULE_CALL = { timeoutMs: 1500, maxRetries: 0 } as const;

type RuleRead = { rule: ValueRule | null } | { failure: unknown };

interface Kept {
  read: RuleRead;
  until: number;
}

/**
 * Per app (its clients), rules by service base URL and currency, and the reads under way (two
 * lists drawn at once share one). Entries are as many as service addresses times currencies.
 */
const keptOf = new WeakMap<object, { kept: Map<string, Kept>; reading: Map<string, Promise<RuleRead>> }>();

function cacheOf(context: Pick<FeatureContext, 'clients'>) {
  let cache = keptOf.get(context.clients);
  if (!cache) {
    cache = { kept: new Map(), reading: new Map() };
    keptOf.set(context.clients, cache);
  }
  return cache;
}

const cacheKey = (client: ProcurementClient, currency: string) =>
  `${client.toJSON().baseUrl}\u0000${currency}`;

/** The currency a search's value bounds are in (GBP when it names none); null without bounds. */
export function boundsCurrency(filters: TenderSearchFilters): string | null {
  if (filters.valueMin === undefined && filters.valueMax === undefined) return null;
  return filters.currency ?? DEFAULT_VALUE_CURRENCY;
}

/** A currency the service has rates for: any other is refused by every search in it (no rule to say). */
function comparable(currency: string | null): currency is ValueCurrency {
  return currency !== null && (VALUE_CURRENCIES as readonly string[]).includes(currency);
}

/**
 * The rule the service behind `client` compares value bounds in `currency` by: kept for a while
 * when known, else read from the service's own answer to a search by a bound alone (one result,
 * VALUE_RULE_CALL). Never rejects: a failure is the answer, kept briefly.
 */
function valueRuleOf(
  context: Pick<FeatureContext, 'clients' | 'clock'>,
  client: ProcurementClient,
  currency: ValueCurrency,
): Promise<RuleRead> {
  const { kept, reading } = cacheOf(context);
  const key = cacheKey(client, currency);
  const known = kept.get(key);
  if (known && known.until > context.clock().getTime()) return Promise.resolve(known.read);
  const underway = reading.get(key);
  if (underway) return underway;
  const read = client.tenders.search({ valueMin: 0, currency, limit: 1 }, VALUE_RULE_CALL).then(
    ({ valueRule }): RuleRead => ({ rule: valueRule ?? null }),
    (failure: unknown): RuleRead => ({ failure }),
  );
  const settled = read.then((answer) => {
    const ttl = 'failure' in answer ? VALUE_RULE_FAILURE_TTL_MS : VALUE_RULE_TTL_MS;
    kept.set(key, { read: answer, until: context.clock().getTime() + ttl });
    reading.delete(key);
    return answer;
  });
  reading.set(key, settled);
  return settled;
}

/**
 * Starts reading the rule of the default currency (most bounds are in it) while the caller reads
 * a list that may need it: the list then waits for no second round trip. Free when it is kept.
 */
export function readDefaultValueRuleAhead(
  context: Pick<FeatureContext, 'clients' | 'clock'>,
  client: ProcurementClient,
): void {
  void valueRuleOf(context, client, DEFAULT_VALUE_CURRENCY);
}

/** Keeps a rule the service named in an answer (a search of its own): later lists need not ask. */
export function keepValueRule(
  context: Pick<FeatureContext, 'clients' | 'clock'>,
  client: ProcurementClient,
  rule: ValueRule,
): void {
  cacheOf(context).kept.set(cacheKey(client, rule.currency), {
    read: { rule },
    until: context.clock().getTime() + VALUE_RULE_TTL_MS,
  });
}

/**
 * The rules the service behind `client` compares the value bounds of `searches` by, one per
 * currency of bounds: the rates and their date are the service's data, never the app's. Searches
 * without bounds ask nothing; currencies are read at once, each within VALUE_RULE_CALL.
 */
export async function readValueRules(
  context: Pick<FeatureContext, 'clients' | 'clock'>,
  client: ProcurementClient,
  searches: readonly TenderSearchFilters[],
): Promise<ValueRules> {
  const currencies = new Set(searches.map(boundsCurrency).filter(comparable));
  const byCurrency = new Map<string, ValueRule>();
  const unread = new Set<string>();
  let failure: unknown;
  for (const [currency, read] of await Promise.all(
    [...currencies].map(
      async (currency) => [currency, await valueRuleOf(context, client, currency)] as const,
    ),
  )) {
    if ('failure' in read) {
      unread.add(currency);
      failure ??= read.failure;
    } else if (read.rule) byCurrency.set(currency, read.rule);
  }
  return unread.size === 0 ? { byCurrency } : { byCurrency, unread, failure };
}

/**
 * The rules already kept for `searches` through `client`, asking the service nothing (for words
 * where a rule is a courtesy, not worth a wait): a rule not kept is simply not said.
 */
export function keptValueRules(
  context: Pick<FeatureContext, 'clients' | 'clock'>,
  client: ProcurementClient,
  searches: readonly TenderSearchFilters[],
): ValueRules {
  const { kept } = cacheOf(context);
  const now = context.clock().getTime();
  const byCurrency = new Map<string, ValueRule>();
  for (const currency of new Set(searches.map(boundsCurrency).filter(comparable))) {
    const known = kept.get(cacheKey(client, currency));
    if (known && known.until > now && 'rule' in known.read && known.read.rule)
      byCurrency.set(currency, known.read.rule);
  }
  return { byCurrency };
}

/** The rule to say after `filters`' value bounds: undefined without bounds, 'unread' when not read. */
export function ruleOf(rules: ValueRules, filters: TenderSearchFilters): KnownValueRule | undefined {
  const currency = boundsCurrency(filters);
  if (currency === null) return undefined;
  return rules.byCurrency.get(currency) ?? (rules.unread?.has(currency) ? 'unread' : undefined);
}

/**
 * Saved searches as their headings say them, value bounds with the rule the service compares them
 * by (readValueRules: kept, short budget); a rule that could not be read is logged and said.
 */
export async function describeSavedSearches(
  context: Pick<FeatureContext, 'clients' | 'clock' | 'logger'>,
  client: ProcurementClient,
  teamId: string,
  saved: readonly SavedSearch[],
): Promise<{ saved: SavedSearch; description: Mrkdwn }[]> {
  const searches = saved.map((each) => ({ saved: each, filters: filtersOf(each) }));
  const rules = await readValueRules(
    context,
    client,
    searches.map(({ filters }) => filters),
  );
  if (rules.failure !== undefined)
    context.logger.warn({ err: rules.failure, teamId }, 'the value rule of saved searches could not be read');
  return searches.map(({ saved: each, filters }) => ({
    saved: each,
    description: searchHeading(filters, undefined, undefined, ruleOf(rules, filters)),
  }));
}
