import type { Statement } from 'better-sqlite3';
import { publicRecordsVersion } from './count-cache.ts';
import type { SqliteDatabase } from './database.ts';

/** A word of a search that found nothing, and the word of the data it most likely meant. */
export interface WordSuggestion {
  word: string;
  correction: string;
}

/** A word of the data, the tenders holding it, and its place in the vocabulary's order. */
interface VocabularyTerm {
  term: string;
  tenders: number;
  order: number;
}

/** Words shorter than this are not corrected (too many near neighbours to mean anything). */
const SHORTEST_CORRECTED = 4;

/**
 * Suggestions for misspelt words from the data's own vocabulary: the words as written in the
 * tenders (tender_vocabulary, over tender_exact_words), each with the number of tenders holding
 * it. A word that finds nothing gets the vocabulary word nearest to it by edit distance (at most
 * 1 for words of up to 5 letters, else 2; a swap of two neighbouring letters counts 1), the one
 * in most tenders among equals. The vocabulary is read once per version of the public records
 * (a full read of the index: about a second at a million tenders) and only when asked.
 */
export class WordSuggestions {
  private version: string | null = null;
  private termsByLength = new Map<number, VocabularyTerm[]>();
  private hasHits: Statement | null = null;

  constructor(private readonly db: SqliteDatabase) {}

  /** For each of `words` that alone finds no tender, its correction when one is near enough. */
  suggest(words: string[]): WordSuggestion[] {
    const suggestions: WordSuggestion[] = [];
    // Prepared once: a search that found nothing asks it for every word.
    this.hasHits ??= this.db.prepare('SELECT 1 FROM tender_words WHERE tender_words MATCH ? LIMIT 1').pluck();
    const hasHits = this.hasHits;
    for (const word of new Set(words.map((each) => each.toLowerCase()))) {
      if ([...word].length < SHORTEST_CORRECTED || /^\d+$/.test(word)) continue;
      if (hasHits.get(`"${word}"*`) !== undefined) continue;
      const correction = this.nearest(word);
      if (correction !== null) suggestions.push({ word, correction });
    }
    return suggestions;
  }

  private nearest(word: string): string | null {
    const limit = [...word].length <= 5 ? 1 : 2;
    let best: { term: string; distance: number; tenders: number; order: number } | null = null;
    const byLength = this.vocabulary();
    // Only terms whose length is within the limit can be near enough: their lists alone are read.
    for (let length = word.length - limit; length <= word.length + limit; length++) {
      for (const { term, tenders, order } of byLength.get(length) ?? []) {
        const distance = editDistance(word, term, limit);
        if (distance > limit) continue;
        // Among equals, the term first in the vocabulary's own order, as when it was read in one list.
        if (
          best === null ||
          distance < best.distance ||
          (distance === best.distance &&
            (tenders > best.tenders || (tenders === best.tenders && order < best.order)))
        ) {
          best = { term, distance, tenders, order };
        }
      }
    }
    return best?.term ?? null;
  }

  /** The vocabulary by term length (UTF-16 units, as editDistance compares), in the table's order. */
  private vocabulary(): Map<number, VocabularyTerm[]> {
    const version = publicRecordsVersion(this.db);
    if (version !== this.version) {
      const terms = this.db.prepare('SELECT term, doc AS tenders FROM tender_vocabulary').all() as {
        term: string;
        tenders: number;
      }[];
      this.termsByLength = new Map();
      for (const [order, { term, tenders }] of terms.entries()) {
        if (term.length < SHORTEST_CORRECTED - 1 || /\d/.test(term)) continue;
        const entry = { term, tenders, order };
        const sameLength = this.termsByLength.get(entry.term.length);
        if (sameLength) sameLength.push(entry);
        else this.termsByLength.set(entry.term.length, [entry]);
      }
      this.version = version;
    }
    return this.termsByLength;
  }
}

/**
 * Optimal string alignment distance (insertions, deletions, substitutions, and a swap of two
 * neighbouring letters, each 1), stopping early once every path exceeds `limit`.
 */
export function editDistance(a: string, b: string, limit: number): number {
  const columns = b.length + 1;
  // Three rows reused from call to call: a search that found nothing compares every term near its length.
  if (rowScratch.length < columns * 3) rowScratch = new Int32Array(columns * 3 * 2);
  let previousPrevious = rowScratch.subarray(0, columns).fill(0);
  let previous = rowScratch.subarray(columns, columns * 2);
  let current = rowScratch.subarray(columns * 2, columns * 3);
  for (let j = 0; j < columns; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current.fill(0);
    current[0] = i;
    let rowBest = i;
    for (let j = 1; j < columns; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, (previousPrevious[j - 2] as number) + 1);
      current[j] = value;
      if (value < rowBest) rowBest = value;
    }
    if (rowBest > limit) return limit + 1;
    const oldest = previousPrevious;
    previousPrevious = previous;
    previous = current;
    current = oldest;
  }
  return previous[columns - 1] as number;
}

let rowScratch = new Int32Array(96);
