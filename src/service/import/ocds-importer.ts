import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { markPublicRecordsChanged } from '../store/count-cache.ts';
import type { SqliteDatabase } from '../store/database.ts';
import {
  forgetImport,
  lastImport,
  publicRecordsSource,
  recordImport,
  setPublicRecordsSource,
} from '../store/public-records-meta.ts';
import { PublicRecordsWriter } from '../store/public-records-writer.ts';
import { tenderFromRelease } from './ocds-mapping.ts';
import { readOcdsReleases } from './ocds-reader.ts';

export interface ImportProgress {
  file: string;
  bytesRead: number;
  bytesTotal: number;
  releases: number;
}

export interface ImportResult {
  file: string;
  releases: number;
  skipped: number;
}

/** Progress is reported every this many releases. */
const PROGRESS_EVERY = 2000;

/**
 * Imports OCDS files into the public records, all or nothing: every file, the derived fields,
 * the search order and the word indexes are written in one transaction, so a reader (this
 * connection's or another process's) sees the records as they were before or after the whole
 * import, never part of it. An error rolls everything back; a killed process leaves SQLite to
 * roll back at the next open. Before the transaction starts, a committed note in
 * `public_records_meta` says an import is running: if the process dies, the note stays and the
 * service refuses the database until the import is run again (see unfinishedImportProblem).
 * Re-running an import converges: it merges, never duplicates.
 *
 * The transaction spans awaits (the files are streamed): nothing else may use `db` meanwhile.
 */
export async function importOcdsFiles(
  db: SqliteDatabase,
  files: string[],
  onProgress?: (progress: ImportProgress) => void,
): Promise<ImportResult[]> {
  const sizes = new Map<string, number>();
  for (const file of files) sizes.set(file, (await stat(file)).size);
  const previous = lastImport(db);
  const startedAt = new Date().toISOString();
  recordImport(db, { state: 'running', files, startedAt });
  const results: ImportResult[] = [];
  db.exec('BEGIN IMMEDIATE');
  try {
    const writer = new PublicRecordsWriter(db);
    for (const file of files) {
      const bytesTotal = sizes.get(file) ?? 0;
      let bytesRead = 0;
      let releases = 0;
      let skipped = 0;
      for await (const { release, publisherName } of readOcdsReleases(file, (bytes) => {
        bytesRead = bytes;
      })) {
        const tender = tenderFromRelease(release, publisherName);
        if (tender) {
          writer.writeRelease(tender);
          releases++;
          if (releases % PROGRESS_EVERY === 0)
            onProgress?.({ file: basename(file), bytesRead, bytesTotal, releases });
        } else {
          skipped++;
        }
      }
      onProgress?.({ file: basename(file), bytesRead: bytesTotal, bytesTotal, releases });
      results.push({ file: basename(file), releases, skipped });
    }
    writer.finish();
    if (publicRecordsSource(db) === null && writer.releasesWritten > 0)
      setPublicRecordsSource(db, 'imported');
    recordImport(db, { state: 'finished', files, startedAt, finishedAt: new Date().toISOString() });
    db.exec('COMMIT');
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    // Nothing of this import was kept: the database is as it was, and says so.
    if (previous) recordImport(db, previous);
    else forgetImport(db);
    markPublicRecordsChanged(db);
    throw error;
  }
  db.pragma('optimize');
  // The import's pages went through the write-ahead log: fold them in and give the space back.
  db.pragma('wal_checkpoint(TRUNCATE)');
  return results;
}
