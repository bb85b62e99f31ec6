import type { ProcurementClient } from '../../../client/procurement-client.ts';
import { cutText } from '../../../shared/cut-text.ts';
import { parseDirectory } from '../../shared/commands/parse-command.ts';
import { filtersOf } from '../../shared/commands/saved-search-filters.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { reply } from '../../shared/feature-context.ts';
import { parseDirectoryWithRegions } from '../../shared/regions.ts';
import { describeSavedSearches, readDefaultValueRuleAhead } from '../../shared/value-rules.ts';
import { describeSearch, regionReadSentence, wordsCutSentence } from '../../shared/views/describe-search.ts';
import type { Message } from '../../shared/views/messages.ts';
import { clip, joinMrkdwn, type Mrkdwn, mrkdwn, text as plain, safeText } from '../../shared/views/mrkdwn.ts';
import { commandOffer, correctedWords } from '../../shared/views/suggestions.ts';
import { type Block, contextLine, section } from '../../shared/views/tender-card.ts';
import { showSearchPage } from '../tenders/index.ts';
import {
  frameworkDetailMessage,
  frameworksMessage,
  organisationDetailMessage,
  organisationsMessage,
  SAVED_PAGE_SIZE,
  savedSearchesMessage,
} from './views/directory-messages.ts';

const LIST_SIZE = 10;

/** Which page of a list to show, and whether to redraw the message a Next or Previous was clicked in. */
export interface PageRequest {
  offset: number;
  replace: boolean;
}
export const FIRST_PAGE: PageRequest = { offset: 0, replace: false };

/** `/tender buyers|suppliers|frameworks <words> [filters]`. */
export async function directoryCommand(
  context: FeatureContext,
  request: SlackRequest,
  kind: 'buyers' | 'suppliers' | 'frameworks',
  text: string,
  page: PageRequest = FIRST_PAGE,
): Promise<void> {
  // Frameworks have no region: a region typed for them is not read with the words after it.
  const parsed =
    kind === 'frameworks'
      ? parseDirectory(text)
      : await parseDirectoryWithRegions(context, request.teamId, text);
  if (!parsed.ok) {
    await reply(request, { text: parsed.problem, blocks: [section(parsed.problem)] });
    return;
  }
  const { q, region, status, type } = parsed.filters;
  const description = describeSearch({ q, region });
  const { client } = await context.clients.forPerson(request.teamId, request.userId);
  // Next and Previous run the text again: with the region as it was read, whatever the regions are then.
  const listPage = { offset: page.offset, typed: parsed.regionRead?.text ?? text, pageSize: LIST_SIZE };
  /** Words that found nothing: the words meant, when the tenders' vocabulary mends them into some that find. */
  const meantInstead = async (
    total: number,
    findsAny: (words: string) => Promise<{ pagination: { total: number } }>,
  ) =>
    total === 0 && q && page.offset === 0
      ? directoryWordsMeant(client, kind, q, listPage.typed, findsAny)
      : [];
  if (kind === 'frameworks') {
    const found = await client.frameworks.list({ q, status, type, limit: LIST_SIZE, offset: page.offset });
    const offered = await meantInstead(found.pagination.total, (words) =>
      client.frameworks.list({ q: words, status, type, limit: 1 }),
    );
    const frameworksDescription = joinMrkdwn(
      [
        ...(q ? [describeSearch({ q })] : []),
        ...(status ? [plain(status)] : []),
        ...(type
          ? [
              type === 'dynamic_purchasing_system'
                ? mrkdwn`dynamic purchasing systems`
                : mrkdwn`frameworks only`,
            ]
          : []),
      ],
      mrkdwn`, `,
    );
    await reply(
      request,
      withCutNote(
        frameworksMessage(
          found.data,
          found.pagination.total,
          frameworksDescription || mrkdwn`everything`,
          listPage,
        ),
        parsed.wordsCut,
        [],
        offered,
      ),
      page.replace,
    );
    return;
  }
  const notes = parsed.regionRead ? [regionReadSentence(parsed.regionRead)] : [];
  const found =
    kind === 'buyers'
      ? await client.buyers.list({ q, region, limit: LIST_SIZE, offset: page.offset })
      : await client.suppliers.list({ q, region, limit: LIST_SIZE, offset: page.offset });
  const offered = await meantInstead(found.pagination.total, (words) =>
    kind === 'buyers'
      ? client.buyers.list({ q: words, region, limit: 1 })
      : client.suppliers.list({ q: words, region, limit: 1 }),
  );
  await reply(
    request,
    withCutNote(
      organisationsMessage(kind, found.data, found.pagination.total, description, listPage),
      parsed.wordsCut,
      notes,
      offered,
    ),
    page.replace,
  );
}

