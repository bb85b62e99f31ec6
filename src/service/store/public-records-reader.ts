/*
 * Over 500 lines: every read of the public-records tables (tenders, buyers, suppliers, frameworks)
 * shares one set of prepared statements and row mappers; splitting it by record would repeat them.
 */
import type {
  Buyer,
  DirectoryQuery,
  Framework,
  FrameworkQuery,
  Supplier,
  Tender,
  TenderSearchQuery,
  ValueCurrency,
} from '../../contract/schemas.ts';
import { RELATED_RECORD_LIMIT, TENDER_PREVIEW_LIMIT } from '../../contract/schemas.ts';
import { cutText } from '../../shared/cut-text.ts';
import { SOURCES_BY_OCID_PREFIX } from '../import/ocid-prefixes.ts';
import {
  conversionFactor,
  DEFAULT_VALUE_CURRENCY,
  EXCHANGEABLE_CURRENCIES,
  STORED_CURRENCY_WHEN_NONE,
} from '../money/reference-rates.ts';
import { CountCache, DEFAULT_COUNT_CACHE_SIZE } from './count-cache.ts';
import type { SqliteDatabase } from './database.ts';
import { SearchThread } from './search-thread.ts';
import { StatementCache } from './statement-cache.ts';
import {
  DEFAULT_WORD_HITS_BUDGET,
  TenderFilterIndex,
  type TenderFilters,
  type TenderWordMatch,
} from './tender-filter-index.ts';
import { type WordSuggestion, WordSuggestions } from './word-suggestions.ts';

export interface Page<T> {
  items: T[];
  total: number;
}

export interface TenderRow {
  id: string;
  title: string;
  description: string | null;
  status: Tender['status'];
  buyer_id: string | null;
  buyer_name: string | null;
  value_amount: number | null;
  value_currency: string | null;
  published_at: string;
  deadline: string | null;
  awarded_at: string | null;
  region: string | null;
  cpv_codes: string;
  source_name: string;
  source_id: string;
  url: string | null;
  framework_id: string | null;
  suppliers: string;
  /** When a tender stored as open stops being open (its deadline, or see NO_DEADLINE_OPEN_DAYS). */
  open_until: string | null;
}

interface OrganisationRow {
  id: string;
  name: string;
  region: string | null;
  locality: string | null;
  postal_code: string | null;
  country_code: string | null;
  identifiers: string;
  website: string | null;
  type?: Buyer['type'];
  notice_count: number;
}

interface FrameworkRow {
  id: string;
  title: string;
  description: string | null;
  status: Framework['status'];
  type: Framework['type'];
  owner_id: string | null;
  owner_name: string | null;
  start_date: string | null;
  end_date: string | null;
  value_amount: number | null;
  value_currency: string | null;
  url: string | null;
  lots: string;
  supplier_count: number | null;
  call_off_count: number;
}

/** List items carry the description shortened to this many characters (CONTRACT.md §5). */
export const LIST_DESCRIPTION_LENGTH = 500;

export const TENDER_COLUMNS = `t.id, t.title, t.description, t.status, t.buyer_id, t.buyer_name, t.value_amount,
  t.value_currency, t.published_at, t.deadline, t.awarded_at, t.region, t.cpv_codes, t.source_name, t.source_id,
  t.url, t.framework_id, t.suppliers, t.open_until`;

const FRAMEWORK_SELECT = `
  SELECT f.id, f.title, f.description, f.type, f.owner_id, b.name AS owner_name, f.start_date, f.end_date,
    f.value_amount, f.value_currency, f.url, f.lots,
    CASE WHEN f.start_date IS NOT NULL AND f.start_date > @today THEN 'upcoming'
         WHEN f.end_date IS NOT NULL AND f.end_date < @today THEN 'expired' ELSE 'live' END AS status,
    nullif((SELECT count(*) FROM tender_suppliers ts WHERE ts.tender_id = f.id), 0) AS supplier_count,
    (SELECT count(*) FROM tenders c WHERE c.framework_id = f.id) AS call_off_count
  FROM frameworks f LEFT JOIN buyers b ON b.id = f.owner_id`;

/**
 * Turns free text into an FTS5 query in which every word must match as a prefix
 * (`clean lond` finds "Cleaning services, London"). Null when the text has no words.
 */
