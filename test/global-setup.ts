import type { TestProject } from 'vitest/node';
import { COMPILED_BIN, compileTenderbot } from './support/compiled-tenderbot.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The `tenderbot` the tests start as processes (test/support/process.ts). */
    tenderbotBin: string | null;
  }
}

/** Once a run, before any test: the command compiled (TENDERBOT_TEST_SOURCES=1 keeps tsx's loader). */
export default async function setup(project: TestProject): Promise<void> {
  if (process.env.TENDERBOT_TEST_SOURCES === '1') {
    project.provide('tenderbotBin', null);
    return;
  }
  await compileTenderbot();
  project.provide('tenderbotBin', COMPILED_BIN);
}
