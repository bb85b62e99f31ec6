/**
 * In-process CPU of first-time searches, without HTTP (the machine is shared, and HTTP figures
 * move with its load): `node --import tsx bench/cold-search-cpu.ts FILE [WORD]` on a
 * database made by `npm run bench:sandbox` or `tenderbot sandbox serve --demo N` (opened read
 * and write: an older schema is migrated first). Runs what `--count-cache 0` runs: no totals and
 * no word hits kept; the same word every search, and word + one filter with every query new (the
 * six classes of bench/sandbox.ts in turn, then each class alone). Prints µs of CPU and of wall
 * time a search, and the parts: the word's hits straight from the index (WordIndexReader), and
 * through SQL (count, first page, every hit as JSON). N (200 by default) searches of each.
 */
import type { TenderSearchQuery } from '../src/contract/schemas.ts';
import { openDatabase } from '../src/service/store/database.ts';
import { PublicRecordsReader } from '../src/service/store/public-records-reader.ts';
import { WordIndexReader } from '../src/service/store/word-index-reader.ts';

const file = process.argv[2];
if (!file) throw new Error('usage: cold-search-cpu.ts FILE [WORD]');
const word = process.argv[3] ?? 'cleaning';
const N = Number(process.env.N ?? 200);
const db = openDatabase(file);
const reader = new PublicRecordsReader(db, 0);
const now = new Date();

function measure(label: string, fn: (n: number) => unknown): void {
  for (let n = 0; n < Math.min(20, N); n++) fn(1_000_000 + n);
  const cpu = process.cpuUsage();
  const wall = performance.now();
  for (let n = 0; n < N; n++) fn(n);
  const used = process.cpuUsage(cpu);
  const wallUs = ((performance.now() - wall) * 1000) / N;
  const cpuUs = (used.user + used.system) / N;
  console.log(
    `${label.padEnd(44)} cpu ${cpuUs.toFixed(0).padStart(6)} µs  wall ${wallUs.toFixed(0).padStart(6)} µs`,
  );
}

const column = (sql: string) => db.prepare(sql).pluck().all() as string[];
const regions = column('SELECT DISTINCT region FROM tenders WHERE region IS NOT NULL');
const buyers = column('SELECT buyer_id FROM tenders GROUP BY buyer_id ORDER BY count(*) DESC LIMIT 200');
const cpvs = column('SELECT DISTINCT substr(code, 1, 3) FROM tender_cpv');
const unique = (n: number) => new Date(Date.UTC(2100, 0, 1) + n * 1000).toISOString();
const deadlineBase = Date.now() - 90 * 86_400_000;
const day = 86_400_000;
const filterOf: [string, (n: number) => Partial<TenderSearchQuery>][] = [
  ['region', (n) => ({ region: regions[n % regions.length], publishedTo: unique(n) })],
  [
    'status',
    (n) => ({
      status: (['open', 'closed', 'awarded', 'cancelled', 'planned'] as const)[n % 5],
      publishedTo: unique(n),
    }),
  ],
  ['value range', (n) => ({ valueMin: 10_000 + (n % 100_000), valueMax: 2_000_000 + n })],
  [
    'deadline window',
    (n) => ({
      deadlineFrom: new Date(deadlineBase + n * 1000).toISOString(),
      deadlineTo: new Date(deadlineBase + n * 1000 + 120 * day).toISOString(),
    }),
  ],
  ['CPV prefix', (n) => ({ cpv: cpvs[n % cpvs.length], publishedTo: unique(n) })],
  ['buyer', (n) => ({ buyerId: buyers[n % buyers.length], publishedTo: unique(n) })],
];
const search = (filters: Partial<TenderSearchQuery>) =>
  reader.searchTenders({ q: word, limit: 20, offset: 0, ...filters }, now);

// The filter columns are read on the first filtered search: not part of any figure below.
search({ region: 'London' });
console.log(`${file}: "${word}" ${search({}).total.toLocaleString('en-GB')} hits, N=${N}`);
measure('word search, nothing kept', () => search({}));
measure('word + one filter (six in turn), nothing kept', (n) => {
  const [, filter] = filterOf[n % filterOf.length] as (typeof filterOf)[number];
  return search(filter(Math.floor(n / filterOf.length)));
});
for (const [name, filter] of filterOf) measure(`  word + ${name}`, (n) => search(filter(n)));
const words = new WordIndexReader(db);
const match = `"${word}"*`;
measure("  the word's hits from the index's pages", () => words.hitsOf([word]));
const count = db.prepare('SELECT count(*) FROM tender_words WHERE tender_words MATCH ?').pluck();
const page = db
  .prepare('SELECT rowid FROM tender_words WHERE tender_words MATCH ? ORDER BY rowid LIMIT 20')
  .pluck();
const hits = db
  .prepare('SELECT json_group_array(rowid) FROM tender_words WHERE tender_words MATCH ?')
  .pluck();
measure('  SQL: count(*)', () => count.get(match));
measure('  SQL: first page of 20 rowids', () => page.all(match));
measure('  SQL: every hit as one JSON array, parsed', () => JSON.parse(hits.get(match) as string));
words.close();
await reader.close();
db.close();
