import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, serveCli } from '../support/cli.ts';
import { OCDS_DIR } from '../support/ocds-data.ts';
import { TENDERBOT_BIN } from '../support/process.ts';
import { callApi } from '../support/sandbox.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-import-kill-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CANADA = join(OCDS_DIR, 'canada-buyandsell.releases.jsonl.gz');
/**
 * When the later kills come, as parts of a whole import's time (from starting node to its exit):
 * one in its middle third, one from its last third to past its end (the final derivations, the
 * commit, and sometimes a finished import).
 */
const LATER_BANDS: [number, number][] = [
  [0.35, 0.7],
  [0.7, 1.3],
];
/** The first kill comes this soon after the import has begun writing: always part-way. */
const EARLY_MS = 1000;
const KILLS = 1 + LATER_BANDS.length;

interface Counts {
  tenders: number;
  buyers: number;
  suppliers: number;
}

/** The last import's state as the database says it, read by its own connection; null before. */
function importState(dbPath: string): string | null {
  if (!existsSync(dbPath)) return null;
  try {
    const db = new Database(dbPath, { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare("SELECT value FROM public_records_meta WHERE key = 'import'").get() as
        | { value: string }
        | undefined;
      return row ? (JSON.parse(row.value) as { state: string }).state : null;
    } finally {
      db.close();
    }
  } catch {
    return null; // not created or not migrated yet
  }
}

/** Starts `sandbox import` of the Canada file, waits until the import has begun, kills it after `delayMs`. */
async function importKilledAfter(dbPath: string, delayMs: number): Promise<string | null> {
  const child = spawn(process.execPath, [TENDERBOT_BIN, 'sandbox', 'import', CANADA, '--db', dbPath], {
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let running = false;
  child.once('exit', () => {
    running = true; // stop waiting if it ended on its own
  });
  const deadline = Date.now() + 60_000;
  while (!running && importState(dbPath) !== 'running' && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 25));
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  child.kill('SIGKILL');
  await exited;
  return importState(dbPath);
}

/** Serves the database and reads its totals over HTTP; or the sentence it refused with. */
async function serveAndCount(dbPath: string): Promise<{ refused: string } | { counts: Counts }> {
  let server: Awaited<ReturnType<typeof serveCli>>;
  try {
    server = await serveCli(['--db', dbPath, '--port', '0']);
  } catch (error) {
    return { refused: (error as Error).message };
  }
  try {
    const key = /(pis_[A-Za-z0-9_-]{43})/.exec(server.output)?.[1];
    expect(key).toBeDefined();
    const total = async (path: string) => {
      const answer = await callApi(server.baseUrl, 'GET', path, { key });
      expect(answer.status).toBe(200);
      return answer;
    };
    const tenders = await total('/v1/tenders?limit=50');
    // A complete import has buyer names and newest-first order on its first page.
    expect(tenders.body.data.length).toBeGreaterThan(0);
    for (const tender of tenders.body.data) if (tender.buyer) expect(tender.buyer.name).not.toBe('');
    const published = tenders.body.data.map((tender: { publishedAt: string }) => tender.publishedAt);
    expect(published).toEqual([...published].sort().reverse());
    return {
      counts: {
        tenders: tenders.body.pagination.total,
        buyers: (await total('/v1/buyers?limit=1')).body.pagination.total,
        suppliers: (await total('/v1/suppliers?limit=1')).body.pagination.total,
      },
    };
  } finally {
    await server.stop();
  }
}

describe('an import killed part-way (SIGKILL, via the real command line)', () => {
  it('leaves a database that the service either refuses with a sentence or serves complete, never partial', async () => {
    const expected = { counts: { tenders: 24686, buyers: 122, suppliers: 10227 } };
    const outcomes: string[] = [];
    // Killed early, soon after its first writes: refused, and running the import again finishes
    // it. That import is also the measure of a whole one for the later kills (a separate clean
    // import only to time it would cost one more import of the file).
    const earlyDb = join(dir, 'killed-early.db');
    const earlyMs = Math.floor(Math.random() * EARLY_MS);
    const earlyState = await importKilledAfter(earlyDb, earlyMs);
    expect(earlyState).toBe('running');
    expectRefused(await serveAndCount(earlyDb));
    const started = Date.now();
    expect((await runCli(['sandbox', 'import', CANADA, '--db', earlyDb])).code).toBe(0);
    const wholeMs = Date.now() - started;
    expect(await serveAndCount(earlyDb)).toEqual(expected);
    outcomes.push(`killed after ${earlyMs} ms: refused`);

    for (const [kill, band] of LATER_BANDS.entries()) {
      const dbPath = join(dir, `killed-${kill}.db`);
      const delayMs = Math.floor(wholeMs * (band[0] + Math.random() * (band[1] - band[0])));
      const state = await importKilledAfter(dbPath, delayMs);
      const served = await serveAndCount(dbPath);
      if ('refused' in served) {
        expect(state).toBe('running');
        expectRefused(served);
        outcomes.push(`killed after ${delayMs} ms: refused`);
      } else {
        expect(state).toBe('finished');
        expect(served).toEqual(expected);
        outcomes.push(`killed after ${delayMs} ms: complete`);
      }
    }
    expect(outcomes).toHaveLength(KILLS);
    console.info(`whole import ${wholeMs} ms; ${outcomes.join('; ')}`);
  }, 600_000);
});

/** The service's refusal of an unfinished import: a sentence saying what to run, no stack. */
function expectRefused(served: { refused: string } | { counts: Counts }): void {
  expect(served).toHaveProperty('refused');
  const { refused } = served as { refused: string };
  expect(refused).toMatch(/did not finish.*Run `tenderbot sandbox import .*` again/s);
  expect(refused).not.toMatch(/\n\s+at /);
  expect(refused).toMatch(/exited with [1-9]/);
}