export function wordsToMatchExpression(text: string | undefined): string | null {
  const words = wordsOf(text);
  return words.length > 0 ? words.map((word) => `"${word}"*`).join(' ') : null;
}

/** Quoted parts of a search: straight or curly double quotes; an unclosed quote runs to the end. */
const QUOTED = /["“”]([^"“”]*)(?:["“”]|$)/g;

/** The tender word match of a `q` parameter, or null when it has no words. */
export function tenderWordMatch(text: string | undefined): TenderWordMatch | null {
  if (text === undefined) return null;
  const phrases: string[] = [];
  const rest = text.replace(QUOTED, (_quoted, inside: string) => {
    const words = wordsOf(inside);
    if (words.length > 0) phrases.push(`"${words.join(' ')}"`);
    return ' ';
  });
  const words = wordsToMatchExpression(rest);
  const phraseExpression = phrases.length > 0 ? phrases.join(' ') : null;
  return words === null && phraseExpression === null ? null : { words, phrases: phraseExpression };
}

/**
 * The words of a `q` parameter: runs of letters and digits, as the word indexes split them. The
 * index's tokenizer (SQLite's unicode61) also splits at 21 marks that JavaScript counts as letters
 * (New Tai Lue vowel signs U+19B0–19C0, U+19C8–19C9; Vedic signs U+1CF2–1CF3: every other letter
 * and digit was checked one by one), so they split words here too: a word the index would read as
 * two is a phrase, which tender_words (detail=none) cannot match.
 */
export function wordsOf(text: string | undefined): string[] {
  return (
    text?.normalize('NFKC').match(/(?:(?![\u19B0-\u19C0\u19C8\u19C9\u1CF2\u1CF3])[\p{L}\p{N}])+/gu) ?? []
  );
}

/** Reads tenders, buyers, suppliers and frameworks as the API shapes them. */
export class PublicRecordsReader {
  private readonly statements: StatementCache;
  private readonly totals: CountCache;
  private readonly filterIndex: TenderFilterIndex;
  private readonly suggestions: WordSuggestions;
  private readonly wordHitsBudget: number | undefined;
  private searchThread: SearchThread | null = null;
  /** Runs `read` in one read transaction (its statements see one version of the file). */
  private readonly inOneRead: <T>(read: () => T) => T;

  /**
   * `countCacheSize` 0 turns the cache of totals off, and the filter index keeps no word's hits
   * (to measure first-time searches).
   */
  constructor(db: SqliteDatabase, countCacheSize = DEFAULT_COUNT_CACHE_SIZE) {
    this.statements = new StatementCache(db);
    this.totals = new CountCache(db, countCacheSize);
    this.wordHitsBudget = countCacheSize === 0 ? 0 : undefined;
    const inTransaction = db.transaction((read: () => unknown) => read());
    this.inOneRead = <T>(read: () => T) => inTransaction(read) as T;
    this.filterIndex = new TenderFilterIndex(db, this.wordHitsBudget);
    this.suggestions = new WordSuggestions(db);
  }

  /**
   * Reads the filter index's columns in a worker thread from `file` (this reader's database file),
   * starting now, so no search waits for them; searches use SQL until they arrive.
   */
  buildFilterIndexInBackground(file: string): void {
    this.filterIndex.buildInBackground(file);
  }

  /**
   * What is costly to read is read in worker threads from `file` (this reader's database file),
   * never on a request: the filter index's columns, starting now (see buildFilterIndexInBackground),
   * and the words' vocabulary for suggestions, whenever the records change (see WordSuggestions).
   */
  readInBackground(file: string): void {
    this.filterIndex.buildInBackground(file);
    this.suggestions.readInBackground(file);
  }

  /**
   * Word searches answered by a search thread over `file` (see SearchThread) through
   * searchTendersAsync, once it has read its columns; this thread's own filter columns are then
   * read only if it must search alone (the thread not ready yet, or failed).
   */
  searchInThread(file: string, onFailure?: (error: unknown) => void): void {
    if (this.searchThread || file === ':memory:' || file === '') return;
    this.searchThread = new SearchThread(file, this.wordHitsBudget ?? DEFAULT_WORD_HITS_BUDGET, onFailure);
    this.filterIndex.buildInBackground(file, false);
  }

  /** How many searches the search thread has answered (0 without one). */
  get searchThreadAnswers(): number {
    return this.searchThread?.answered ?? 0;
  }

  /** True once the search thread answers; false without one, or if it failed. */
  searchThreadReady(): Promise<boolean> {
    return this.searchThread?.whenReady() ?? Promise.resolve(false);
  }

  /**
   * searchTenders, with a word search's hits and filters walked in the search thread when there
   * is one that answers (see searchInThread); the page's rows are read here, at the records'
   * version the thread read, or the whole search is made here.
   */
  async searchTendersAsync(query: TenderSearchQuery, now: Date = new Date()): Promise<Page<Tender>> {
    const match = tenderWordMatch(query.q);
    const thread = this.searchThread;
    if (thread?.answering && match && !query.url && !query.reference) {
      const at = toStoredInstant(now);
      const found = await thread.search({
        match,
        filters: hasFilter(query) ? filtersOf(query) : null,
        now: at,
        offset: query.offset,
        limit: query.limit,
      });
      if (found) {
        const page = this.rowsAtVersion(found.sortKeys, found.recordsVersion, at);
        if (page) return { items: page, total: found.total };
      }
    }
    // While the thread reads its columns, filtered searches are SQL's (as before any columns are
    // read): this thread reads its own only if the search thread has failed.
    return this.searchTenders(query, now, thread === null || thread.failedForGood);
  }

  /** The rows of `sortKeys` in one read, if the records are still at `recordsVersion`; else null. */
  private readonly rowsAtVersion = (
    sortKeys: number[],
    recordsVersion: string,
    at: string,
  ): Tender[] | null =>
    this.inOneRead(() => {
      const current = this.statements.get<{ value: string }>(
        "SELECT value FROM public_records_meta WHERE key = 'records_version'",
        [],
      );
      if ((current?.value ?? '') !== recordsVersion) return null;
      return this.pageRows(sortKeys).map((row) => tenderListItemFromRow(row, at));
    });

  private pageRows(sortKeys: number[]): TenderRow[] {
    return this.statements.all<TenderRow>(
      `SELECT ${TENDER_COLUMNS} FROM tenders t WHERE t.sort_key IN (SELECT value FROM json_each(?))
       ORDER BY t.sort_key`,
      [JSON.stringify(sortKeys)],
    );
  }

  /** Reads the words' vocabulary now on this thread, unless it is current: before serving, when no request waits. */
  readWordVocabularyNow(): void {
    this.suggestions.readNow();
  }

  /** True once the filter index's columns are in memory; false if the background read failed. */
  filterIndexReady(): Promise<boolean> {
    return this.filterIndex.whenReady();
  }

  /** True once the vocabulary of the records as they are now is held; false if its background read failed. */
  wordVocabularyReady(): Promise<boolean> {
    return this.suggestions.whenReady();
  }

  /** How many times the words' vocabulary was read on this thread, the one that answers requests. */
  get wordVocabularyReadsOnThisThread(): number {
    return this.suggestions.vocabularyReadsOnThisThread;
  }

  /** Stops the background reads under way; call before closing the database. */
  async close(): Promise<void> {
    await Promise.all([this.filterIndex.close(), this.suggestions.close(), this.searchThread?.close()]);
  }

  /**
   * A query's total, counted once per shape and parameters (limit and offset aside) while data
   * and every tender's status are unchanged. `now` is left out of the key: the cache empties
   * itself whenever the clock passes a tender's closing instant.
   */
  private total(sql: string, params: Record<string, unknown>, now: string): number {
    const { limit: _limit, offset: _offset, now: _now, ...filters } = params;
    return this.totals.get(
      `${sql}\u0000${JSON.stringify(filters)}`,
      now,
      () => this.statements.get<{ total: number }>(sql, params)?.total ?? 0,
    );
  }

  /**
   * Tenders matching the query, with each status as it stands at `now`: a tender is open only
   * while its deadline is ahead (see TenderRow.open_until), then it is closed. `filterColumnsHere`
   * false: a filtered word search is SQL's rather than this thread's filter columns' (see
   * searchTendersAsync).
   */
  searchTenders(query: TenderSearchQuery, now: Date = new Date(), filterColumnsHere = true): Page<Tender> {
    const at = toStoredInstant(now);
    const conditions: string[] = [];
    const params: Record<string, unknown> = { limit: query.limit, offset: query.offset, now: at };
    const match = tenderWordMatch(query.q);
    // The filter index knows every filter but the address one, which its own table answers.
    if (match && !query.url && !query.reference) {
      const found = !hasFilter(query)
        ? this.filterIndex.searchWords(match, query.offset, query.limit)
        : filterColumnsHere
          ? this.filterIndex.search(match, filtersOf(query), at, query.offset, query.limit)
          : null;
      if (found) {
        return {
          items: this.pageRows(found.sortKeys).map((row) => tenderListItemFromRow(row, at)),
          total: found.total,
        };
      }
    }
    if (query.status === 'open') {
      conditions.push('t.open_until > @now');
    } else if (query.status === 'closed') {
      conditions.push("(t.status = 'closed' OR t.open_until <= @now)");
    } else if (query.status) {
      conditions.push('t.status = @status');
      params.status = query.status;
    }
    if (query.url) {
      conditions.push('t.id IN (SELECT tender_id FROM tender_links WHERE url = @url)');
      params.url = query.url.trim();
    }
    if (query.reference) {
      conditions.push(
        '(t.source_id = @reference COLLATE NOCASE OR t.id IN (SELECT value FROM json_each(@referenceIds)))',
      );
      params.reference = query.reference;
      params.referenceIds = JSON.stringify(idsForReference(query.reference));
    }
    if (query.buyerId) {
      conditions.push('t.buyer_id = @buyerId');
      params.buyerId = query.buyerId;
    }
    if (query.region) {
      conditions.push('t.region = @region COLLATE NOCASE');
      params.region = query.region;
    }
    if (query.cpv) {
      // A code prefix as a range: '72' matches '72000000' up to but excluding '72:'.
      conditions.push('t.id IN (SELECT tender_id FROM tender_cpv WHERE code >= @cpvLow AND code < @cpvHigh)');
      params.cpvLow = query.cpv;
      params.cpvHigh = `${query.cpv}:`;
    }
    if (query.valueMin !== undefined || query.valueMax !== undefined) {
      const converted = convertedValueSql(query.currency ?? DEFAULT_VALUE_CURRENCY, params);
      if (query.valueMin !== undefined) {
        conditions.push(`${converted} >= @valueMin`);
        params.valueMin = query.valueMin;
      }
      if (query.valueMax !== undefined) {
        conditions.push(`${converted} <= @valueMax`);
        params.valueMax = query.valueMax;
      }
    }
    addInstantRange(
      conditions,
      params,
      't.published_at',
      'published',
      query.publishedFrom,
      query.publishedTo,
    );
    addInstantRange(conditions, params, 't.deadline', 'deadline', query.deadlineFrom, query.deadlineTo);

    const filter = conditions.length ? `AND ${conditions.join(' AND ')}` : '';
    let rowsSql: string;
    let countSql: string;
    if (match && match.phrases === null) {
      params.match = match.words;
      // CROSS JOIN keeps the word index as the outer loop, read in sort-key order: no sort.
      const from = 'FROM tender_words w CROSS JOIN tenders t ON t.sort_key = w.rowid';
      rowsSql = `SELECT ${TENDER_COLUMNS} ${from} WHERE tender_words MATCH @match ${filter}
        ORDER BY w.rowid LIMIT @limit OFFSET @offset`;
      // Counting needs only the filter columns: the covering index holds them all, compactly.
      countSql = conditions.length
        ? `SELECT count(*) AS total FROM tender_words w CROSS JOIN tenders t INDEXED BY tenders_filters
             ON t.sort_key = w.rowid WHERE tender_words MATCH @match ${filter}`
        : 'SELECT count(*) AS total FROM tender_words WHERE tender_words MATCH @match';
    } else if (match) {
      // Quoted phrases: the tenders whose words, as written, hold each phrase (and match the words).
      conditions.unshift(tenderKeysMatching(match, params));
      const where = `WHERE ${conditions.join(' AND ')}`;
      rowsSql = `SELECT ${TENDER_COLUMNS} FROM tenders t ${where} ORDER BY t.sort_key LIMIT @limit OFFSET @offset`;
      countSql = `SELECT count(*) AS total FROM tenders t ${where}`;
    } else {
      const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
      // Open tenders are few among many (2 of 25,000 on the real files): read them through their
      // index and sort them, rather than walk every tender in order looking for them (8 ms -> <1 ms).
      const order = query.status === 'open' ? '+t.sort_key' : 't.sort_key';
      rowsSql = `SELECT ${TENDER_COLUMNS} FROM tenders t ${where} ORDER BY ${order} LIMIT @limit OFFSET @offset`;
      countSql = `SELECT count(*) AS total FROM tenders t ${where}`;
    }
    const rows = this.statements.all<TenderRow>(rowsSql, params);
    return {
      items: rows.map((row) => tenderListItemFromRow(row, at)),
      total: this.total(countSql, params, at),
    };
  }

  getTender(id: string, now: Date = new Date()): Tender | null {
    const row = this.statements.get<TenderRow>(`SELECT ${TENDER_COLUMNS} FROM tenders t WHERE t.id = ?`, [
      id,
    ]);
    return row ? tenderFromRow(row, toStoredInstant(now)) : null;
  }

  /**
   * The tender a printed reference names (see the `reference` filter), when it names one; the
   * number of tenders it names otherwise (0 or several), so that the answer can say which.
   */
  tenderByReference(reference: string, now: Date = new Date()): { tender: Tender | null; count: number } {
    const found = this.searchTenders({ reference: reference.trim(), limit: 2, offset: 0 }, now);
    const only = found.total === 1 ? found.items[0] : undefined;
    return { tender: only ? this.getTender(only.id, now) : null, count: found.total };
  }

  /**
   * For a search that found nothing: each of its words (outside quotes) that alone finds no
   * tender, with the word of the data it most likely meant (see WordSuggestions).
   */
  suggestWords(text: string | undefined): WordSuggestion[] {
    if (text === undefined) return [];
    return this.suggestions.suggest(wordsOf(text.replace(QUOTED, ' ')));
  }

  tenderExists(id: string): boolean {
    return this.statements.get('SELECT 1 FROM tenders WHERE id = ?', [id]) !== undefined;
  }

  listBuyers(query: DirectoryQuery, now: Date = new Date()): Page<Buyer> {
    const { rows, total } = this.listOrganisations('buyers', 'buyer_words', query, toStoredInstant(now));
    return { items: rows.map(buyerFromRow), total };
  }

  listSuppliers(query: DirectoryQuery, now: Date = new Date()): Page<Supplier> {
    const { rows, total } = this.listOrganisations(
      'suppliers',
      'supplier_words',
      query,
      toStoredInstant(now),
    );
    return { items: rows.map(supplierFromRow), total };
  }

  getBuyer(id: string, now: Date = new Date()): (Buyer & { notices: Tender[] }) | null {
    const row = this.statements.get<OrganisationRow>(
      'SELECT b.*, (SELECT count(*) FROM tenders t WHERE t.buyer_id = b.id) AS notice_count FROM buyers b WHERE b.id = ?',
      [id],
    );
    if (!row) return null;
    const notices = this.statements.all<TenderRow>(
      `SELECT ${TENDER_COLUMNS} FROM tenders t WHERE t.buyer_id = ? ORDER BY t.sort_key LIMIT ${TENDER_PREVIEW_LIMIT}`,
      [id],
    );
    const at = toStoredInstant(now);
    return { ...buyerFromRow(row), notices: notices.map((notice) => tenderListItemFromRow(notice, at)) };
  }

  getSupplier(id: string, now: Date = new Date()): (Supplier & { notices: Tender[] }) | null {
    const row = this.statements.get<OrganisationRow>(
      `SELECT s.*, (SELECT count(*) FROM tender_suppliers ts WHERE ts.supplier_id = s.id) AS notice_count
       FROM suppliers s WHERE s.id = ?`,
      [id],
    );
    if (!row) return null;
    const notices = this.statements.all<TenderRow>(
      `SELECT ${TENDER_COLUMNS} FROM tender_suppliers ts JOIN tenders t ON t.id = ts.tender_id
       WHERE ts.supplier_id = ? ORDER BY t.sort_key LIMIT ${TENDER_PREVIEW_LIMIT}`,
      [id],
    );
    const at = toStoredInstant(now);
    return { ...supplierFromRow(row), notices: notices.map((notice) => tenderListItemFromRow(notice, at)) };
  }

  buyerExists(id: string): boolean {
    return this.statements.get('SELECT 1 FROM buyers WHERE id = ?', [id]) !== undefined;
  }

  supplierExists(id: string): boolean {
    return this.statements.get('SELECT 1 FROM suppliers WHERE id = ?', [id]) !== undefined;
  }

  frameworkExists(id: string): boolean {
    return this.statements.get('SELECT 1 FROM frameworks WHERE id = ?', [id]) !== undefined;
  }

  listFrameworks(query: FrameworkQuery, today: string, now: Date = new Date()): Page<Framework> {
    const conditions: string[] = [];
    const params: Record<string, unknown> = { today, limit: query.limit, offset: query.offset };
    const match = wordsToMatchExpression(query.q);
    if (match) {
      conditions.push('f.rowid IN (SELECT rowid FROM framework_words WHERE framework_words MATCH @match)');
      params.match = match;
    }
    if (query.type) {
      conditions.push('f.type = @type');
      params.type = query.type;
    }
    const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
    // The status is derived from today's date, so it filters the derived column.
    const statusFilter = query.status ? 'WHERE status = @status' : '';
    if (query.status) params.status = query.status;
    const base = `SELECT * FROM (${FRAMEWORK_SELECT} ${where}) ${statusFilter}`;
    const rows = this.statements.all<FrameworkRow>(
      `${base} ORDER BY start_date IS NULL, start_date DESC, id LIMIT @limit OFFSET @offset`,
      params,
    );
    return {
      items: rows.map(frameworkFromRow),
      total: this.total(`SELECT count(*) AS total FROM (${base})`, params, toStoredInstant(now)),
    };
  }

  getFramework(
    id: string,
    today: string,
    now: Date = new Date(),
  ):
    | (Framework & {
        buyers: { id: string; name: string }[];
        suppliers: { id: string; name: string }[];
        callOffs: Tender[];
      })
    | null {
    const row = this.statements.get<FrameworkRow>(`${FRAMEWORK_SELECT} WHERE f.id = @id`, { id, today });
    if (!row) return null;
    const buyers = this.statements.all<{ id: string; name: string }>(
      `SELECT DISTINCT b.id, b.name FROM tenders t JOIN buyers b ON b.id = t.buyer_id
       WHERE t.framework_id = ? ORDER BY b.name, b.id LIMIT ${RELATED_RECORD_LIMIT}`,
      [id],
    );
    const suppliers = this.statements.all<{ id: string; name: string }>(
      `SELECT s.id, s.name FROM tender_suppliers ts JOIN suppliers s ON s.id = ts.supplier_id
       WHERE ts.tender_id = ? ORDER BY s.name, s.id LIMIT ${RELATED_RECORD_LIMIT}`,
      [id],
    );
    const callOffs = this.statements.all<TenderRow>(
      `SELECT ${TENDER_COLUMNS} FROM tenders t WHERE t.framework_id = ? ORDER BY t.sort_key LIMIT ${RELATED_RECORD_LIMIT}`,
      [id],
    );
    const at = toStoredInstant(now);
    return {
      ...frameworkFromRow(row),
      buyers,
      suppliers,
      callOffs: callOffs.map((callOff) => tenderListItemFromRow(callOff, at)),
    };
  }

  /** Counts of every kind of public record, for the command line and the import tests. */
  counts(): { tenders: number; buyers: number; suppliers: number; frameworks: number; callOffs: number } {
    return this.statements.get(
      `SELECT (SELECT count(*) FROM tenders) AS tenders, (SELECT count(*) FROM buyers) AS buyers,
        (SELECT count(*) FROM suppliers) AS suppliers, (SELECT count(*) FROM frameworks) AS frameworks,
        (SELECT count(*) FROM tenders WHERE framework_id IS NOT NULL) AS callOffs`,
      [],
    ) as { tenders: number; buyers: number; suppliers: number; frameworks: number; callOffs: number };
  }

  private listOrganisations(
    table: 'buyers' | 'suppliers',
    wordsTable: 'buyer_words' | 'supplier_words',
    query: DirectoryQuery,
    now: string,
  ): { rows: OrganisationRow[]; total: number } {
    const conditions: string[] = [];
    const params: Record<string, unknown> = { limit: query.limit, offset: query.offset };
    const match = wordsToMatchExpression(query.q);
    if (match) {
      conditions.push(`o.rowid IN (SELECT rowid FROM ${wordsTable} WHERE ${wordsTable} MATCH @match)`);
      params.match = match;
    }
    if (query.region) {
      conditions.push('o.region = @region COLLATE NOCASE');
      params.region = query.region;
    }
    const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
    const noticeCount =
      table === 'buyers'
        ? '(SELECT count(*) FROM tenders t WHERE t.buyer_id = o.id)'
        : '(SELECT count(*) FROM tender_suppliers ts WHERE ts.supplier_id = o.id)';
    const rows = this.statements.all<OrganisationRow>(
      `SELECT o.*, ${noticeCount} AS notice_count FROM ${table} o ${where}
       ORDER BY o.name COLLATE NOCASE, o.id LIMIT @limit OFFSET @offset`,
      params,
    );
    const total = this.total(`SELECT count(*) AS total FROM ${table} o ${where}`, params, now);
    return { rows, total };
  }
}

/**
 * The tender ids a printed reference can stand for: itself, and itself after each known
 * publisher's ocid prefix (a Contracts Finder notice id, a Buyandsell number), as written, in
 * upper case and in lower case (ids are compared exactly; references are printed either way).
 */
function idsForReference(reference: string): string[] {
  const forms = new Set([reference, reference.toUpperCase(), reference.toLowerCase()]);
  const ids = new Set(forms);
  for (const [prefix] of SOURCES_BY_OCID_PREFIX) for (const form of forms) ids.add(`${prefix}${form}`);
  return [...ids];
}

/** The condition that a tender (`t`) matches `match`, its expressions bound in `params`. */
function tenderKeysMatching(match: TenderWordMatch, params: Record<string, unknown>): string {
  const conditions: string[] = [];
  if (match.phrases !== null) {
    params.phrases = match.phrases;
    conditions.push(
      't.sort_key IN (SELECT rowid FROM tender_exact_words WHERE tender_exact_words MATCH @phrases)',
    );
  }
  if (match.words !== null) {
    params.match = match.words;
    conditions.push('t.sort_key IN (SELECT rowid FROM tender_words WHERE tender_words MATCH @match)');
  }
  return conditions.join(' AND ');
}

/**
 * A tender's value in `currency` by the rule of src/service/money/reference-rates.ts, as SQL:
 * its amount times its currency's factor (bound as parameters, the very numbers the filter index
 * multiplies by), NULL for a currency without a rate, which then passes no bound.
 */
function convertedValueSql(currency: ValueCurrency, params: Record<string, unknown>): string {
  const cases = EXCHANGEABLE_CURRENCIES.map((from, index) => {
    params[`valueFactor${index}`] = conversionFactor(from, currency);
    return `WHEN '${from}' THEN @valueFactor${index}`;
  });
  return `(t.value_amount * (CASE coalesce(t.value_currency, '${STORED_CURRENCY_WHEN_NONE}') ${cases.join(' ')} END))`;
}

function hasFilter(query: TenderSearchQuery): boolean {
  // A currency without a value bound filters nothing.
  const { q: _q, limit: _limit, offset: _offset, currency: _currency, ...filters } = query;
  return Object.values(filters).some((value) => value !== undefined);
}

/** The query's filters as TenderFilterIndex takes them: the same bounds as the SQL below. */
function filtersOf(query: TenderSearchQuery): TenderFilters {
  const filters: TenderFilters = {
    status: query.status,
    buyerId: query.buyerId,
    region: query.region,
    valueMin: query.valueMin,
    valueMax: query.valueMax,
    valueCurrency: query.currency ?? DEFAULT_VALUE_CURRENCY,
  };
  if (query.cpv) {
    filters.cpvLow = query.cpv;
    filters.cpvHigh = `${query.cpv}:`;
  }
  if (query.publishedFrom) filters.publishedFrom = lowerBound(query.publishedFrom);
  if (query.publishedTo) filters.publishedTo = upperBoundExclusive(query.publishedTo);
  if (query.deadlineFrom) filters.deadlineFrom = lowerBound(query.deadlineFrom);
  if (query.deadlineTo) filters.deadlineTo = upperBoundExclusive(query.deadlineTo);
  return filters;
}

function addInstantRange(
  conditions: string[],
  params: Record<string, unknown>,
  column: string,
  name: string,
  from: string | undefined,
  to: string | undefined,
): void {
  if (from) {
    conditions.push(`${column} >= @${name}From`);
    params[`${name}From`] = lowerBound(from);
  }
  if (to) {
    conditions.push(`${column} < @${name}To`);
    params[`${name}To`] = upperBoundExclusive(to);
  }
}

/** Stored instants are whole seconds in `YYYY-MM-DDTHH:MM:SSZ`, so bounds are written the same way. */
export function toStoredInstant(value: string | Date): string {
  const date = typeof value === 'string' ? new Date(value) : value;
  return `${date.toISOString().slice(0, 19)}Z`;
}

function lowerBound(value: string): string {
  return value.length === 10 ? `${value}T00:00:00Z` : toStoredInstant(value);
}

/** A date includes its whole day; an instant includes its own second. */
function upperBoundExclusive(value: string): string {
  if (value.length === 10) {
    const next = new Date(`${value}T00:00:00Z`);
    next.setUTCDate(next.getUTCDate() + 1);
    return toStoredInstant(next);
  }
  return toStoredInstant(new Date(Math.floor(Date.parse(value) / 1000) * 1000 + 1000));
}

/**
 * The status a person should see at `now` (stored format): a tender stored as open is closed
 * once its closing instant has passed. The same rule as the `status` filter of searchTenders.
 */
export function statusAt(row: Pick<TenderRow, 'status' | 'open_until'>, now: string): Tender['status'] {
  return row.status === 'open' && row.open_until !== null && row.open_until <= now ? 'closed' : row.status;
}

/** A tender as the API shows it at `now` (stored format, see toStoredInstant). */
export function tenderFromRow(row: TenderRow, now: string): Tender {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    status: statusAt(row, now),
    buyer: row.buyer_id ? { id: row.buyer_id, name: row.buyer_name ?? '' } : null,
    value:
      row.value_amount !== null ? { amount: row.value_amount, currency: row.value_currency ?? 'GBP' } : null,
    publishedAt: row.published_at,
    deadline: row.deadline,
    awardedAt: row.awarded_at,
    region: row.region,
    cpvCodes: JSON.parse(row.cpv_codes),
    source: { name: row.source_name, id: row.source_id },
    url: row.url,
    frameworkId: row.framework_id,
    suppliers: JSON.parse(row.suppliers),
  };
}

/** List items: the same fields, with the description shortened. */
export function tenderListItemFromRow(row: TenderRow, now: string): Tender {
  const tender = tenderFromRow(row, now);
  tender.description = shorten(tender.description, LIST_DESCRIPTION_LENGTH);
  return tender;
}

/** Cuts text to at most `length` characters (UTF-16 units, so code points too), marking the cut with an ellipsis. */
export function shorten(text: string | null, length: number): string | null {
  return text === null ? null : cutText(text, length, '…');
}

function supplierFromRow(row: OrganisationRow): Supplier {
  return {
    id: row.id,
    name: row.name,
    region: row.region,
    locality: row.locality,
    postalCode: row.postal_code,
    countryCode: row.country_code,
    identifiers: JSON.parse(row.identifiers),
    website: row.website,
    noticeCount: row.notice_count,
  };
}

function buyerFromRow(row: OrganisationRow): Buyer {
  return { ...supplierFromRow(row), type: row.type ?? null };
}

function frameworkFromRow(row: FrameworkRow): Framework {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    type: row.type,
    owner: row.owner_id ? { id: row.owner_id, name: row.owner_name ?? '' } : null,
    startDate: row.start_date,
    endDate: row.end_date,
    value:
      row.value_amount !== null ? { amount: row.value_amount, currency: row.value_currency ?? 'GBP' } : null,
    url: row.url,
    lots: JSON.parse(row.lots),
    supplierCount: row.supplier_count,
    callOffCount: row.call_off_count,
  };
}
