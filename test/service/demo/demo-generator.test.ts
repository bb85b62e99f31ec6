import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateDemoData } from '../../../src/service/demo/demo-generator.ts';
import { importOcdsFiles } from '../../../src/service/import/ocds-importer.ts';
import { openDatabase } from '../../../src/service/store/database.ts';
import { publicRecordsSource } from '../../../src/service/store/public-records-meta.ts';
import { PublicRecordsReader } from '../../../src/service/store/public-records-reader.ts';
import { OCDS_DIR } from '../../support/ocds-data.ts';

const today = new Date('2026-11-21T00:00:00Z');

function generate(seed: number, tenders = 1000) {
  const db = openDatabase(':memory:');
  generateDemoData(db, { tenders, seed, today });
  return { db, reader: new PublicRecordsReader(db) };
}

describe('demo data', () => {
  it('is deterministic: the same seed gives the same records, another seed others', () => {
    const first = generate(7);
    const second = generate(7);
    const other = generate(8);
    const page = { limit: 100, offset: 0 };
    expect(second.reader.searchTenders(page)).toEqual(first.reader.searchTenders(page));
    expect(second.reader.listBuyers(page)).toEqual(first.reader.listBuyers(page));
    expect(other.reader.searchTenders(page)).not.toEqual(first.reader.searchTenders(page));
  });

  it('has the size asked for, and records big enough to show every cap', () => {
    const { db, reader } = generate(1);
    const counts = reader.counts();
    expect(counts.tenders).toBe(1000);
    const busiestBuyer = db
      .prepare('SELECT max(n) AS n FROM (SELECT count(*) AS n FROM tenders GROUP BY buyer_id)')
      .get();
    expect((busiestBuyer as { n: number }).n).toBeGreaterThan(100);
    const busiestSupplier = db
      .prepare('SELECT max(n) AS n FROM (SELECT count(*) AS n FROM tender_suppliers GROUP BY supplier_id)')
      .get() as { n: number };
    expect(busiestSupplier.n).toBeGreaterThan(100);
    const framework = reader.getFramework('ocds-tbdemo-fw-0001', '2026-11-21');
    expect(framework?.supplierCount).toBeGreaterThan(100);
    expect(framework?.callOffCount).toBeGreaterThan(100);
  });

  it('looks real: UK regions, real CPV codes, GBP values, deadlines around today, no publication in the future', () => {
    const { reader } = generate(3);
    const tenders = reader.searchTenders({ limit: 100, offset: 0 }, today).items;
    const regions = new Set(tenders.map((tender) => tender.region));
    expect(regions.size).toBeGreaterThan(5);
    for (const tender of tenders) {
      expect(tender.cpvCodes[0]?.code).toMatch(/^\d{8}$/);
      expect(tender.cpvCodes[0]?.description).toBeTruthy();
      if (tender.value) expect(tender.value.currency).toBe('GBP');
      expect(tender.publishedAt <= '2026-11-21T00:00:00Z').toBe(true);
    }
    // Asked on the day the data was generated for, whatever the machine's date.
    const open = reader.searchTenders({ status: 'open', limit: 100, offset: 0 }, today);
    const closed = reader.searchTenders({ status: 'closed', limit: 100, offset: 0 }, today);
    expect(open.total).toBeGreaterThan(0);
    expect(closed.total).toBeGreaterThan(0);
    for (const tender of open.items) expect(tender.deadline && tender.deadline > '2026-11-21').toBe(true);
  });

  it('is never added to imported public records, and says where its records came from', async () => {
    const db = openDatabase(':memory:');
    try {
      generateDemoData(db, { tenders: 50, today });
      expect(publicRecordsSource(db)).toBe('demo');
      const imported = openDatabase(':memory:');
      try {
        await importOcdsFiles(imported, [join(OCDS_DIR, 'uk-ccs-frameworks.releases.jsonl.gz')]);
        expect(publicRecordsSource(imported)).toBe('imported');
        expect(() => generateDemoData(imported, { tenders: 50, today })).toThrow(
          /holds imported public records; demo tenders are never added/,
        );
        expect(new PublicRecordsReader(imported).counts().tenders).toBe(127);
      } finally {
        imported.close();
      }
    } finally {
      db.close();
    }
  });
});
