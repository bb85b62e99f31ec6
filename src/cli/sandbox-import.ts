import { SingleBar } from 'cli-progress';
import { importOcdsFiles } from '../service/import/ocds-importer.ts';
import { openDatabase } from '../service/store/database.ts';
import { assertCanAdd } from '../service/store/public-records-meta.ts';
import { PublicRecordsReader } from '../service/store/public-records-reader.ts';
import { DEFAULT_SANDBOX_DB, UsageError } from './options.ts';

interface ImportArgs {
  values: { db?: string };
  positionals: string[];
}

/**
 * `tenderbot sandbox import FILE...`: a progress bar on a terminal, a summary line per file. The
 * import is all or nothing (see importOcdsFiles); a database of demo data is refused.
 */
export async function runSandboxImport({ values, positionals }: ImportArgs): Promise<number> {
  if (positionals.length === 0) throw new UsageError('sandbox import needs at least one file');
  const dbPath = values.db ?? DEFAULT_SANDBOX_DB;
  const db = openDatabase(dbPath);
  try {
    // Real tenders are never mixed into generated demo data.
    assertCanAdd(db, dbPath, 'imported');
  } catch (error) {
    db.close();
    throw error;
  }
  const bar = process.stderr.isTTY
    ? new SingleBar({
        stream: process.stderr,
        format: '{file} [{bar}] {percentage}% | {releases} releases',
        hideCursor: true,
      })
    : null;
  let current = '';
  try {
    const results = await importOcdsFiles(db, positionals, (progress) => {
      if (!bar) return;
      if (progress.file !== current) {
        if (current) bar.stop();
        current = progress.file;
        bar.start(progress.bytesTotal, 0, { file: progress.file, releases: 0 });
      }
      bar.update(progress.bytesRead, { releases: progress.releases });
    });
    bar?.stop();
    for (const result of results) {
      process.stdout.write(
        `${result.file}: ${result.releases} releases imported, ${result.skipped} skipped\n`,
      );
    }
    const counts = new PublicRecordsReader(db).counts();
    process.stdout.write(
      `database: ${counts.tenders} tenders, ${counts.buyers} buyers, ${counts.suppliers} suppliers, ${counts.frameworks} frameworks\n`,
    );
    return 0;
  } finally {
    bar?.stop();
    db.close();
  }
}
