import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TenderSearchQuery } from '../../../src/contract/schemas.ts';
import { generateDemoData } from '../../../src/service/demo/demo-generator.ts';
import { startSandbox } from '../../../src/service/sandbox.ts';
import { openDatabase, type SqliteDatabase } from '../../../src/service/store/database.ts';
import { PublicRecordsReader } from '../../../src/service/store/public-records-reader.ts';
import { SearchThread } from '../../../src/service/store/search-thread.ts';

const TODAY = new Date('2026-06-01T00:00:00Z');
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-search-thread-'));
const file = join(dir, 'demo.db');
let db: SqliteDatabase;

beforeAll(() => {
  db = openDatabase(file);
  generateDemoData(db, { tenders: 1500, today: TODAY });
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const QUERIES: TenderSearchQuery[] = [
  { q: 'cleaning', region: 'London', limit: 20, offset: 0 },
  { q: 'services', valueMin: 50_000, currency: 'EUR', limit: 5, offset: 3 },
  { q: 'cleaning', limit: 20, offset: 0 },
  { q: 'catering', status: 'closed', limit: 100, offset: 0 },
];

/** The same query on a reader searching alone (its columns read here, in place). */
function alone(query: TenderSearchQuery) {
  return new PublicRecordsReader(db).searchTenders(query, TODAY);
}

describe('a search thread', () => {
  it('answers only once it has read its columns, and a closed one never again', async () => {
    const thread = new SearchThread(file, 0);
    expect(await thread.whenReady()).toBe(true);
    const found = await thread.search({
      match: { words: '"cleaning"*', phrases: null },
      filters: { region: 'london' },
      now: '2026-06-01T00:00:00Z',
      offset: 0,
      limit: 20,
    });
    expect(found?.total).toBe(alone(QUERIES[0] as TenderSearchQuery).total);
    expect(found?.recordsVersion).toBe(
      db.prepare("SELECT value FROM public_records_meta WHERE key = 'records_version'").pluck().get(),
    );
    await thread.close();
    expect(thread.failedForGood).toBe(true);
    expect(
      await thread.search({
        match: { words: '"x"*', phrases: null },
        filters: null,
        now: '',
        offset: 0,
        limit: 1,
      }),
    ).toBeNull();
  });

  it('reads the rows only at the records’ version the thread read: after a rewrite the search is made here', async () => {
    const reader = new PublicRecordsReader(db, 0);
    reader.searchInThread(file);
    try {
      expect(await reader.searchThreadReady()).toBe(true);
      const query = QUERIES[0] as TenderSearchQuery;
      const before = await reader.searchTendersAsync(query, TODAY);
      expect(reader.searchThreadAnswers).toBe(1);
      // The thread's answer names a version the records no longer hold (as after an import
      // committed in between), with keys that would now be other tenders: they are not used.
      const thread = (reader as unknown as { searchThread: SearchThread }).searchThread;
      const search = thread.search.bind(thread);
      thread.search = async (request) => {
        const found = await search(request);
        return (
          found && { ...found, sortKeys: found.sortKeys.map((key) => key + 1), recordsVersion: 'earlier' }
        );
      };
      const after = await reader.searchTendersAsync(query, TODAY);
      expect(after.total).toBe(before.total);
      expect(after.items.map((tender) => tender.id)).toEqual(before.items.map((tender) => tender.id));
      expect(reader.searchThreadAnswers).toBe(2);
    } finally {
      await reader.close();
    }
  });

  it('when it cannot start, says so once, and the reader searches alone with the same answers', async () => {
    const reader = new PublicRecordsReader(db, 0);
    const failures: unknown[] = [];
    // A file the thread cannot open (it must exist for a read-only connection).
    reader.searchInThread(join(dir, 'missing.db'), (error) => failures.push(error));
    try {
      expect(await reader.searchThreadReady()).toBe(false);
      expect(failures).toHaveLength(1);
      for (const query of QUERIES) {
        const found = await reader.searchTendersAsync(query, TODAY);
        const expected = alone(query);
        expect(found.total, JSON.stringify(query)).toBe(expected.total);
        expect(found.items.map((tender) => tender.id)).toEqual(expected.items.map((tender) => tender.id));
      }
      expect(reader.searchThreadAnswers).toBe(0);
    } finally {
      await reader.close();
    }
  });
});

describe('a search thread after the records are rewritten', () => {
  it('answers as the new records say: filtered searches by SQL while it reads its columns again, then itself', async () => {
    db.pragma('wal_checkpoint(TRUNCATE)');
    const copy = join(dir, 'rewritten.db');
    copyFileSync(file, copy);
    const served = openDatabase(copy);
    const writer = openDatabase(copy);
    const reader = new PublicRecordsReader(served, 0);
    reader.searchInThread(copy);
    try {
      expect(await reader.searchThreadReady()).toBe(true);
      const query: TenderSearchQuery = { q: 'cleaning', region: 'Wales', limit: 50, offset: 0 };
      const before = await reader.searchTendersAsync(query, TODAY);
      // Another process's import: London's cleaning tenders move to Wales, with a new version.
      writer
        .prepare(
          `UPDATE tenders SET region = 'Wales' WHERE region = 'London'
             AND sort_key IN (SELECT rowid FROM tender_words WHERE tender_words MATCH '"cleaning"*')`,
        )
        .run();
      writer
        .prepare("UPDATE public_records_meta SET value = 'rewritten' WHERE key = 'records_version'")
        .run();
      const expected = new PublicRecordsReader(served).searchTenders(query, TODAY);
      expect(expected.total).toBeGreaterThan(before.total);
      const answeredBefore = reader.searchThreadAnswers;
      const after = await reader.searchTendersAsync(query, TODAY);
      expect(after.total).toBe(expected.total);
      expect(after.items.map((tender) => tender.id)).toEqual(expected.items.map((tender) => tender.id));
      // Once its columns are read again, the thread answers, and the same.
      await vi.waitFor(
        async () => {
          const again = await reader.searchTendersAsync(query, TODAY);
          expect(again.total).toBe(expected.total);
          expect(reader.searchThreadAnswers).toBeGreaterThan(answeredBefore);
        },
        { timeout: 30_000, interval: 100 },
      );
    } finally {
      await reader.close();
      served.close();
      writer.close();
    }
  });
});

describe('sandbox serve with a search thread that cannot listen', () => {
  it('ends with the error, leaving no thread to keep it alive', async () => {
    db.pragma('wal_checkpoint(TRUNCATE)');
    const copy = join(dir, 'busy-port.db');
    copyFileSync(file, copy);
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const child = spawn(
        process.execPath,
        [
          'bin/tenderbot.js',
          'sandbox',
          'serve',
          '--db',
          copy,
          '--port',
          String(port),
          '--search-thread',
          'on',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk;
      });
      child.stderr.on('data', (chunk: Buffer) => {
        output += chunk;
      });
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).not.toBe(0);
      expect(output).toMatch(/EADDRINUSE|in use/i);
    } finally {
      taken.close();
    }
  }, 60_000);
});

