import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isMainThread, Worker, workerData } from 'node:worker_threads';

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
