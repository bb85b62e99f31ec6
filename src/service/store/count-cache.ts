import type { SqliteDatabase } from './database.ts';

export const DEFAULT_COUNT_CACHE_SIZE = 2000;

/** Bumped by anything in this process that rewrites public records (see PublicRecordsWriter.finish). */
const generations = new WeakMap<SqliteDatabase, number>();

export function markPublicRecordsChanged(db: SqliteDatabase): void {
  generations.set(db, (generations.get(db) ?? 0) + 1);
}

/**
 * Totals of public-record queries, remembered while the data cannot have changed. Counting every
 * hit of a common word costs more than reading the page itself, and the same query is counted
 * again for every page of it. `PRAGMA data_version` moves when another connection commits (an
 * import from the command line); the generation moves when this process rewrites the records.
 */
export class CountCache {
  private readonly totals = new Map<string, number>();
  private version = '';

  constructor(
    private readonly db: SqliteDatabase,
    private readonly capacity = DEFAULT_COUNT_CACHE_SIZE,
  ) {}

  get(key: string, count: () => number): number {
    if (this.capacity === 0) return count();
    const version = `${this.db.pragma('data_version', { simple: true })}:${generations.get(this.db) ?? 0}`;
    if (version !== this.version) {
      this.totals.clear();
      this.version = version;
    }
    const known = this.totals.get(key);
    if (known !== undefined) {
      // Re-insert so that the map's order is least recently used first.
      this.totals.delete(key);
      this.totals.set(key, known);
      return known;
    }
    const total = count();
    if (this.totals.size >= this.capacity) {
      const oldest = this.totals.keys().next().value;
      if (oldest !== undefined) this.totals.delete(oldest);
    }
    this.totals.set(key, total);
    return total;
  }
}
