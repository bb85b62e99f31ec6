import type { TestProject } from 'vitest/node';
import { type CompiledTenderbot, compileTenderbot } from './support/compiled-tenderbot.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The `tenderbot` the tests start as processes (test/support/process.ts); null: the sources. */
    tenderbotBin: string | null;
  }
}

/**
 * One copy for the run, shared by the projects (vitest calls this once for each, and may load this
 * module anew for each: hence globalThis). A rerun in watch mode compiles again, once for all the
 * projects rerun at that moment; every copy is removed at the end.
 */
const SHARED = Symbol.for('tenderbot.compiledForTheRun');
interface Shared {
  latest: Promise<CompiledTenderbot> | null;
  startedAt: number;
  all: Promise<CompiledTenderbot>[];
}
const holder = globalThis as Record<symbol, Shared | undefined>;
holder[SHARED] ??= { latest: null, startedAt: 0, all: [] };
const shared = holder[SHARED];
/** Reruns of several projects closer together than this are one rerun. */
const SAME_RERUN_MS = 5000;

async function provideCompiled(project: TestProject, rerun: boolean): Promise<void> {
  if (!shared.latest || (rerun && performance.now() - shared.startedAt > SAME_RERUN_MS)) {
    shared.latest = compileTenderbot();
    shared.startedAt = performance.now();
    shared.all.push(shared.latest);
  }
  project.provide('tenderbotBin', (await shared.latest).bin);
}

/** Before any test: the command compiled (TENDERBOT_TEST_SOURCES=1 keeps tsx's loader), again at each rerun of watch mode. */
export default async function setup(project: TestProject): Promise<() => Promise<void> | void> {
  if (process.env.TENDERBOT_TEST_SOURCES === '1') {
    project.provide('tenderbotBin', null);
    return () => undefined;
  }
  await provideCompiled(project, false);
  project.onTestsRerun(() => provideCompiled(project, true));
  return async () => {
    for (const compiled of shared.all.splice(0)) (await compiled).remove();
    shared.latest = null;
  };
}
