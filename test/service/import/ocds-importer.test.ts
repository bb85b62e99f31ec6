import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ImportResult, importOcdsFiles } from '../../../src/service/import/ocds-importer.ts';
import { openDatabase } from '../../../src/service/store/database.ts';
import { PublicRecordsReader } from '../../../src/service/store/public-records-reader.ts';
import { buyerIdFor, supplierIdFor } from '../../../src/service/store/public-records-writer.ts';
import { OCDS_DIR, readmeCounts } from '../../support/ocds-data.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const counts = readmeCounts();
const files = counts.map((row) => join(OCDS_DIR, row.file));

// The Canada file is most of this file's time, so it is imported twice, not once per test: each
// file is imported alone into a database of its own (its README counts), the Canada file's being
// the one the others then join; the second import of all of them, and what the records say, use it.
const CANADA = 'canada-buyandsell.releases.jsonl.gz';
const allDb = openDatabase(join(dir, 'all.db'));
const reader = new PublicRecordsReader(allDb);
const alone = new Map<
  string,
  { result: ImportResult | undefined; counts: ReturnType<PublicRecordsReader['counts']> }
>();
beforeAll(async () => {
  for (const row of counts) {
    const db = row.file === CANADA ? allDb : openDatabase(join(dir, `${row.file}.db`));
    try {
      const [result] = await importOcdsFiles(db, [join(OCDS_DIR, row.file)]);
      alone.set(row.file, { result, counts: new PublicRecordsReader(db).counts() });
    } finally {
      if (db !== allDb) db.close();
    }
  }
  await importOcdsFiles(
    allDb,
    counts.filter((row) => row.file !== CANADA).map((row) => join(OCDS_DIR, row.file)),
  );
}, 300_000);
afterAll(() => allDb.close());

describe('importing the real OCDS files', () => {
  it('finds the three files of the README', () => {
    expect(counts.map((row) => row.file).sort()).toEqual([
      CANADA,
      'uk-ccs-frameworks.releases.jsonl.gz',
      'uk-notices.releases.jsonl.gz',
    ]);
  });

  it.each(counts)(
    'imports $file with the README’s counts: a tender per ocid, buyers and suppliers by name',
    (row) => {
      const { result, counts: imported } = alone.get(row.file) ?? {};
      expect(result).toEqual({ file: row.file, releases: row.releases, skipped: 0 });
      expect(imported?.tenders).toBe(row.distinctOcids);
      expect(imported?.buyers).toBe(row.buyersByName);
      expect(imported?.suppliers).toBe(row.suppliersByName);
      // The CCS file is one framework agreement per release.
      if (row.file.startsWith('uk-ccs-frameworks')) expect(imported?.frameworks).toBe(row.releases);
    },
  );

  it('imports all files into one database, and a second import changes no count and no record', async () => {
    const first = reader.counts();
    expect(first.tenders).toBe(counts.reduce((sum, row) => sum + row.distinctOcids, 0));
    const sample = reader.searchTenders({ q: 'cleaning', limit: 50, offset: 0 });
    const framework = reader.getFramework('ocds-ccs-RM6141', '2026-11-21');

    await importOcdsFiles(allDb, files);
    expect(reader.counts()).toEqual(first);
    expect(reader.searchTenders({ q: 'cleaning', limit: 50, offset: 0 })).toEqual(sample);
    expect(reader.getFramework('ocds-ccs-RM6141', '2026-11-21')).toEqual(framework);
  }, 120_000);

  it('maps a Contracts Finder award notice: buyer, value, CPV, NUTS region, suppliers, link', async () => {
    const tender = reader.getTender('ocds-b5fd17-e3b5f385-5989-4cf1-8849-01c247fc9c30');
    expect(tender).toMatchObject({
      title: 'Parking Pilot - CEO',
      status: 'awarded',
      buyer: { id: buyerIdFor('London Borough of Merton'), name: 'London Borough of Merton' },
      value: { amount: 372032, currency: 'GBP' },
      deadline: '2024-12-21T12:00:00Z',
      awardedAt: '2024-12-22T00:00:00Z',
      cpvCodes: [{ code: '63712400', description: 'Parking services' }],
      source: { name: 'Contracts Finder', id: 'MRTN001-DN756786-01185010' },
      url: 'https://www.contractsfinder.service.gov.uk/Notice/2a1e3359-87a0-4fdd-ac61-20d5e6520a13',
      suppliers: [{ id: supplierIdFor('Marstons holdings plc'), name: 'Marstons holdings plc' }],
    });
  });

  it('merges a Canadian contract’s amendments: the latest amount of each award, summed', async () => {
    const tender = reader.getTender('ocds-canada-bas-PW-$$FG-207-63904');
    expect(tender?.status).toBe('awarded');
    expect(tender?.value).toEqual({ amount: 355820, currency: 'CAD' });
    expect(tender?.title).toBe('Heating (except electric heating) and Air Conditioning');
    expect(tender?.suppliers.map((supplier) => supplier.name)).toEqual(['Carmichael Engineering Limited']);
  });

  it('makes CCS agreements frameworks with their lots and owner', async () => {
    const framework = reader.getFramework('ocds-ccs-RM1043.6', '2026-11-21');
    expect(framework).toMatchObject({
      title: 'Digital Outcomes & Specialists 4',
      status: 'expired',
      type: 'framework',
      owner: { name: 'Crown Commercial Service' },
      startDate: '2019-10-01',
      endDate: '2021-06-30',
      supplierCount: null,
      callOffCount: 0,
    });
    expect(framework?.lots.map((lot) => lot.id)).toEqual(['1', '2', '3', '4']);
  });

  it('names UK regions from NUTS codes so that region filters find them', async () => {
    const scotland = reader.searchTenders({ region: 'scotland', limit: 100, offset: 0 });
    expect(scotland.total).toBeGreaterThan(50);
    expect(scotland.items.every((tender) => tender.region === 'Scotland')).toBe(true);
  });
});
