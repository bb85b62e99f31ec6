import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SlowClientLimits } from '../shared/slow-clients.ts';
import { generateDemoData } from './demo/demo-generator.ts';
import { createDemoOrganisation, type DemoKey } from './demo/demo-organisation.ts';
import { applyFixture, readFixture } from './fixture.ts';
import { buildServiceApp, type ServiceApp } from './http/app.ts';
import { type ImportProgress, importOcdsFiles } from './import/ocds-importer.ts';
import { openDatabase, type SqliteDatabase } from './store/database.ts';
import {
  assertCanAdd,
  lastImport,
  PublicRecordsRefusal,
  publicRecordsSource,
  unfinishedImportProblem,
} from './store/public-records-meta.ts';
import { PublicRecordsReader } from './store/public-records-reader.ts';

/** What fills a sandbox database with public records (CONTRACT.md §7). */
export interface SandboxDataOptions {
  /** The SQLite file, or `:memory:`. */
  db: string;
  /**
   * OCDS files to import, all or nothing, before serving. Refused on a database of demo data:
   * real and generated tenders are never mixed.
   */
  imports?: string[];
  /**
   * With `imports`: skip the import when the database's last finished import was of exactly
   * these files (a second start of the same real-data workbench does not import again).
   */
  skipFinishedImport?: boolean;
  /** Demo tenders to generate when the database holds no public records and nothing is imported. */
  demo?: number;
  clock?: () => Date;
  onImportProgress?: (progress: ImportProgress) => void;
}

export interface SandboxOptions extends SandboxDataOptions {
  host?: string;
  port?: number;
  fixture?: string;
  logLevel?: string;
  countCacheSize?: number;
  /** How long a request may take to arrive; SLOW_CLIENT_LIMITS when absent (tests shorten them). */
  slowClientLimits?: SlowClientLimits;
  /**
   * Word searches walked in a thread of their own (see SearchThread): by default when the records
   * hold SEARCH_THREAD_FROM tenders or more, where a walk is long enough to be worth a second core.
   */
  searchThread?: boolean;
}

/**
 * From this many tenders, word searches are walked in a search thread unless told otherwise. At
 * 100,000 the thread made the cold filtered search's p99 a third lower on the slower 2-core
 * machines (18.47 → 11.56 ms, 19.62 → 13.39) and changed nothing on the fastest (docs/performance.md).
 */
export const SEARCH_THREAD_FROM = 50_000;

export interface RunningSandbox {
  app: ServiceApp;
  db: SqliteDatabase;
  /** `http://HOST:PORT` without `/v1`: the client's base URL. */
  baseUrl: string;
  /** Keys of the demo organisation, when this start created it. */
  demoKeys: DemoKey[];
  close(): Promise<void>;
}

export const DEFAULT_DEMO_TENDERS = 5000;

/**
 * Opens a sandbox database and fills it with public records, refusing with a sentence
 * (PublicRecordsRefusal) what must not be served or mixed:
 * - with `imports`: imports them (all or nothing) unless the database holds demo data;
 * - without: refuses a database whose last import did not finish, and generates demo data
 *   only into a database that holds no public records at all.
 * The database says where its records came from (see publicRecordsSource).
 */
export async function openSandbox(options: SandboxDataOptions): Promise<SqliteDatabase> {
  const db = openDatabase(options.db);
  try {
    if (options.imports && options.imports.length > 0) {
      assertCanAdd(db, options.db, 'imported');
      if (!(options.skipFinishedImport && isFinishedImportOf(db, options.imports)))
        await importOcdsFiles(db, options.imports, options.onImportProgress);
    } else {
      const unfinished = unfinishedImportProblem(db, options.db);
      if (unfinished) throw new PublicRecordsRefusal(unfinished);
      if (publicRecordsSource(db) === null && new PublicRecordsReader(db).counts().tenders === 0)
        generateDemoData(db, { tenders: options.demo ?? DEFAULT_DEMO_TENDERS, today: options.clock?.() });
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function isFinishedImportOf(db: SqliteDatabase, files: string[]): boolean {
  const record = lastImport(db);
  if (record?.state !== 'finished') return false;
  const wanted = files.map((file) => resolve(file)).sort();
  const done = record.files.map((file) => resolve(file)).sort();
  return wanted.length === done.length && wanted.every((file, index) => file === done[index]);
}

/** The OCDS files of a folder (`.json`, `.jsonl`, plain or gzipped), in name order. */
export function ocdsFilesIn(folder: string): string[] {
  return readdirSync(folder)
    .filter((name) => /\.(json|jsonl)(\.gz)?$/i.test(name))
    .sort()
    .map((name) => join(folder, name));
}

/**
 * Opens the database (see openSandbox), then the fixture, else a demo organisation for an empty
 * one, and listens.
 */
export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const db = await openSandbox(options);
  let app: ServiceApp | null = null;
  try {
    app = await buildServiceApp({
      db,
      clock: options.clock,
      logLevel: options.logLevel,
      countCacheSize: options.countCacheSize,
      slowClientLimits: options.slowClientLimits,
    });
    const context = app.serviceContext;
    // The filter index's columns are read in a worker from the start (5–18 s at a million
    // tenders), not on the first filtered search, which would block every request meanwhile: by
    // the search thread when there is one (then this thread reads its own only if that one
    // fails), else for this thread. So is the words' vocabulary whenever the records change. Its
    // first read is done here, before listening (about a second at a million tenders), so the
    // first misspelt search is answered. Sort keys run from 0 without gaps after an import: the
    // largest is about the number of tenders.
    const tenders =
      ((db.prepare('SELECT max(sort_key) FROM tenders').pluck().get() as number | null) ?? -1) + 1;
    const service = app;
    if (options.searchThread ?? tenders >= SEARCH_THREAD_FROM)
      context.publicRecords.searchInThread(options.db, (error) =>
        service.log.warn(
          { err: error },
          'the search thread failed: searches are walked on the request thread',
        ),
      );
    context.publicRecords.readInBackground(options.db);
    context.publicRecords.readWordVocabularyNow();
    let demoKeys: DemoKey[] = [];
    if (options.fixture) {
      applyFixture(context, await readFixture(options.fixture));
    } else if (context.organisations.isEmpty()) {
      demoKeys = createDemoOrganisation(context);
    }
    await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 4010 });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : options.port;
    const host = options.host ?? '127.0.0.1';
    return {
      app,
      db,
      baseUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
      demoKeys,
      close: async () => {
        await service.close();
        await context.publicRecords.close();
        db.close();
      },
    };
  } catch (error) {
    // A start that failed (a port in use) leaves nothing behind: no threads, no open handles.
    await app?.close().catch(() => undefined);
    await app?.serviceContext.publicRecords.close().catch(() => undefined);
    db.close();
    throw error;
  }
}
