import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/**
 * A worker thread that loads `module` (a store module's import.meta.url) with `data` as its
 * workerData; the module's own last lines see `task` in workerOfTask and do the work. Used for
 * reads too long for the request thread (the filter index's columns, the words' vocabulary).
 * Unreferenced: a read under way never keeps the process alive.
 */
export function startStoreWorker(module: string, task: string, data: Record<string, unknown>): Worker {
  const worker = new Worker(WORKER_BOOT, {
    eval: true,
    workerData: { ...data, task, module, loader: tsxLoader(module) },
  });
  worker.unref();
  return worker;
}

/** In a worker started by startStoreWorker for `task`: its data; null anywhere else. */
export function workerOfTask<T>(task: string): T | null {
  if (isMainThread) return null;
  const data = workerData as { task?: unknown } | null;
  return data?.task === task ? (data as T) : null;
}

/** What a store worker hands back: what it read, and the records' version it was read at. */
export interface VersionedRead<T> {
  recordsVersion: string;
  read: T;
}

/**
 * In a worker: reads `read(db)` and the records' version in one read transaction on a read-only
 * connection to `file`, and moves the result to the caller (the `buffers` of `transferables`, not copies).
 */
export function postVersionedRead<T>(
  file: string,
  read: (db: Database.Database) => T,
  transferables: (value: T) => ArrayBuffer[],
): void {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const message: VersionedRead<T> = db.transaction(() => ({
      recordsVersion:
        (db.prepare("SELECT value FROM public_records_meta WHERE key = 'records_version'").pluck().get() as
          | string
          | undefined) ?? '',
      read: read(db),
    }))();
    parentPort?.postMessage(message, transferables(message.read));
  } finally {
    db.close();
  }
}

/**
 * The worker's entry: it loads the module (through tsx when it is TypeScript, as the process
 * itself runs it), whose last lines then do the task.
 */
const WORKER_BOOT = `
const { workerData } = require('node:worker_threads');
const loaded = workerData.loader ? import(workerData.loader).then((tsx) => tsx.register()) : Promise.resolve();
loaded.then(() => import(workerData.module));
`;

/** tsx's loader, when `module` is TypeScript (a worker thread does not inherit the process's loader). */
function tsxLoader(module: string): string | null {
  if (!module.endsWith('.ts')) return null;
  try {
    if (typeof import.meta.resolve === 'function') return import.meta.resolve('tsx/esm/api');
    // Where import.meta.resolve is missing (a test runner's loader): the ESM build beside the CommonJS one.
    const commonJs = createRequire(import.meta.url).resolve('tsx/esm/api');
    return pathToFileURL(commonJs.replace(/\.cjs$/, '.mjs')).href;
  } catch {
    return null;
  }
}
