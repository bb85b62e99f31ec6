import type { TestProject } from 'vitest/node';
import {
  type CompiledTenderbot,
  compileTenderbot,
  sweepOldCompiledCopies,
} from './support/compiled-tenderbot.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The `tenderbot` the tests start as processes (test/support/process.ts); null: the sources. */
    tenderbotBin: string | null;
  }
}

/**
 * One copy for the run, shared by the projects (vitest calls this once for each, and may load this
 * module anew for each: hence globalThis). A rerun in watch mode compiles again, once for all the
 * projects of that rerun (vitest gives each of their callbacks the same list of files); every copy
 * is removed at the end.
 */
const SHARED = Symbol.for('tenderbot.compiledForTheRun');
interface Shared {
  latest: Promise<CompiledTenderbot> | null;
  rerun: unknown;
  all: Promise<CompiledTenderbot>[];
}
const holder = globalThis as Record<symbol, Shared | undefined>;
holder[SHARED] ??= { latest: null, rerun: null, all: [] };
const shared = holder[SHARED];

function compile(): Promise<CompiledTenderbot> {
  const compiled = compileTenderbot();
  shared.all.push(compiled);
  return compiled;
}

/** Before any test: the command compiled (TENDERBOT_TEST_SOURCES=1 keeps tsx's loader), again at each rerun of watch mode. */
export default async function setup(project: TestProject): Promise<() => Promise<void> | void> {
  if (process.env.TENDERBOT_TEST_SOURCES === '1') {
    project.provide('tenderbotBin', null);
    return () => undefined;
  }
  if (!shared.latest) {
    // Copies a killed run left behind (its teardown never ran).
    sweepOldCompiledCopies();
    shared.latest = compile();
  }
  project.provide('tenderbotBin', (await shared.latest).bin);
  project.onTestsRerun(async (files) => {
    if (shared.rerun !== files) {
      shared.rerun = files;
      const previous = shared.latest;
      // A source that does not compile (a save half-way through an edit) keeps the last copy:
      // the tests that start a process say so by failing, and watch mode goes on.
      shared.latest = compile().catch(async (error: unknown) => {
        console.error(`tenderbot could not be compiled for the tests; the last copy is used: ${error}`);
        if (!previous) throw error;
        return previous;
      });
    }
    project.provide('tenderbotBin', (await (shared.latest as Promise<CompiledTenderbot>)).bin);
  });
  return async () => {
    const all = await Promise.allSettled(shared.all.splice(0));
    for (const copy of all) if (copy.status === 'fulfilled') copy.value.remove();
    shared.latest = null;
  };
}
