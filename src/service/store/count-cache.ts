import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './database.ts';

export const DEFAULT_COUNT_CACHE_SIZE = 2000;

/** A remembered total is forgotten after this long, whatever else happens. */
export const DEFAULT_COUNT_CACHE_TTL_MS = 5 * 60_000;

/** Bumped by anything in this process that rewrites public records (see PublicRecordsWriter.finish). */
const generations = new WeakMap<SqliteDatabase, number>();

/**
 * Only alongside a new records_version committed with the change (PublicRecordsWriter.finish):
 * other connections (a search thread, another process) see the version, never this generation.
 */
export function markPublicRecordsChanged(db: SqliteDatabase): void {
  generations.set(db, (generations.get(db) ?? 0) + 1);
}

const versionReads = new WeakMap<SqliteDatabase, Statement>();

/**
 * Changes whenever the public records are rewritten, by this process or another: the note
 * PublicRecordsWriter.finish() commits with every rewrite, and this process's generation.
 * Unlike `PRAGMA data_version`, a bookmark or comment written by another process leaves it alone,
 * so what is costly to rebuild (TenderFilterIndex) is rebuilt only when tenders changed.
 */
export function publicRecordsVersion(db: SqliteDatabase): string {
  let read = versionReads.get(db);
  if (!read) {
    read = db.prepare("SELECT value FROM public_records_meta WHERE key = 'records_version'").pluck();
    versionReads.set(db, read);
  }
  return `${(read.get() as string | undefined) ?? ''}:${generations.get(db) ?? 0}`;
}

interface Entry {
  total: number;
  storedAt: number;
}

/**
 * Totals of public-record queries, remembered while they cannot have changed. Counting every
 * hit of a common word costs more than reading the page itself, and the same query is counted
 * again for every page of it.
 *
 * A total goes stale in three ways, and each one empties the cache:
 * - the data changes: `PRAGMA data_version` moves when another connection commits (an import from
 *   the command line), the generation when this process rewrites the records;
 * - the clock passes a tender's closing instant (a status depends on the time of the query), so
 *   totals are kept only for a window of time in which no tender opens or closes;
 * - an entry older than the time limit is forgotten, so the cache is bounded in time and in size.
 */
export class CountCache {
  private readonly totals = new Map<string, Entry>();
  private version = '';
  /** Service instants (stored format) within which no tender's status changes; end exclusive. */
  private windowStart = '';
  private windowEnd = '';

  constructor(
    private readonly db: SqliteDatabase,
    private readonly capacity = DEFAULT_COUNT_CACHE_SIZE,
    private readonly ttlMs = DEFAULT_COUNT_CACHE_TTL_MS,
    private readonly monotonicNow: () => number = () => performance.now(),
  ) {}

  /** `now` is the query's instant in stored format (`YYYY-MM-DDTHH:MM:SSZ`). */
  get(key: string, now: string, count: () => number): number {
    if (this.capacity === 0) return count();
    const version = `${this.db.pragma('data_version', { simple: true })}:${generations.get(this.db) ?? 0}`;
    if (version !== this.version || now < this.windowStart || now >= this.windowEnd) {
      this.totals.clear();
      this.version = version;
      this.windowStart = now;
      this.windowEnd = this.nextStatusChangeAfter(now);
    }
    const known = this.totals.get(key);
    const at = this.monotonicNow();
    if (known !== undefined && at - known.storedAt < this.ttlMs) {
      // Re-insert so that the map's order is least recently used first.
      this.totals.delete(key);
      this.totals.set(key, known);
      return known.total;
    }
    this.totals.delete(key);
    const total = count();
    if (this.totals.size >= this.capacity) {
      const oldest = this.totals.keys().next().value;
      if (oldest !== undefined) this.totals.delete(oldest);
    }
    this.totals.set(key, { total, storedAt: at });
    return total;
  }

  /** How many totals are held (for tests of the bounds). */
  get size(): number {
    return this.totals.size;
  }

  /** The first instant after `now` at which a tender stops being open; far future when none. */
  private nextStatusChangeAfter(now: string): string {
    const row = this.db
      .prepare('SELECT min(open_until) AS next FROM tenders WHERE open_until > ?')
      .get(now) as { next: string | null };
    return row.next ?? '9999-12-31T23:59:59Z';
  }
}
