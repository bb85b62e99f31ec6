import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateDemoData } from '../../../src/service/demo/demo-generator.ts';
import { importOcdsFiles } from '../../../src/service/import/ocds-importer.ts';
import { CountCache } from '../../../src/service/store/count-cache.ts';
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

  it('follow the clock: a count of open tenders is not served stale once a deadline passes', async () => {
    const file = join(dir, 'two-deadlines.jsonl');
    const release = (ocid: string, endDate: string) =>
      JSON.stringify({
        ocid,
        id: `${ocid}-1`,
        date: '2025-01-01T00:00:00Z',
        tender: { title: `Tender ${ocid}`, status: 'active', tenderPeriod: { endDate } },
      });
    writeFileSync(
      file,
      `${release('ocds-a', '2025-02-01T12:00:00Z')}\n${release('ocds-b', '2025-03-01T12:00:00Z')}\n`,
    );
    const db = openDatabase(':memory:');
    try {
      await importOcdsFiles(db, [file]);
      const reader = new PublicRecordsReader(db);
      const open = (at: string) =>
        reader.searchTenders({ ...everything, status: 'open' }, new Date(at)).total;
      const closed = (at: string) =>
        reader.searchTenders({ ...everything, status: 'closed' }, new Date(at)).total;
      expect(open('2025-01-15T00:00:00Z')).toBe(2);
      expect(open('2025-02-01T11:59:59Z')).toBe(2);
      expect(open('2025-02-01T12:00:00Z')).toBe(1);
      expect(closed('2025-02-01T12:00:00Z')).toBe(1);
      expect(open('2025-03-02T00:00:00Z')).toBe(0);
      expect(closed('2025-03-02T00:00:00Z')).toBe(2);
      // A clock set back (a test, a corrected machine clock) is followed too.
      expect(open('2025-01-15T00:00:00Z')).toBe(2);
    } finally {
      db.close();
    }
  });

  it('are bounded in number and in time', () => {
    const db = openDatabase(':memory:');
    try {
      let monotonic = 0;
      const cache = new CountCache(db, 3, 60_000, () => monotonic);
      let counted = 0;
      const count = () => ++counted;
      const now = '2025-01-01T00:00:00Z';
      for (const key of ['a', 'b', 'c', 'd', 'e']) cache.get(key, now, count);
      expect(cache.size).toBe(3);
      expect(counted).toBe(5);
      expect(cache.get('e', now, count)).toBe(5);
      expect(counted).toBe(5);
      monotonic += 59_999;
      expect(cache.get('e', now, count)).toBe(5);
      monotonic += 1;
      // Past the time limit the total is counted again.
      expect(cache.get('e', now, count)).toBe(6);
      expect(counted).toBe(6);
    } finally {
      db.close();
    }
  });
});