describe('the service with a search thread', () => {
  it('answers GET /v1/tenders as without one', async () => {
    const answers: unknown[][] = [];
    // Each start on a copy of its own, whose first start makes the demo organisation and its keys.
    db.pragma('wal_checkpoint(TRUNCATE)');
    for (const searchThread of [true, false]) {
      const copy = join(dir, `served-${searchThread}.db`);
      copyFileSync(file, copy);
      const sandbox = await startSandbox({
        db: copy,
        port: 0,
        logLevel: 'silent',
        searchThread,
        clock: () => TODAY,
      });
      try {
        expect(await sandbox.app.serviceContext.publicRecords.searchThreadReady()).toBe(searchThread);
        const key = sandbox.demoKeys[0]?.key ?? '';
        const run: unknown[] = [];
        for (const query of QUERIES) {
          const params = new URLSearchParams(
            Object.entries(query).map(([name, value]): [string, string] => [name, String(value)]),
          );
          const response = await fetch(`${sandbox.baseUrl}/v1/tenders?${params}`, {
            headers: { authorization: `Bearer ${key}` },
          });
          expect(response.status).toBe(200);
          run.push(await response.json());
        }
        answers.push(run);
        if (searchThread)
          expect(sandbox.app.serviceContext.publicRecords.searchThreadAnswers).toBe(QUERIES.length);
      } finally {
        await sandbox.close();
      }
    }
    expect(answers[0]).toEqual(answers[1]);
  });
});
