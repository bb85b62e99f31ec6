import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/service/store/database.ts';
import {
  PublicRecordsWriter,
  type TenderReleaseInput,
} from '../../../src/service/store/public-records-writer.ts';
import { KEYS } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

let sandbox: TestSandbox;
const get = (path: string) => sandbox.call('GET', path, { key: KEYS.aliceAcme });

/** As the OCDS import maps them: the ocid is the id, tender.id the source's own reference. */
const TENDERS: [id: string, sourceId: string, sourceName: string][] = [
  ['ocds-canada-bas-PW-14-00627094', '14-2015', 'Buyandsell.gc.ca'],
  ['ocds-b5fd17-e3b5f385-5989-4cf1-8849-01c247fc9c30', 'MRTN001-DN756786-01185010', 'Contracts Finder'],
  ['ocds-canada-bas-PW-14-00629344', 'AL1499', 'Buyandsell.gc.ca'],
  ['ocds-canada-bas-PW-14-00625125', 'AL1499', 'Buyandsell.gc.ca'],
];

function release([id, sourceId, sourceName]: (typeof TENDERS)[number], index: number): TenderReleaseInput {
  return {
    id,
    releaseDate: `2026-03-${String(10 + index).padStart(2, '0')}T09:00:00Z`,
    title: `Referenced tender ${index}`,
    description: null,
    status: 'awarded',
    buyer: null,
    value: null,
    deadline: null,
    region: null,
    cpvCodes: [],
    sourceName,
    sourceId,
    url: null,
    frameworkId: null,
    awards: [],
    framework: null,
  };
}

beforeAll(async () => {
  sandbox = await startTestSandbox();
  const db = openDatabase(sandbox.dbPath);
  try {
    const writer = new PublicRecordsWriter(db);
    db.transaction(() => {
      TENDERS.forEach((tender, index) => {
        writer.writeRelease(release(tender, index));
      });
      writer.finish();
    })();
  } finally {
    db.close();
  }
}, 120_000);
afterAll(() => sandbox.stop());

describe('a tender found by the reference its source prints', () => {
  it('GET /v1/tenders/{reference}: the source reference, the ocid without its prefix, any letter case', async () => {
    for (const [reference, id] of [
      ['14-2015', 'ocds-canada-bas-PW-14-00627094'],
      ['PW-14-00627094', 'ocds-canada-bas-PW-14-00627094'],
      ['pw-14-00627094', 'ocds-canada-bas-PW-14-00627094'],
      ['e3b5f385-5989-4cf1-8849-01c247fc9c30', 'ocds-b5fd17-e3b5f385-5989-4cf1-8849-01c247fc9c30'],
      ['mrtn001-dn756786-01185010', 'ocds-b5fd17-e3b5f385-5989-4cf1-8849-01c247fc9c30'],
      ['ocds-canada-bas-PW-14-00625125', 'ocds-canada-bas-PW-14-00625125'],
    ]) {
      const answer = await get(`/v1/tenders/${encodeURIComponent(reference as string)}`);
      expect(answer.status, reference).toBe(200);
      expect(answer.body.data.id, reference).toBe(id);
    }
  });

  it('says how many tenders share a reference, and lists them with ?reference=', async () => {
    const shared = await get('/v1/tenders/AL1499');
    expect(shared.status).toBe(404);
    expect(shared.body.detail).toBe(
      '2 tenders have the reference AL1499: list them with GET /v1/tenders?reference=.',
    );
    const listed = await get('/v1/tenders?reference=al1499');
    expect(listed.status).toBe(200);
    expect(listed.body.pagination.total).toBe(2);
    // Newest first.
    expect(listed.body.data.map((tender: { id: string }) => tender.id)).toEqual([
      'ocds-canada-bas-PW-14-00625125',
      'ocds-canada-bas-PW-14-00629344',
    ]);
    const withWords = await get('/v1/tenders?reference=PW-14-00627094&q=referenced');
    expect(withWords.body.data.map((tender: { id: string }) => tender.id)).toEqual([
      'ocds-canada-bas-PW-14-00627094',
    ]);
    expect((await get('/v1/tenders?reference=PW-14-00627094&q=nothingsuch')).body.pagination.total).toBe(0);
    const unknown = await get('/v1/tenders/NO-SUCH-REF-1');
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toBe('Tender NO-SUCH-REF-1 was not found.');
    const blank = await get('/v1/tenders?reference=%20');
    expect(blank.status).toBe(400);
    expect(JSON.stringify(blank.body.errors)).toContain('must not be blank');
  });
});
