import type { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import { publicRecordsVersion } from './count-cache.ts';
import type { SqliteDatabase } from './database.ts';
import { postVersionedRead, startStoreWorker, type VersionedRead, workerOfTask } from './store-worker.ts';

/** A word of a search that found nothing, and the word of the data it most likely meant. */
export interface WordSuggestion {
  word: string;
  correction: string;
}

/**
 * The vocabulary's terms of one length (UTF-16 units, as editDistance compares), packed in the
 * table's order: term i is `units[i * length, (i + 1) * length)`, held by `tenders[i]` tenders,
 * at place `order[i]` in the whole vocabulary. Typed arrays, so that a worker hands them over
 * without a copy and the request thread builds no object per term.
 */
interface TermsOfLength {
  units: Uint16Array;
  tenders: Int32Array;
  order: Int32Array;
}

type Vocabulary = Map<number, TermsOfLength>;

/** Words shorter than this are not corrected (too many near neighbours to mean anything). */
const SHORTEST_CORRECTED = 4;

/**
 * Suggestions for misspelt words from the data's own vocabulary: the words as written in the
 * tenders (tender_vocabulary, over tender_exact_words), each with the number of tenders holding
 * it. A word that finds nothing gets the vocabulary word nearest to it by edit distance (at most
 * 1 for words of up to 5 letters, else 2; a swap of two neighbouring letters counts 1), the one
 * in most tenders among equals.
 *
 * Reading the vocabulary walks the whole word index (130 ms of CPU at 100,000 tenders, about a
 * second at a million). By default it is read here, once per version of the public records, on
 * the first search that needs it. After `readInBackground(file)` a request never reads it: when
 * the records change, a worker thread reads it again over its own read-only connection, and
 * until it arrives the vocabulary already held answers (none before the first read; see
 * `readNow` for reading it before serving).
 */
export class WordSuggestions {
  private vocabulary: Vocabulary | null = null;
  /** The public records' version the vocabulary was read at (see publicRecordsVersion). */
  private vocabularyVersion: string | null = null;
  private background: Background | null = null;
  private readonly waiting: ((ready: boolean) => void)[] = [];
  private hasHits: Statement | null = null;
  private readsHere = 0;

  constructor(private readonly db: SqliteDatabase) {}

  /** For each of `words` that alone finds no tender, its correction when one is near enough. */
  suggest(words: string[]): WordSuggestion[] {
    const suggestions: WordSuggestion[] = [];
    // Prepared once: a search that found nothing asks it for every word.
    this.hasHits ??= this.db.prepare('SELECT 1 FROM tender_words WHERE tender_words MATCH ? LIMIT 1').pluck();
    const hasHits = this.hasHits;
    let vocabulary: Vocabulary | null | undefined;
    for (const word of new Set(words.map((each) => each.toLowerCase()))) {
      if ([...word].length < SHORTEST_CORRECTED || /^\d+$/.test(word)) continue;
      if (hasHits.get(`"${word}"*`) !== undefined) continue;
      vocabulary ??= this.current();
      if (vocabulary === null) break;
      const correction = nearest(word, vocabulary);
      if (correction !== null) suggestions.push({ word, correction });
    }
    return suggestions;
  }

  /**
   * From now on the vocabulary is read again in a worker thread, over a read-only connection of
   * its own to `file` (this database), whenever the records change; never on a request. A
   * `:memory:` database cannot be shared: there it stays read on first use.
   */
  readInBackground(file: string): void {
    if (this.background || file === ':memory:' || file === '') return;
    this.background = { file, worker: null, starting: false, failed: false };
  }

  /** Reads the vocabulary on this thread now unless it is current: before serving, when no request waits. */
  readNow(): void {
    const version = publicRecordsVersion(this.db);
    if (version !== this.vocabularyVersion) this.readHere(version);
  }

  /**
   * Resolves with true once the vocabulary of the records as they are now is held (starting its
   * read in the background if none is under way), false if the background read failed or stopped.
   */
  whenReady(): Promise<boolean> {
    const version = publicRecordsVersion(this.db);
    if (version === this.vocabularyVersion) return Promise.resolve(true);
    const background = this.background;
    if (!background || background.failed) {
      this.readHere(version);
      return Promise.resolve(true);
    }
    this.startWorker(background);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** How many times the vocabulary was read on this thread (what a request must never wait for). */
  get vocabularyReadsOnThisThread(): number {
    return this.readsHere;
  }

  /** Stops a background read under way (the database is about to close). */
  async close(): Promise<void> {
    const background = this.background;
    this.background = null;
    this.settle(false);
    await background?.worker?.terminate();
  }

  /** The vocabulary to suggest from now: current, or what is held while the worker reads it again. */
  private current(): Vocabulary | null {
    const version = publicRecordsVersion(this.db);
    if (version === this.vocabularyVersion) return this.vocabulary;
    const background = this.background;
    if (background && !background.failed) {
      // Started once this request's answer is on its way: creating a worker costs 1–3 ms itself.
      if (!background.worker && !background.starting) {
        background.starting = true;
        setImmediate(() => {
          background.starting = false;
          if (this.background === background && !background.failed && this.db.open)
            this.startWorker(background);
        });
      }
      return this.vocabulary;
    }
    this.readHere(version);
    return this.vocabulary;
  }

  private readHere(version: string): void {
    this.vocabulary = readVocabulary(this.db);
    this.vocabularyVersion = version;
    this.readsHere++;
    this.settle(true);
  }

  private startWorker(background: Background): void {
    if (background.worker) return;
    const expected = publicRecordsVersion(this.db);
    const worker = startStoreWorker(import.meta.url, VOCABULARY_TASK, { file: background.file });
    background.worker = worker;
    const done = () => {
      if (background.worker === worker) background.worker = null;
      void worker.terminate();
    };
    worker.once('message', (message: VersionedRead<Vocabulary>) => {
      done();
      if (this.background !== background) return;
      // A database closed without close() first: nothing to keep, and nothing to throw from here.
      if (!this.db.open) {
        this.background = null;
        this.settle(false);
        return;
      }
      const current = publicRecordsVersion(this.db);
      // Kept only if the records did not change since the read began; else read again for whoever waits.
      if (current === expected && current === `${message.recordsVersion}:${current.split(':').pop()}`) {
        this.vocabulary = message.read;
        this.vocabularyVersion = current;
        this.settle(true);
      } else if (this.waiting.length > 0) {
        this.startWorker(background);
      }
    });
    const failed = () => {
      if (background.worker !== worker) return;
      done();
      // Read here on the next search instead, as without a background read.
      background.failed = true;
      this.settle(false);
    };
    worker.once('error', failed);
    // Ended without an answer (not by close(), which forgets the read first).
    worker.once('exit', failed);
  }

  private settle(ready: boolean): void {
    for (const resolve of this.waiting.splice(0)) resolve(ready);
  }
}

/**
 * The vocabulary term nearest to `word` within its edit limit: fewest edits, then most tenders,
 * then first in the vocabulary's order. Only terms whose length is within the limit can be near
 * enough: their lists alone are read.
 */
function nearest(word: string, vocabulary: Vocabulary): string | null {
  const limit = [...word].length <= 5 ? 1 : 2;
  const wordUnits = unitsOf(word);
  let best: { units: Uint16Array; distance: number; tenders: number; order: number } | null = null;
  for (let length = word.length - limit; length <= word.length + limit; length++) {
    const terms = vocabulary.get(length);
    if (terms === undefined) continue;
    const { units, tenders, order } = terms;
    for (let index = 0; index < tenders.length; index++) {
      const distance = unitsDistance(wordUnits, units, index * length, length, limit);
      if (distance > limit) continue;
      const termTenders = tenders[index] as number;
      const termOrder = order[index] as number;
      if (
        best === null ||
        distance < best.distance ||
        (distance === best.distance &&
          (termTenders > best.tenders || (termTenders === best.tenders && termOrder < best.order)))
      ) {
        best = {
          units: units.subarray(index * length, (index + 1) * length),
          distance,
          tenders: termTenders,
          order: termOrder,
        };
      }
    }
  }
  return best === null ? null : String.fromCharCode(...best.units);
}

/**
 * The vocabulary by term length, in the table's order: terms of 3 letters or more without digits
 * (shorter words are not corrected, and a correction is never a number).
 */
function readVocabulary(db: Database.Database): Vocabulary {
  const rows = db.prepare('SELECT term, doc FROM tender_vocabulary').raw(true).iterate() as IterableIterator<
    [string, number]
  >;
  const lists = new Map<number, { terms: string[]; tenders: number[]; order: number[] }>();
  let order = 0;
  for (const [term, tenders] of rows) {
    const place = order++;
    if (term.length < SHORTEST_CORRECTED - 1 || /\d/.test(term)) continue;
    let list = lists.get(term.length);
    if (!list) {
      list = { terms: [], tenders: [], order: [] };
      lists.set(term.length, list);
    }
    list.terms.push(term);
    list.tenders.push(tenders);
    list.order.push(place);
  }
  const vocabulary: Vocabulary = new Map();
  for (const [length, list] of lists) {
    const units = new Uint16Array(list.terms.length * length);
    for (const [index, term] of list.terms.entries())
      for (let at = 0; at < length; at++) units[index * length + at] = term.charCodeAt(at);
    vocabulary.set(length, {
      units,
      tenders: Int32Array.from(list.tenders),
      order: Int32Array.from(list.order),
    });
  }
  return vocabulary;
}

function unitsOf(text: string): Uint16Array {
  const units = new Uint16Array(text.length);
  for (let at = 0; at < text.length; at++) units[at] = text.charCodeAt(at);
  return units;
}

/**
 * Optimal string alignment distance (insertions, deletions, substitutions, and a swap of two
 * neighbouring letters, each 1), stopping early once every path exceeds `limit`.
 */
export function editDistance(a: string, b: string, limit: number): number {
  return unitsDistance(unitsOf(a), unitsOf(b), 0, b.length, limit);
}

/** editDistance between `a` and the `bLength` units of `bUnits` from `bStart`. */
function unitsDistance(
  a: Uint16Array,
  bUnits: Uint16Array,
  bStart: number,
  bLength: number,
  limit: number,
): number {
  const columns = bLength + 1;
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
    const ai = a[i - 1] as number;
    for (let j = 1; j < columns; j++) {
      const bj = bUnits[bStart + j - 1] as number;
      let value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (ai === bj ? 0 : 1),
      );
      if (i > 1 && j > 1 && ai === bUnits[bStart + j - 2] && a[i - 2] === bj)
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

interface Background {
  file: string;
  worker: Worker | null;
  /** A worker's start is scheduled (see current). */
  starting: boolean;
  /** The worker failed: the vocabulary is read on this thread, as without a background read. */
  failed: boolean;
}

const VOCABULARY_TASK = 'tenderbot/word-vocabulary';

const vocabularyTask = workerOfTask<{ file: string }>(VOCABULARY_TASK);
// In the worker: the vocabulary, moved (each array owns its whole buffer).
if (vocabularyTask)
  postVersionedRead(vocabularyTask.file, readVocabulary, (vocabulary) =>
    [...vocabulary.values()].flatMap(({ units, tenders, order }) => [
      units.buffer as ArrayBuffer,
      tenders.buffer as ArrayBuffer,
      order.buffer as ArrayBuffer,
    ]),
  );
