/**
 * The plain way, as ../shared/ANCHORS.md measures it: Fastify + better-sqlite3 over the same
 * SQLite file, an FTS5 match joined to the rows and sorted by publication date, LIMIT 20, with
 * a count(*) of the same match for the total; detail reads by primary key. No cache, no tricks:
 * the baseline every bench:sandbox figure is compared with in the same run.
 *
 *   node --import tsx bench/support/serve-plain.ts --db FILE   (prints "listening on URL")
 */
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import Fastify from 'fastify';

const { values } = parseArgs({ options: { db: { type: 'string' }, port: { type: 'string', default: '0' } } });
if (!values.db) throw new Error('--db FILE is required');
const db = new Database(values.db, { readonly: true, fileMustExist: true });
db.pragma('cache_size = -64000');

const COLUMNS = `t.id, t.title, t.description, t.status, t.buyer_id, t.buyer_name, t.value_amount, t.value_currency,
  t.published_at, t.deadline, t.region, t.cpv_codes, t.source_name, t.source_id, t.url`;

type Query = Record<string, string | undefined>;

/** The filters written the obvious way; the status as it stands now (a passed deadline is closed). */
function where(query: Query, params: Record<string, unknown>): string {
  const conditions = ['tender_words MATCH @match'];
  // Words as runs of letters and digits: the word index keeps no positions (schema step 9), so a
  // "word" it would split in two (a hyphenated BENCH_WORD) would be a phrase it cannot match.
  params.match = (query.q ?? '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((word) => `"${word}"*`)
    .join(' ');
  if (query.status) {
    conditions.push(
      `(CASE WHEN t.status = 'open' AND t.open_until <= @now THEN 'closed' ELSE t.status END) = @status`,
    );
    params.status = query.status;
    params.now = `${new Date().toISOString().slice(0, 19)}Z`;
  }
  if (query.region) {
    conditions.push('t.region = @region COLLATE NOCASE');
    params.region = query.region;
  }
  if (query.buyerId) {
    conditions.push('t.buyer_id = @buyerId');
    params.buyerId = query.buyerId;
  }
  if (query.cpv) {
    conditions.push('EXISTS (SELECT 1 FROM tender_cpv c WHERE c.tender_id = t.id AND c.code LIKE @cpv)');
    params.cpv = `${query.cpv}%`;
  }
  if (query.valueMin) {
    conditions.push('t.value_amount >= @valueMin');
    params.valueMin = Number(query.valueMin);
  }
  if (query.valueMax) {
    conditions.push('t.value_amount <= @valueMax');
    params.valueMax = Number(query.valueMax);
  }
  if (query.deadlineFrom) {
    conditions.push('t.deadline >= @deadlineFrom');
    params.deadlineFrom = query.deadlineFrom;
  }
  if (query.deadlineTo) {
    conditions.push('t.deadline < @deadlineTo');
    params.deadlineTo = query.deadlineTo;
  }
  if (query.publishedTo) {
    conditions.push('t.published_at < @publishedTo');
    params.publishedTo = query.publishedTo;
  }
  return conditions.join(' AND ');
}

const statements = new Map<string, Database.Statement>();
const prepared = (sql: string) => {
  let statement = statements.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
};

const app = Fastify({ logger: false });
app.get('/tenders', async (request) => {
  const query = request.query as Query;
  const params: Record<string, unknown> = {};
  const filter = where(query, params);
  const from = 'FROM tender_words w JOIN tenders t ON t.sort_key = w.rowid';
  const data = prepared(
    `SELECT ${COLUMNS} ${from} WHERE ${filter} ORDER BY t.published_at DESC LIMIT 20`,
  ).all(params);
  const total = (
    prepared(`SELECT count(*) AS total ${from} WHERE ${filter}`).get(params) as { total: number }
  ).total;
  return { data, pagination: { total, limit: 20, offset: 0 } };
});
app.get('/tenders/:id', async (request, reply) => {
  const row = prepared(`SELECT ${COLUMNS} FROM tenders t WHERE t.id = ?`).get(
    (request.params as { id: string }).id,
  );
  if (!row) return reply.code(404).send({ title: 'not found' });
  return { data: row };
});

const address = await app.listen({ host: '127.0.0.1', port: Number(values.port) });
console.log(`listening on ${address}`);
process.on('SIGTERM', () => {
  void app.close().then(() => {
    db.close();
    process.exit(0);
  });
});
