import type { SavedSearch } from '../../contract/schemas.ts';
import {
  frameworkDetailMessage,
  frameworksMessage,
  organisationDetailMessage,
  organisationsMessage,
  savedSearchesMessage,
} from '../blocks/messages.ts';
import { escapeMrkdwn } from '../blocks/mrkdwn.ts';
import { section } from '../blocks/tender-card.ts';
import type { TenderSearchFilters } from '../commands/parse-command.ts';
import { parseDirectory } from '../commands/parse-command.ts';
import type { FeatureContext, Request } from './feature-context.ts';
import { reply } from './feature-context.ts';
import { describeSearch, showSearchPage } from './tenders.ts';

const LIST_SIZE = 10;

/** `/tender buyers|suppliers|frameworks <words> [filters]`. */
export async function directoryCommand(
  context: FeatureContext,
  request: Request,
  kind: 'buyers' | 'suppliers' | 'frameworks',
  text: string,
): Promise<void> {
  const parsed = parseDirectory(text);
  if (!parsed.ok) {
    await reply(request, { text: parsed.problem, blocks: [section(escapeMrkdwn(parsed.problem))] });
    return;
  }
  const { q, region, status, type } = parsed.filters;
  const description = describeSearch({ q, region });
  const { client } = await context.clients.forTeam(request.teamId);
  if (kind === 'frameworks') {
    const page = await client.frameworks.list({ q, status, type, limit: LIST_SIZE });
    await reply(
      request,
      frameworksMessage(
        page.data,
        page.pagination.total,
        describeSearch({ q }) + (status ? `, ${status}` : ''),
      ),
    );
    return;
  }
  const page =
    kind === 'buyers'
      ? await client.buyers.list({ q, region, limit: LIST_SIZE })
      : await client.suppliers.list({ q, region, limit: LIST_SIZE });
  await reply(request, organisationsMessage(kind, page.data, page.pagination.total, description));
}

/** "Details" on a buyer, supplier or framework. */
export async function showDirectoryEntry(
  context: FeatureContext,
  request: Request,
  kind: 'buyer' | 'supplier' | 'framework',
  id: string,
): Promise<void> {
  const { client } = await context.clients.forTeam(request.teamId);
  const now = context.clock();
  if (kind === 'framework')
    return reply(request, frameworkDetailMessage(await client.frameworks.get(id), now));
  const detail = kind === 'buyer' ? await client.buyers.get(id) : await client.suppliers.get(id);
  await reply(request, organisationDetailMessage(kind, detail, now));
}

/** `/tender saved`. */
export async function savedSearchesCommand(context: FeatureContext, request: Request): Promise<void> {
  const { client } = await context.clients.forTeam(request.teamId);
  const page = await client.savedSearches.list({ limit: 40 });
  await reply(request, savedSearchesMessage(page.data, page.pagination.total));
}

/** "Run" on a saved search: its query as a tender search. */
export async function runSavedSearch(context: FeatureContext, request: Request, id: string): Promise<void> {
  const { client } = await context.clients.forTeam(request.teamId);
  const saved = await client.savedSearches.get(id);
  await showSearchPage(context, request, { f: filtersOf(saved), o: 0 }, false);
}

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
  return Object.fromEntries(
    Object.entries(filters).filter(([, value]) => value !== undefined),
  ) as TenderSearchFilters;
}
