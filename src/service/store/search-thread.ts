import { parentPort, type Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { SqliteDatabase } from './database.ts';
import { startStoreWorker, workerOfTask } from './store-worker.ts';
import { TenderFilterIndex, type TenderFilters, type TenderWordMatch } from './tender-filter-index.ts';

/** One word search for the thread: filters null for words alone (TenderFilterIndex.searchWords). */
export interface ThreadSearch {
  match: TenderWordMatch;
  filters: TenderFilters | null;
  /** The service's now, in stored format. */
  now: string;
  offset: number;
  limit: number;
}

/** What the thread found, and the records' version it was found at (public_records_meta). */
export interface ThreadFound {
  sortKeys: number[];
  total: number;
  recordsVersion: string;
}

type Reply = { ready: true } | { id: number; found: ThreadFound | null };

/**
 * A word search's costly part (the word's hits from the index's pages, and the walk of the filter
 * columns over them) in a thread of its own, over its own read-only connection and its own filter
 * index: a service on two cores answers with both, the request thread parsing, checking keys and
 * reading rows while this one walks. At a million tenders a first filtered search is about 1 ms of
 * walking for 0.3 ms of the rest.
 *
 * Until the thread has read its columns (`whenReady`), and for good once it has failed, `search`
 * answers null and the caller searches on its own thread, as without one. The answer says the
 * records' version it was read at: the caller reads the page's rows at the same version or not at
 * all (see PublicRecordsReader.searchTendersAsync).
 */
export class SearchThread {
  private readonly worker: Worker;
  private ready = false;
  private failed = false;
  private nextId = 0;
  /** Searches the thread has answered with a page (not null). */
  answered = 0;
  private readonly pending = new Map<number, (found: ThreadFound | null) => void>();
  private readonly waiting: ((ready: boolean) => void)[] = [];

  /** Starts the thread on `file`; `wordHitsBudget` as the caller's own index keeps (0: nothing kept). */
  constructor(file: string, wordHitsBudget: number, onFailure: (error: unknown) => void = () => {}) {
    this.worker = startStoreWorker(import.meta.url, SEARCH_TASK, { file, wordHitsBudget });
    this.worker.on('message', (reply: Reply) => {
      if ('ready' in reply) {
        this.ready = true;
        this.settle(true);
        return;
      }
      const resolve = this.pending.get(reply.id);
      // Late (its caller searched alone meanwhile): dropped.
      if (!resolve) return;
      this.pending.delete(reply.id);
      if (reply.found) this.answered++;
      resolve(reply.found);
    });
    const failed = (error: unknown) => {
      if (this.failed) return;
      this.failed = true;
      this.ready = false;
      for (const resolve of this.pending.values()) resolve(null);
      this.pending.clear();
      this.settle(false);
      onFailure(error);
    };
    this.worker.once('error', failed);
    this.worker.once('exit', (code) => failed(new Error(`the search thread ended (exit code ${code})`)));
    // A 'message' listener refs the thread again: it must never keep the process alive (a start
    // that failed would hang, deaf to SIGTERM).
    this.worker.unref();
  }

  /** Resolves with true once the thread answers searches, false if it failed first. */
  whenReady(): Promise<boolean> {
    if (this.ready) return Promise.resolve(true);
    if (this.failed) return Promise.resolve(false);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** True once the thread has failed (or was closed): it will never answer. */
  get failedForGood(): boolean {
    return this.failed;
  }

  /** True while the thread answers: a search can be sent to it. */
  get answering(): boolean {
    return this.ready && !this.failed;
  }

  /** The page's sort keys and the total, from the thread; null when it cannot answer (then search here). */
  search(search: ThreadSearch): Promise<ThreadFound | null> {
    if (!this.answering) return Promise.resolve(null);
    const id = this.nextId++;
    return new Promise((resolve) => {
      // A thread that is alive but does not answer in time (a lock wait, a long walk) is not
      // waited for: the caller searches on its own thread, and the late answer is dropped.
      const timer = setTimeout(() => {
        if (this.pending.delete(id)) resolve(null);
      }, SEARCH_TIMEOUT_MS);
      timer.unref();
      this.pending.set(id, (found) => {
        clearTimeout(timer);
        resolve(found);
      });
      this.worker.postMessage({ id, search });
    });
  }

  async close(): Promise<void> {
    this.failed = true;
    for (const resolve of this.pending.values()) resolve(null);
    this.pending.clear();
    this.settle(false);
    await this.worker.terminate();
  }

  private settle(ready: boolean): void {
    for (const resolve of this.waiting.splice(0)) resolve(ready);
  }
}

const SEARCH_TASK = 'tenderbot/search-thread';
/** How long a search waits for the thread before it is made on the caller's thread. */
const SEARCH_TIMEOUT_MS = 2000;
/** Searches failing one after another before the thread gives up (then the caller searches alone). */
const FAILURES_TO_GIVE_UP = 3;
const RECORDS_VERSION = "SELECT value FROM public_records_meta WHERE key = 'records_version'";

/**
 * In the thread: its own connection and index, whose columns are read by a worker of its own (at
 * the start and after every rewrite, so that no search waits 5 s at a million tenders behind a
 * read: meanwhile filtered searches answer null and the caller uses SQL); "ready" once the first
 * read is in; then searches. Searches failing one after another end the thread.
 */
async function serveSearches(file: string, wordHitsBudget: number): Promise<void> {
  const port = parentPort;
  if (!port) return;
  const db = new Database(file, { readonly: true, fileMustExist: true }) as SqliteDatabase;
  db.pragma('busy_timeout = 5000');
  const index = new TenderFilterIndex(db, wordHitsBudget);
  index.buildInBackground(file);
  if (!(await index.whenReady())) throw new Error('the search thread could not read the filter columns');
  const recordsVersion = db.prepare(RECORDS_VERSION).pluck();
  let failures = 0;
  port.postMessage({ ready: true } satisfies Reply);
  port.on('message', ({ id, search }: { id: number; search: ThreadSearch }) => {
    let found: ThreadFound | null = null;
    try {
      // The version first: a change after it is seen by the caller's own check, never hidden.
      const version = (recordsVersion.get() as string | undefined) ?? '';
      const page =
        search.filters === null
          ? index.searchWords(search.match, search.offset, search.limit)
          : index.search(search.match, search.filters, search.now, search.offset, search.limit);
      if (page) found = { sortKeys: page.sortKeys, total: page.total, recordsVersion: version };
      failures = 0;
    } catch (error) {
      // Answered on the caller's thread instead; one failure after another ends this thread.
      failures++;
      if (failures >= FAILURES_TO_GIVE_UP) {
        port.postMessage({ id, found: null } satisfies Reply);
        throw error;
      }
    }
    port.postMessage({ id, found } satisfies Reply);
  });
}

const task = workerOfTask<{ file: string; wordHitsBudget: number }>(SEARCH_TASK);
if (task)
  serveSearches(task.file, task.wordHitsBudget).catch((error: unknown) => {
    // Ends the thread: the caller hears 'error' and searches alone from then on.
    throw error;
  });
