import Database, { type Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './database.ts';

/**
 * How tender_words splits text into words (schema step 9): each word's Porter stem, letters
 * folded and diacritics removed. The tokenizer helper below must split exactly as the index does.
 */
export const TENDER_WORDS_TOKENIZE = 'porter unicode61 remove_diacritics 2';

/** The prefix lengths (in characters) tender_words has an index for, in the order it declares them. */
export const TENDER_WORDS_PREFIXES = [2, 3, 4, 5, 6, 7, 8, 9, 10] as const;

/** Search words whose stems are kept at most (word → stem): the stem of a word never changes. */
const STEMS_KEPT = 4096;

/**
 * Reads a word search's hits (tender sort keys, ascending) straight from tender_words' own pages,
 * without a row per hit through SQL.
 *
 * Counting the hits of "cleaning" through SQL costs about 55 ns a hit, whatever the index holds
 * (detail=full or none): each hit is a step of the query engine and a call into FTS5. Its index
 * (detail=none since schema step 9) holds for each stem prefix only the list of rowids, as
 * varint deltas on pages of the tender_words_data table; decoding them here costs a few ns a hit
 * (9,341 hits at 100,000 tenders: a few pages). The pages are read as FTS5 writes them
 * (fts5_index.c: structure record, `%_idx` to find a term's leaf page, leaves with a page index
 * of term offsets, doclists running on over later pages).
 *
 * Only the simple case is read here, which is what the writer leaves after every rewrite
 * ('rebuild' then 'optimize'): one segment, no delete marks, each word a stem prefix of a length
 * the index keeps. Anything else answers null, and the caller asks SQL: the same hits, slower.
 */
export class WordIndexReader {
  private readonly structure: Statement;
  private readonly leafOf: Statement;
  private readonly pages: Statement;
  private readonly read: (words: readonly string[]) => Int32Array | null;
  private tokenizer: Tokenizer | null = null;
  private readonly stems = new Map<string, string | null>();
  private detailNone: boolean | null = null;
  /** Where doclists are read into, grown as needed: the first word's hits, and the next word's. */
  private readonly buffers: [Int32Array, Int32Array] = [new Int32Array(4096), new Int32Array(4096)];
  /** Where decodeRun leaves its offset and last rowid. */
  private readonly state = new Float64Array(2);

  constructor(private readonly db: SqliteDatabase) {
    this.structure = db.prepare('SELECT block FROM tender_words_data WHERE id = 10').pluck();
    this.leafOf = db
      .prepare('SELECT pgno FROM tender_words_idx WHERE segid = ? AND term <= ? ORDER BY term DESC LIMIT 1')
      .pluck();
    this.pages = db.prepare('SELECT id, block FROM tender_words_data WHERE id BETWEEN ? AND ?').raw();
    // One read transaction: the structure and the pages it names as of the same commit, even while
    // another connection rewrites the index (segment ids are used again).
    this.read = db.transaction((words: readonly string[]) => this.readHits(words));
  }

  /**
   * The sort keys of the tenders holding every one of `words` as a prefix of a stem (as the match
   * `"word1"* "word2"*` finds them), ascending; null when this index cannot be read here. The
   * array is a view of this reader's own buffer, valid until its next call: copy it to keep it
   * (a fresh array of 9,341 keys cost more to allocate than to fill, about 50 µs).
   */
  hitsOf(words: readonly string[]): Int32Array | null {
    if (words.length === 0 || !this.isDetailNone()) return null;
    // Stems first, outside the transaction: the tokenizer has a database of its own.
    for (const word of words) if (this.stemOf(word) === null) return null;
    return this.read(words);
  }

  private readHits(words: readonly string[]): Int32Array | null {
    const segment = this.onlySegment();
    if (segment === null) return null;
    let count = 0;
    for (const [position, word] of words.entries()) {
      const stem = this.stemOf(word);
      if (stem === null) return null;
      const prefixIndex = TENDER_WORDS_PREFIXES.indexOf(
        [...stem].length as (typeof TENDER_WORDS_PREFIXES)[number],
      );
      if (prefixIndex < 0) return null;
      // A prefix index's terms begin with '0' + its position (1-based); the main index's with '0'.
      const term = Buffer.concat([Buffer.from([0x30 + prefixIndex + 1]), Buffer.from(stem, 'utf8')]);
      const found = this.doclist(segment, term, position === 0 ? 0 : 1);
      if (found < 0) return null;
      count = position === 0 ? found : intersectInto(this.buffers[0], count, this.buffers[1], found);
      if (count === 0) break;
    }
    return this.buffers[0].subarray(0, count);
  }

  /** Closes the tokenizer's own in-memory database. */
  close(): void {
    this.tokenizer?.db.close();
    this.tokenizer = null;
  }

  private isDetailNone(): boolean {
    if (this.detailNone === null) {
      const sql = this.db
        .prepare("SELECT sql FROM sqlite_schema WHERE name = 'tender_words'")
        .pluck()
        .get() as string | undefined;
      this.detailNone = sql !== undefined && /detail\s*=\s*'?none'?/i.test(sql);
    }
    return this.detailNone;
  }

  /** The index's one segment, or null when it has several (or a format this does not read). */
  private onlySegment(): Segment | null {
    const block = this.structure.get() as Buffer | undefined;
    if (!block || block.length < 8) return null;
    // V2 structure records (contentless_delete tables) carry tombstones: not read here.
    if (block[4] === 0xff && block[5] === 0x00 && block[6] === 0x00 && block[7] === 0x01) return null;
    const at = { offset: 4 };
    const levels = readVarint(block, at);
    const segments = readVarint(block, at);
    if (segments !== 1) return null;
    readVarint(block, at); // write counter
    for (let level = 0; level < levels && at.offset < block.length; level++) {
      readVarint(block, at); // segments being merged
      const total = readVarint(block, at);
      if (total === 1) {
        const id = readVarint(block, at);
        const firstPage = readVarint(block, at);
        const lastPage = readVarint(block, at);
        return firstPage === 0 ? null : { id, firstPage, lastPage };
      }
      if (total !== 0) return null;
    }
    return null;
  }

  /**
   * Reads every rowid of `term` in `segment`, ascending, into buffer `into`, and answers how many
   * (0 when the term is absent); -1 when the doclist holds a delete mark or the pages are not as
   * expected.
   */
  private doclist(segment: Segment, term: Buffer, into: 0 | 1): number {
    const found = this.leafOf.get(segment.id, term) as number | undefined;
    let page = found === undefined ? segment.firstPage : Math.max(found >> 1, segment.firstPage);
    const rows = this.pages.iterate(pageRowid(segment.id, page), pageRowid(segment.id, segment.lastPage));
    try {
      let leaf = leafAt(rows.next(), segment, page);
      if (leaf === null) return -1;
      const seek = seekTerm(leaf, term);
      if (seek === null) return 0;
      let [offset, endOfDoclist] = seek;
      let sizeOfLeaf = leaf.readUInt16BE(2);
      let hits = this.buffers[into];
      let count = 0;
      let rowid = 0;
      // The first rowid is whole; the others are deltas, and a doclist that runs on to the next
      // leaf starts there again from 0 (fts5SegIterLoadRowid, fts5SegIterNext_None). No closures
      // here: the loop's variables stay in registers (a closure made it 17 ns a hit instead of 2).
      for (let first = true; ; first = false) {
        while (offset >= sizeOfLeaf) {
          page++;
          if (page > segment.lastPage) return first ? -1 : count;
          leaf = leafAt(rows.next(), segment, page);
          if (leaf === null) return -1;
          sizeOfLeaf = leaf.readUInt16BE(2);
          offset = 4;
          endOfDoclist = sizeOfLeaf >= leaf.length ? leaf.length + 1 : firstTermOffset(leaf);
          rowid = 0;
        }
        if (!first && offset >= endOfDoclist) return count;
        // The rest of this leaf's run, decoded in a loop of its own (see decodeRun).
        const stop = Math.min(endOfDoclist, sizeOfLeaf);
        if (hits.length < count + (stop - offset)) {
          hits = grow(hits, count + (stop - offset));
          this.buffers[into] = hits;
        }
        const run = decodeRun(leaf, offset, stop, rowid, hits, count, this.state);
        if (run < 0) return -1;
        count = run;
        offset = this.state[0] as number;
        rowid = this.state[1] as number;
      }
    } finally {
      rows.return?.();
    }
  }

  /** The word's stem as tender_words holds it; null when the tokenizer makes it other than one word. */
  private stemOf(word: string): string | null {
    const known = this.stems.get(word);
    if (known !== undefined) return known;
    this.tokenizer ??= openTokenizer();
    const { clear, add, terms } = this.tokenizer;
    clear.run();
    add.run(word);
    const found = terms.all() as { term: string; cnt: number }[];
    const stem = found.length === 1 && found[0]?.cnt === 1 ? found[0].term : null;
    if (this.stems.size >= STEMS_KEPT) this.stems.clear();
    this.stems.set(word, stem);
    return stem;
  }
}

interface Segment {
  id: number;
  firstPage: number;
  lastPage: number;
}

interface Tokenizer {
  db: Database.Database;
  clear: Statement;
  add: Statement;
  terms: Statement;
}

/** An in-memory FTS5 table with tender_words' tokenizer, whose vocabulary says how it splits a word. */
function openTokenizer(): Tokenizer {
  const db = new Database(':memory:');
  db.exec(`
    CREATE VIRTUAL TABLE words USING fts5 (text, tokenize='${TENDER_WORDS_TOKENIZE}');
    CREATE VIRTUAL TABLE words_vocabulary USING fts5vocab (words, 'row');
  `);
  return {
    db,
    clear: db.prepare('DELETE FROM words'),
    add: db.prepare('INSERT INTO words (rowid, text) VALUES (1, ?)'),
    terms: db.prepare('SELECT term, cnt FROM words_vocabulary'),
  };
}

/**
 * Decodes the rowid deltas of `leaf[offset..stop)` after `rowid` into `hits` from `count` on
 * (each delta is at least one byte, so `hits` has room), and answers the new count, leaving the
 * offset and the last rowid in `state`; -1 at a delete mark (a 0x00 after a rowid: a delta is
 * never 0). A function of its own so that its loop is compiled on its own, tight.
 */
function decodeRun(
  leaf: Buffer,
  offset: number,
  stop: number,
  rowid: number,
  hits: Int32Array,
  count: number,
  state: Float64Array,
): number {
  let at = offset;
  let key = rowid;
  let n = count;
  while (at < stop) {
    // An SQLite varint: 7 bits a byte, big-endian; rowids here stay far below 2^53.
    let byte = leaf[at++] as number;
    let delta = byte & 0x7f;
    while (byte >= 0x80) {
      byte = leaf[at++] as number;
      delta = delta * 128 + (byte & 0x7f);
    }
    key += delta;
    if (at < stop && leaf[at] === 0) return -1;
    hits[n++] = key;
  }
  state[0] = at;
  state[1] = key;
  return n;
}

/** The block of a row of `pages`, if it is leaf `page` of `segment` (leaves are numbered without gaps). */
function leafAt(row: IteratorResult<unknown>, segment: Segment, page: number): Buffer | null {
  if (row.done) return null;
  const [id, block] = row.value as [number, Buffer];
  return BigInt(id) === pageRowid(segment.id, page) ? block : null;
}

/** The %_data rowid of a segment's leaf page (fts5_index.c, FTS5_SEGMENT_ROWID). */
function pageRowid(segment: number, page: number): bigint {
  return (BigInt(segment) << 37n) + BigInt(page);
}

function firstTermOffset(leaf: Buffer): number {
  return readVarint(leaf, { offset: leaf.readUInt16BE(2) });
}

/**
 * Where `term`'s doclist starts on `leaf` and where it ends on it (the next term's offset, or
 * past the page when it runs on); null when the term is not there (fts5LeafSeek, exact match).
 */
function seekTerm(leaf: Buffer, term: Buffer): [number, number] | null {
  const size = leaf.length;
  const sizeOfLeaf = leaf.readUInt16BE(2);
  if (sizeOfLeaf >= size) return null;
  const index = { offset: sizeOfLeaf };
  let termOffset = readVarint(leaf, index);
  let offset = termOffset;
  let matched = 0;
  let kept = 0;
  while (true) {
    const at = { offset };
    const added = readVarint(leaf, at);
    offset = at.offset;
    if (kept < matched) return null;
    if (offset + added > size) return null;
    if (kept === matched) {
      const compare = Math.min(added, term.length - matched);
      let i = 0;
      while (i < compare && leaf[offset + i] === term[matched + i]) i++;
      matched += i;
      if (matched === term.length) {
        if (i !== added) return null;
        const end = index.offset >= size ? size + 1 : termOffset + readVarint(leaf, { offset: index.offset });
        return [offset + added, end];
      }
      if (i < added && (leaf[offset + i] as number) > (term[matched] as number)) return null;
    }
    if (index.offset >= size) return null;
    termOffset += readVarint(leaf, index);
    offset = termOffset;
    if (offset >= size) return null;
    const keep = { offset };
    kept = readVarint(leaf, keep);
    offset = keep.offset;
  }
}

/** An SQLite varint (big-endian, 7 bits a byte, the ninth byte whole) at `at.offset`, which moves past it. */
function readVarint(bytes: Buffer, at: { offset: number }): number {
  let value = 0;
  for (let i = 0; i < 8; i++) {
    const byte = bytes[at.offset++] as number;
    value = value * 128 + (byte & 0x7f);
    if (byte < 0x80) return value;
  }
  return value * 256 + (bytes[at.offset++] as number);
}

function grow(array: Int32Array, atLeast = 0): Int32Array {
  const larger = new Int32Array(Math.max(array.length * 2, atLeast));
  larger.set(array);
  return larger;
}

/** Keeps in `a[0..aCount)` the keys also in `b[0..bCount)` (both ascending) and answers how many. */
function intersectInto(a: Int32Array, aCount: number, b: Int32Array, bCount: number): number {
  let count = 0;
  let i = 0;
  let j = 0;
  while (i < aCount && j < bCount) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      a[count++] = x;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return count;
}
