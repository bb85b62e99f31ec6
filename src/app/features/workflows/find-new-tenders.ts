/* The step "Find new tenders": a saved search, or words and filters, published in the last days. */
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import { DEFAULT_VALUE_CURRENCY, type SavedSearch } from '../../../contract/schemas.ts';
import { cutText } from '../../../shared/cut-text.ts';
import type { TenderSearchFilters } from '../../shared/commands/parse-command.ts';
import { readableAsSentence, readSentence } from '../../shared/commands/read-sentence.ts';
import { filtersOf } from '../../shared/commands/saved-search-filters.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { parseWithRegions, regionsFor } from '../../shared/regions.ts';
import { regionReadSentence } from '../../shared/views/describe-search.ts';
import { code, type Mrkdwn, mrkdwn } from '../../shared/views/mrkdwn.ts';
import { plainOf, plainSentence } from '../../shared/views/plain-sentence.ts';
import { readerOf, StepRefusal, type StepRun, textInput } from './step-run.ts';
import { LISTED_TENDERS, tenderListOutput } from './views/step-outputs.ts';

/** "New" means published within this many days unless the step says otherwise. */
const DEFAULT_DAYS = 7;
const MAX_DAYS = 365;

/** The saved search an input names, by its id or (any case) its name. */
async function savedSearchNamed(client: ProcurementClient, named: string): Promise<SavedSearch> {
  const wanted = named.toLowerCase();
  for await (const saved of client.savedSearches.all()) {
    if (saved.id === named || saved.name.toLowerCase() === wanted) return saved;
  }
  throw new StepRefusal(
    plainSentence`No saved search is called “${cutText(named, 100)}” for this key. Check its name in /tender saved.`,
  );
}

/** How many days back "new" reaches: the input as a whole number from 1 to 365, else 7. */
function daysOf(run: StepRun): number {
  const raw = textInput(run, 'published_within_days');
  if (!raw) return DEFAULT_DAYS;
  // Digits only: Number() would read 0x10 as 16 and 1e2 as 100.
  const days = /^\d{1,3}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isInteger(days) || days < 1 || days > MAX_DAYS)
    throw new StepRefusal(
      plainSentence`“Published within days” must be a whole number from 1 to ${MAX_DAYS}.`,
    );
  return days;
}

/**
 * The search's filters: the saved search's, with the words and filters typed added on top; and how
 * a region typed without quotes was read, if one was.
 */
async function filtersOfRun(
  context: FeatureContext,
  client: ProcurementClient,
  run: StepRun,
): Promise<{ filters: TenderSearchFilters; read?: Mrkdwn }> {
  const savedName = textInput(run, 'saved_search');
  const words = textInput(run, 'words');
  if (!savedName && !words)
    throw new StepRefusal(
      plainSentence`Give the step a saved search, or words and filters to search by (or both).`,
    );
  const saved = savedName ? filtersOf(await savedSearchNamed(client, savedName)) : {};
  if (!words) return { filters: saved };
  // Written as a sentence ("cleaning in Wales over £1m"): read as a direct message and a feed read
  // it, a region, amounts and a closing window as filters, not searched as those words.
  const sentence = readableAsSentence(words)
    ? readSentence(words, context.clock(), await regionsFor(context, run.teamId, 'typed').catch(() => []))
    : null;
  if (sentence?.otherRegion)
    throw new StepRefusal(
      plainSentence`A search takes one region, and these words name two (${sentence.otherRegion.read} and ${sentence.otherRegion.name}). Give the step one, or a step for each.`,
    );
  const searched = sentence?.search ?? words;
  // Read as /tender search reads it: `region:south west` is the region South West. Not followed as
  // typed when the regions cannot be read: the run fails with the quoted form to use.
  const parsed = await parseWithRegions(context, run.teamId, searched, { refuseUnread: true });
  if (!parsed.ok) throw new StepRefusal(plainOf(parsed.problem));
  if (parsed.buyerName)
    throw new StepRefusal(
      plainSentence`A workflow step cannot look a buyer up by name: save the search with its buyer in Tenderbot and give the step the saved search.`,
    );
  const filters = withTypedOnTop(saved, parsed.filters);
  const read = sentence
    ? mrkdwn`Read the words as ${code(sentence.search, 300)}.`
    : parsed.regionRead && regionReadSentence(parsed.regionRead);
  return read ? { filters, read } : { filters };
}

/**
 * The saved search's filters with the typed ones on top. Value bounds keep one currency: a typed
 * `value>1m` is in pounds even when the saved search's bounds were in euros (a spread would have
 * read it as €1m), and a saved bound left in place must be in the typed bound's currency.
 */
export function withTypedOnTop(saved: TenderSearchFilters, typed: TenderSearchFilters): TenderSearchFilters {
  const merged = { ...saved, ...typed };
  if (typed.valueMin === undefined && typed.valueMax === undefined) return merged;
  const currency = typed.currency ?? DEFAULT_VALUE_CURRENCY;
  const kept = (['valueMin', 'valueMax'] as const).some(
    (bound) => typed[bound] === undefined && saved[bound] !== undefined,
  );
  const savedCurrency = saved.currency ?? DEFAULT_VALUE_CURRENCY;
  if (kept && savedCurrency !== currency)
    throw new StepRefusal(
      plainSentence`The saved search's value bound is in ${savedCurrency} and the typed one in ${currency}; a search compares values in one currency. Give the typed amount in ${savedCurrency}, or both bounds.`,
    );
  const { currency: _saved, ...rest } = merged;
  return currency === DEFAULT_VALUE_CURRENCY ? rest : { ...rest, currency };
}

/** Searches with the person's key (or the workspace's) and outputs how many and the list. */
export async function findNewTenders(
  context: FeatureContext,
  run: StepRun,
): Promise<Record<string, string | number>> {
  const now = context.clock();
  const { client } = await readerOf(context, run);
  const { filters, read } = await filtersOfRun(context, client, run);
  const since = new Date(now.getTime() - daysOf(run) * 86_400_000).toISOString();
  const page = await client.tenders.search({ ...filters, publishedFrom: since, limit: LISTED_TENDERS });
  return {
    count: page.pagination.total,
    // The words are read at every run, by the data's regions of the day: the list says how.
    tenders: tenderListOutput(page.data, page.pagination.total, now, page.valueRule, read),
    first_tender_id: page.data[0]?.id ?? '',
  };
}