/**
 * `/tender suppliers clening`: the service suggests words only for tenders, so the words are
 * mended from the tenders' vocabulary (a search of one tender, which answers `suggestions` when it
 * finds none), and offered only when the mended words find some of what was asked for. Nothing
 * is offered when either read fails: the list as found still stands.
 */
async function directoryWordsMeant(
  client: ProcurementClient,
  kind: 'buyers' | 'suppliers' | 'frameworks',
  q: string,
  typed: string,
  findsAny: (words: string) => Promise<{ pagination: { total: number } }>,
): Promise<Block[]> {
  const probe = await client.tenders.search({ q, limit: 1 }).catch(() => null);
  // The words mended where they were typed (a quoted word stays as typed), then read again: the
  // button runs exactly the words counted.
  const mended = probe?.suggestions?.length ? correctedWords(typed, probe.suggestions) : null;
  const reread = mended ? parseDirectory(mended) : null;
  const words = reread?.ok ? reread.filters.q : undefined;
  if (!mended || !words || words === q) return [];
  const found = await findsAny(words).catch(() => null);
  if (!found || found.pagination.total === 0) return [];
  const command = `${kind} ${mended}`;
  return commandOffer(
    mrkdwn`Did you mean *${safeText(words, 300)}*? ${plain(found.pagination.total.toLocaleString('en-GB'))} ${plain(found.pagination.total === 1 ? kind.replace(/s$/, '') : kind)} ${plain(found.pagination.total === 1 ? 'matches' : 'match')} it.`,
    `Search ${kind} for ${clip(words, 40)}`,
    command,
  );
}

/**
 * Words past what a search takes are said to be left out (as `/tender search` says), not dropped
 * silently; `offered` (the words meant) goes under the answer.
 */
function withCutNote(
  message: Message,
  cut: true | undefined,
  notes: readonly Mrkdwn[] = [],
  offered: readonly Block[] = [],
): Message {
  const said = [...notes, ...(cut ? [wordsCutSentence()] : [])].map((sentence) => contextLine(sentence));
  if (said.length === 0 && offered.length === 0) return message;
  return {
    ...message,
    blocks: [...message.blocks.slice(0, 1), ...said, ...message.blocks.slice(1), ...offered],
  };
}

/** "Details" on a buyer, supplier or framework. */
export async function showDirectoryEntry(
  context: FeatureContext,
  request: SlackRequest,
  kind: 'buyer' | 'supplier' | 'framework',
  id: string,
): Promise<void> {
  const { client } = await context.clients.forPerson(request.teamId, request.userId);
  const now = context.clock();
  if (kind === 'framework')
    return reply(request, frameworkDetailMessage(await client.frameworks.get(id), now));
  const detail = kind === 'buyer' ? await client.buyers.get(id) : await client.suppliers.get(id);
  await reply(request, organisationDetailMessage(kind, detail, now));
}

/** `/tender saved`. */
export async function savedSearchesCommand(
  context: FeatureContext,
  request: SlackRequest,
  page: PageRequest = FIRST_PAGE,
): Promise<void> {
  const { client } = await context.clients.forPerson(request.teamId, request.userId);
  // Value bounds are said with the rule the service compares them by, as its results say it: kept
  // a while, and the usual currency's read (when not kept) goes out beside the list's.
  readDefaultValueRuleAhead(context, client);
  const found = await client.savedSearches.list({ limit: SAVED_PAGE_SIZE, offset: page.offset });
  const described = await describeSavedSearches(context, client, request.teamId, found.data);
  await reply(
    request,
    savedSearchesMessage(described, found.pagination.total, {
      offset: page.offset,
      typed: '',
      pageSize: SAVED_PAGE_SIZE,
    }),
    page.replace,
  );
}

/** "Run" on a saved search: its query as a tender search. */
export async function runSavedSearch(
  context: FeatureContext,
  request: SlackRequest,
  id: string,
): Promise<void> {
  const { client } = await context.clients.forPerson(request.teamId, request.userId);
  const saved = await client.savedSearches.get(id);
  await showSearchPage(
    context,
    request,
    { f: filtersOf(saved), o: 0, ...(saved.name.trim() ? { n: cutText(saved.name.trim(), 200) } : {}) },
    false,
  );
}
