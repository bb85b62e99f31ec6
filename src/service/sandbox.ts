import { generateDemoData } from './demo/demo-generator.ts';
import { createDemoOrganisation, type DemoKey } from './demo/demo-organisation.ts';
import { applyFixture, readFixture } from './fixture.ts';
import { buildServiceApp, type ServiceApp } from './http/app.ts';
import { importOcdsFiles } from './import/ocds-importer.ts';
import { openDatabase, type SqliteDatabase } from './store/database.ts';
import { PublicRecordsReader } from './store/public-records-reader.ts';

export interface SandboxOptions {
  db: string;
  host?: string;
  port?: number;
  fixture?: string;
  /** Demo tenders to generate when the database has none and nothing is imported. */
  demo?: number;
  imports?: string[];
  logLevel?: string;
  countCacheSize?: number;
  clock?: () => Date;
}

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
 * Opens the database, fills what CONTRACT.md §7 says to fill (imports, else demo data for an
 * empty database; the fixture, else a demo organisation for an empty one), and listens.
 */
export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const db = openDatabase(options.db);
  try {
    if (options.imports && options.imports.length > 0) {
      await importOcdsFiles(db, options.imports);
    } else if (new PublicRecordsReader(db).counts().tenders === 0) {
      generateDemoData(db, { tenders: options.demo ?? DEFAULT_DEMO_TENDERS, today: options.clock?.() });
    }
    const app = await buildServiceApp({
      db,
      clock: options.clock,
      logLevel: options.logLevel,
      countCacheSize: options.countCacheSize,
    });
    const context = app.serviceContext;
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
        await app.close();
        db.close();
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}
