import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importOcdsFiles } from '../../../src/service/import/ocds-importer.ts';
import { openDatabase } from '../../../src/service/store/database.ts';
import { PublicRecordsReader } from '../../../src/service/store/public-records-reader.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-import-linear-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One release of one ocid with `size` parties, awards (each to its own supplier) and CPV items. */
function hugeRelease(size: number, ocid: string) {
  const parties = Array.from({ length: size }, (_, index) => ({
    id: `S${index}`,
    name: `Supplier ${index} Ltd`,
    roles: ['supplier'],
    address: { postalCode: 'EH1 1YZ', countryName: 'United Kingdom' },
  }));
  parties.push({ id: 'B', name: 'City of Edinburgh Council', roles: ['buyer'], address: {} as never });
  return {
    ocid,
    id: `${ocid}-1`,
    date: '2025-01-01T00:00:00Z',
    tag: ['award'],
    initiationType: 'tender',
    buyer: { id: 'B', name: 'City of Edinburgh Council' },
    parties,
    tender: {
      id: 'T',
      title: 'A release with very many parties and awards',
      status: 'active',
      items: Array.from({ length: size }, (_, index) => ({
        id: String(index),
        additionalClassifications: [{ scheme: 'CPV', id: String(10_000_000 + index), description: 'Work' }],
      })),
    },
    awards: Array.from({ length: size }, (_, index) => ({
      id: `A${index}`,
      value: { amount: 1, currency: 'GBP' },
      suppliers: [{ id: `S${index}`, name: `Supplier ${index} Ltd` }],
    })),
  };
}

async function timedImport(size: number, format: 'jsonl' | 'package'): Promise<number> {
  const file = join(dir, `${format}-${size}.json`);
  const release = hugeRelease(size, `ocds-test-${format}-${size}`);
  writeFileSync(
    file,
    format === 'jsonl'
      ? `${JSON.stringify(release)}\n`
      : JSON.stringify({ publisher: { name: 'Test' }, releases: [release] }),
  );
  const db = openDatabase(':memory:');
  try {
    const started = performance.now();
    await importOcdsFiles(db, [file]);
    const elapsed = performance.now() - started;
    const reader = new PublicRecordsReader(db);
    expect(reader.counts().suppliers).toBe(size);
    const tender = reader.getTender(release.ocid, new Date('2025-01-02T00:00:00Z'));
    expect(tender?.suppliers).toHaveLength(size);
    expect(tender?.cpvCodes).toHaveLength(size);
    expect(tender?.value?.amount).toBe(size);
    return elapsed;
  } finally {
    db.close();
  }
}

describe('the importer is linear in its input', () => {
  // The JSON Lines reader at the full size; the package reader (a token parser) at half of it.
  it.each([
    ['jsonl', 40_000],
    ['package', 20_000],
  ] as const)(
    'imports one %s release with %i parties, awards and CPV items in time proportional to its size',
    async (format, size) => {
      const small = await timedImport(size / 10, format);
      const large = await timedImport(size, format);
      // Ten times the input: about ten times the time when linear, a hundred when quadratic.
      // The margin is wide because the machine is shared; a quadratic step fails it by far
      // (measured unloaded, in memory: 10,000 in 1.1 s, 100,000 in 8.7 s).
      expect(large / Math.max(small, 50)).toBeLessThan(40);
      expect(large).toBeLessThan(120_000);
    },
    300_000,
  );
});
