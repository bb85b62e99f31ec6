import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenderList } from '../../../src/contract/schemas.ts';
import { openDatabase, type SqliteDatabase } from '../../../src/service/store/database.ts';
import { toStoredInstant } from '../../../src/service/store/public-records-reader.ts';
import { PublicRecordsWriter } from '../../../src/service/store/public-records-writer.ts';
import { editDistance } from '../../../src/service/store/word-suggestions.ts';
import { KEYS } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

let sandbox: TestSandbox;
let db: SqliteDatabase;
const get = (path: string) => sandbox.call('GET', path, { key: KEYS.aliceAcme });

beforeAll(async () => {
  sandbox = await startTestSandbox();
  db = openDatabase(sandbox.dbPath);
}, 120_000);
afterAll(async () => {
  db.close();
  await sandbox.stop();
});

/** How many tenders hold `word` as written, read from the index of words as written. */
function tendersHolding(word: string): number {
  return db
    .prepare('SELECT count(*) FROM tender_exact_words WHERE tender_exact_words MATCH ?')
    .pluck()
    .get(`"${word}"`) as number;
}

describe('suggestions for misspelt words, from the data’s own vocabulary', () => {
  it('answers a search that found nothing with the nearest word the tenders hold, which finds tenders', async () => {
    // Demo tenders hold these words; each misspelling is one edit away (a swap counts one).
    for (const [typed, meant] of [
      ['clenaing', 'cleaning'],
      ['softwear', 'software'],
      ['cosntruction', 'construction'],
    ] as const) {
      expect(tendersHolding(meant), meant).toBeGreaterThan(0);
      expect(tendersHolding(typed), typed).toBe(0);
      const answer = await get(`/v1/tenders?q=${typed}`);
      expect(answer.status).toBe(200);
      const list = TenderList.parse(answer.body);
      expect(list.pagination.total).toBe(0);
      expect(list.suggestions).toEqual([{ word: typed, correction: meant }]);
      const corrected = await get(`/v1/tenders?q=${list.suggestions?.[0]?.correction}`);
      expect(corrected.body.pagination.total).toBeGreaterThan(0);
    }
  });

  it('names only the words that find nothing alone, and nothing for a search that found tenders', async () => {
    const both = TenderList.parse((await get('/v1/tenders?q=cleaning%20softwear%20zzzzzzzzzz')).body);
    expect(both.pagination.total).toBe(0);
    // "cleaning" finds tenders alone; "zzzzzzzzzz" is near no word.
    expect(both.suggestions).toEqual([{ word: 'softwear', correction: 'software' }]);
    const found = (await get('/v1/tenders?q=cleaning')).body;
    expect(found.pagination.total).toBeGreaterThan(0);
    expect(found).not.toHaveProperty('suggestions');
  });

  it('never reads the vocabulary on a request: right after an import it answers at once, and suggests the new words once their read in the background is done', async () => {
    const publicRecords = sandbox.app.serviceContext.publicRecords;
    const readsBefore = publicRecords.wordVocabularyReadsOnThisThread;
    // Read once, at the start, before the server listened.
    expect(readsBefore).toBe(1);
    // An import by another process: another connection commits a tender with a word new to the data.
    const writer = new PublicRecordsWriter(db);
    db.transaction(() => {
      writer.writeRelease({
        id: 'ocds-test-quokka-habitat',
        releaseDate: toStoredInstant(new Date()),
        title: 'Quokkarium habitat upkeep',
        description: null,
        status: 'open',
        buyer: null,
        value: null,
        deadline: null,
        region: 'Wales',
        cpvCodes: [],
        sourceName: 'test',
        sourceId: 'quokka-habitat',
        url: null,
        frameworkId: null,
        awards: [],
        framework: null,
      });
      writer.finish();
    })();
    expect(tendersHolding('quokkarium')).toBe(1);

    const first = TenderList.parse((await get('/v1/tenders?q=quokkarim%20clenaing')).body);
    expect(first.pagination.total).toBe(0);
    // The vocabulary held before the import answers what it knows; the new word waits for the new one.
    expect(first.suggestions).toEqual([{ word: 'clenaing', correction: 'cleaning' }]);
    expect(publicRecords.wordVocabularyReadsOnThisThread).toBe(readsBefore);

    expect(await publicRecords.wordVocabularyReady()).toBe(true);
    const later = TenderList.parse((await get('/v1/tenders?q=quokkarim%20clenaing')).body);
    expect(later.suggestions).toEqual([
      { word: 'quokkarim', correction: 'quokkarium' },
      { word: 'clenaing', correction: 'cleaning' },
    ]);
    expect(publicRecords.wordVocabularyReadsOnThisThread).toBe(readsBefore);
    expect((await get('/v1/tenders?q=quokkarium')).body.pagination.total).toBe(1);
  });

  it('counts a swap of neighbouring letters as one edit, and stops past the limit', () => {
    expect(editDistance('clenaing', 'cleaning', 2)).toBe(1);
    expect(editDistance('softwear', 'software', 2)).toBe(2);
    expect(editDistance('abc', 'xyz', 1)).toBe(2);
  });
});
