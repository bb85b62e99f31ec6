import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

/**
 * The `tenderbot` command compiled to JavaScript for the test run, file for file (no bundle: each
 * module where its source is, so `import.meta.url` and the folders beside it mean what they mean
 * in src/), by the esbuild that tsx itself transforms with. The tests start about a hundred
 * processes; through tsx's loader each start spent about as much CPU loading modules as running
 * (the loader's thread resolves and reads every one of ~900 modules), compiled about half of it.
 * test/cli/start.test.ts and the README's commands still run bin/tenderbot.js through tsx.
 */

const ROOT = resolve(import.meta.dirname, '../..');
/** Inside node_modules: the compiled files find the project's packages as the sources do. */
const BUILDS = join(ROOT, 'node_modules/.cache/tenderbot-test-build');

/** A compiled copy: its `tenderbot` and how to remove it. */
export interface CompiledTenderbot {
  bin: string;
  remove(): void;
}

/** A relative specifier of a TypeScript file, in a static import, an export or an import(). */
const TS_SPECIFIER = /((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"\n]+)\.ts\2/g;

/** Compiles src/ into a folder of its own (runs at the same time never share one). */
export async function compileTenderbot(): Promise<CompiledTenderbot> {
  mkdirSync(BUILDS, { recursive: true });
  const dir = mkdtempSync(join(BUILDS, 'run-'));
  const sources = (readdirSync(join(ROOT, 'src'), { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(ROOT, 'src', file));
  const built = build({
    entryPoints: sources,
    outdir: join(dir, 'src'),
    outbase: join(ROOT, 'src'),
    format: 'esm',
    platform: 'node',
    target: 'node20',
    bundle: false,
    write: false,
    logLevel: 'silent',
  });
  const result = await built.catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  for (const file of result.outputFiles) {
    mkdirSync(resolve(file.path, '..'), { recursive: true });
    writeFileSync(file.path, file.text.replace(TS_SPECIFIER, '$1$2$3.js$2'));
  }
  // What the sources read beside themselves: the workbench's page and the app's manifest.
  symlinkSync(join(ROOT, 'src/workbench/public'), join(dir, 'src/workbench/public'));
  symlinkSync(join(ROOT, 'manifest.yml'), join(dir, 'manifest.yml'));
  mkdirSync(join(dir, 'bin'));
  const bin = join(dir, 'bin/tenderbot.js');
  // bin/tenderbot.js without tsx's loader.
  writeFileSync(
    bin,
    "const { main } = await import('../src/cli/main.js');\nprocess.exitCode = await main(process.argv.slice(2));\n",
  );
  return { bin, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A day: no run lasts that long, so an older copy is one a killed run left. */
const OLD_MS = 24 * 60 * 60 * 1000;

/** Removes the copies of runs that ended without removing theirs (killed), a day after they were made. */
export function sweepOldCompiledCopies(): void {
  let names: string[];
  try {
    names = readdirSync(BUILDS);
  } catch {
    return;
  }
  for (const name of names) {
    const dir = join(BUILDS, name);
    try {
      if (Date.now() - statSync(dir).mtimeMs > OLD_MS) rmSync(dir, { recursive: true, force: true });
    } catch {
      // Gone already: another run swept it.
    }
  }
}
