import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateDemoData } from '../../../src/service/demo/demo-generator.ts';
import { importOcdsFiles } from '../../../src/service/import/ocds-importer.ts';
import { openDatabase } from '../../../src/service/store/database.ts';
import { PublicRecordsReader } from '../../../src/service/store/public-records-reader.ts';
import { OCDS_DIR } from '../../support/ocds-data.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-count-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const everything = { limit: 20, offset: 0 };

describe('cached totals', () => {
  it('follow a commit made by another connection to the same file (an import from the command line)', async () => {
    const path = join(dir, 'two-connections.db');
    const serving = openDatabase(path);
    const importing = openDatabase(path);
    try {
      await importOcdsFiles(serving, [join(OCDS_DIR, 'uk-ccs-frameworks.releases.jsonl.gz')]);
      const reader = new PublicRecordsReader(serving);
      expect(reader.searchTenders(everything).total).toBe(127);
      expect(reader.searchTenders({ ...everything, offset: 20 }).total).toBe(127);
      await importOcdsFiles(importing, [join(OCDS_DIR, 'uk-notices.releases.jsonl.gz')]);
      expect(reader.searchTenders(everything).total).toBe(127 + 370);
      expect(reader.listBuyers({ limit: 20, offset: 0 }).total).toBe(
        new PublicRecordsReader(importing).counts().buyers,
      );
    } finally {
      serving.close();
      importing.close();
    }
  });

  it('follow a rewrite made on the same connection', async () => {
    const db = openDatabase(':memory:');
    try {
      const reader = new PublicRecordsReader(db);
      expect(reader.searchTenders(everything).total).toBe(0);
      await importOcdsFiles(db, [join(OCDS_DIR, 'uk-ccs-frameworks.releases.jsonl.gz')]);
      expect(reader.searchTenders(everything).total).toBe(127);
      expect(reader.listFrameworks({ limit: 20, offset: 0 }, '2026-11-21').total).toBe(127);
    } finally {
      db.close();
    }
  });

  it('are kept per filter: different words or filters are counted apart', () => {
    const db = openDatabase(':memory:');
    try {
      generateDemoData(db, { tenders: 300 });
      const reader = new PublicRecordsReader(db);
      const all = reader.searchTenders(everything).total;
      const cleaning = reader.searchTenders({ ...everything, q: 'cleaning' }).total;
      const open = reader.searchTenders({ ...everything, q: 'cleaning', status: 'open' }).total;
      expect(all).toBe(300);
      expect(cleaning).toBeLessThan(all);
      expect(open).toBeLessThanOrEqual(cleaning);
      expect(reader.searchTenders({ ...everything, q: 'cleaning' }).total).toBe(cleaning);
    } finally {
      db.close();
    }
  });
});
