import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { SqliteDatabase } from '../store/database.ts';
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

/** Releases written per transaction: large enough to be fast, small enough to keep the WAL modest. */
const BATCH_SIZE = 2000;

/**
 * Imports OCDS files into the public records. A file that fails to parse stops the import, but
 * every batch already committed stays, and re-running the import converges (it merges, never
 * duplicates). The search order and derived fields are rebuilt once at the end.
 */
export async function importOcdsFiles(
  db: SqliteDatabase,
  files: string[],
  onProgress?: (progress: ImportProgress) => void,
): Promise<ImportResult[]> {
  const writer = new PublicRecordsWriter(db);
  const results: ImportResult[] = [];
  try {
    for (const file of files) {
      const bytesTotal = (await stat(file)).size;
      let bytesRead = 0;
      let releases = 0;
      let skipped = 0;
      let batch: ReturnType<typeof tenderFromRelease>[] = [];
      const flush = db.transaction((items: typeof batch) => {
        for (const item of items) if (item) writer.writeRelease(item);
      });
      for await (const { release, publisherName } of readOcdsReleases(file, (bytes) => {
        bytesRead = bytes;
      })) {
        const tender = tenderFromRelease(release, publisherName);
        if (tender) {
          batch.push(tender);
          releases++;
        } else {
          skipped++;
        }
        if (batch.length >= BATCH_SIZE) {
          flush(batch);
          batch = [];
          onProgress?.({ file: basename(file), bytesRead, bytesTotal, releases });
        }
      }
      flush(batch);
      onProgress?.({ file: basename(file), bytesRead: bytesTotal, bytesTotal, releases });
      results.push({ file: basename(file), releases, skipped });
    }
  } finally {
    writer.finish();
  }
  return results;
}
