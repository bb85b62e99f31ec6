import { basename } from 'node:path';
import type { SqliteDatabase } from './database.ts';

/** Where a database's public records came from: generated demo data or imported OCDS files. */
export type PublicRecordsSource = 'demo' | 'imported';

/** What the database remembers of its last import. */
export interface ImportRecord {
  state: 'running' | 'finished';
  files: string[];
  startedAt: string;
  finishedAt?: string;
}

/** A database the service must not serve, or must not add to, said as a sentence for a person. */
export class PublicRecordsRefusal extends Error {
  override name = 'PublicRecordsRefusal';
}

function readMeta(db: SqliteDatabase, key: string): string | null {
  const row = db.prepare('SELECT value FROM public_records_meta WHERE key = ?').get(key) as
    | { value: string }
    | undefined;
  return row?.value ?? null;
}

function writeMeta(db: SqliteDatabase, key: string, value: string): void {
  db.prepare(
    'INSERT INTO public_records_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  ).run(key, value);
}

/** Demo or imported; null while the database holds no public records. */
export function publicRecordsSource(db: SqliteDatabase): PublicRecordsSource | null {
  const value = readMeta(db, 'source');
  return value === 'demo' || value === 'imported' ? value : null;
}

export function setPublicRecordsSource(db: SqliteDatabase, source: PublicRecordsSource): void {
  writeMeta(db, 'source', source);
}

export function lastImport(db: SqliteDatabase): ImportRecord | null {
  const value = readMeta(db, 'import');
  return value ? (JSON.parse(value) as ImportRecord) : null;
}

export function recordImport(db: SqliteDatabase, record: ImportRecord): void {
  writeMeta(db, 'import', JSON.stringify(record));
}

export function forgetImport(db: SqliteDatabase): void {
  db.prepare("DELETE FROM public_records_meta WHERE key = 'import'").run();
}

/** The sentence for a database whose import was stopped part-way; null when there is none. */
export function unfinishedImportProblem(db: SqliteDatabase, dbPath: string): string | null {
  const record = lastImport(db);
  if (record?.state !== 'running') return null;
  const files = record.files.map((file) => basename(file)).join(', ');
  return (
    `the import of ${files} into ${dbPath}, started ${record.startedAt}, did not finish ` +
    '(it was stopped part-way, or is still running in another process), so this database is not served. ' +
    `Run \`tenderbot sandbox import ${record.files.join(' ')} --db ${dbPath}\` again to finish it, ` +
    'or start on a new database.'
  );
}

/** Refuses to mix imported files into demo data, or demo data into imported files. */
export function assertCanAdd(db: SqliteDatabase, dbPath: string, adding: PublicRecordsSource): void {
  const source = publicRecordsSource(db);
  if (source === null || source === adding) return;
  if (adding === 'imported') {
    throw new PublicRecordsRefusal(
      `${dbPath} holds generated demo tenders; importing real files into it would mix the two. ` +
        'Import into a new database instead (give another --db).',
    );
  }
  throw new PublicRecordsRefusal(
    `${dbPath} holds imported public records; demo tenders are never added to them. ` +
      'Use a new database for demo data (give another --db).',
  );
}
