/**
 * Versioned schema migrations, applied in order; `PRAGMA user_version` records the last one
 * applied. Never edit a released migration: add the next one.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: public records, organisations and their working data.
  `
  CREATE TABLE organisations (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    plan TEXT NOT NULL
  );
  CREATE TABLE users (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT
  );
  CREATE TABLE memberships (
    organisation_id TEXT NOT NULL REFERENCES organisations(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    role TEXT NOT NULL,
    PRIMARY KEY (organisation_id, user_id)
  );
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    key_hash TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    organisation_id TEXT NOT NULL REFERENCES organisations(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    scopes TEXT NOT NULL,
    expires_at TEXT,
    rate_limit_per_second INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );

  CREATE TABLE buyers (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    region TEXT,
    locality TEXT,
    postal_code TEXT,
    country_code TEXT,
    identifiers TEXT NOT NULL DEFAULT '[]',
    website TEXT,
    type TEXT
  );
  CREATE INDEX buyers_by_name ON buyers (name COLLATE NOCASE, id);
  CREATE TABLE suppliers (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    region TEXT,
    locality TEXT,
    postal_code TEXT,
    country_code TEXT,
    identifiers TEXT NOT NULL DEFAULT '[]',
    website TEXT
  );
  CREATE INDEX suppliers_by_name ON suppliers (name COLLATE NOCASE, id);

  -- sort_key is the tender's position in newest-first order, rewritten after every import,
  -- so that lists and word searches read in key order and never sort.
  CREATE TABLE tenders (
    sort_key INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    description TEXT,
    status TEXT NOT NULL,
    buyer_id TEXT REFERENCES buyers(id),
    buyer_name TEXT,
    source_value_amount REAL,
    source_value_currency TEXT,
    value_amount REAL,
    value_currency TEXT,
    published_at TEXT NOT NULL,
    deadline TEXT,
    awarded_at TEXT,
    region TEXT,
    cpv_codes TEXT NOT NULL DEFAULT '[]',
    source_name TEXT NOT NULL,
    source_id TEXT NOT NULL,
    url TEXT,
    framework_id TEXT,
    suppliers TEXT NOT NULL DEFAULT '[]'
  );
  CREATE INDEX tenders_by_buyer ON tenders (buyer_id, sort_key);
  CREATE INDEX tenders_by_framework ON tenders (framework_id, sort_key);
  CREATE INDEX tenders_by_status ON tenders (status, sort_key);
  CREATE INDEX tenders_by_region ON tenders (region, sort_key);
  CREATE VIRTUAL TABLE tender_words USING fts5 (
    title, description, buyer_name,
    content='tenders', content_rowid='sort_key',
    tokenize='unicode61 remove_diacritics 2', prefix='2 3 4'
  );

  CREATE TABLE tender_cpv (
    tender_id TEXT NOT NULL,
    code TEXT NOT NULL,
    description TEXT,
    PRIMARY KEY (tender_id, code)
  );
  CREATE INDEX tender_cpv_by_code ON tender_cpv (code, tender_id);
  CREATE TABLE tender_awards (
    tender_id TEXT NOT NULL,
    award_id TEXT NOT NULL,
    release_date TEXT NOT NULL,
    amount REAL,
    currency TEXT,
    award_date TEXT,
    PRIMARY KEY (tender_id, award_id)
  );
  CREATE TABLE tender_suppliers (
    supplier_id TEXT NOT NULL REFERENCES suppliers(id),
    tender_id TEXT NOT NULL,
    PRIMARY KEY (supplier_id, tender_id)
  );
  CREATE INDEX tender_suppliers_by_tender ON tender_suppliers (tender_id);

  CREATE TABLE frameworks (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    description TEXT,
    type TEXT NOT NULL,
    owner_id TEXT REFERENCES buyers(id),
    start_date TEXT,
    end_date TEXT,
    value_amount REAL,
    value_currency TEXT,
    url TEXT,
    lots TEXT NOT NULL DEFAULT '[]'
  );

  CREATE VIRTUAL TABLE buyer_words USING fts5 (name, content='buyers', content_rowid='rowid',
    tokenize='unicode61 remove_diacritics 2');
  CREATE VIRTUAL TABLE supplier_words USING fts5 (name, content='suppliers', content_rowid='rowid',
    tokenize='unicode61 remove_diacritics 2');
  CREATE VIRTUAL TABLE framework_words USING fts5 (title, description, content='frameworks',
    content_rowid='rowid', tokenize='unicode61 remove_diacritics 2');

  CREATE TABLE saved_searches (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    organisation_id TEXT NOT NULL REFERENCES organisations(id),
    name TEXT NOT NULL,
    query TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX saved_searches_by_org ON saved_searches (organisation_id, seq);

  CREATE TABLE bookmarks (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL REFERENCES users(id),
    tender_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (user_id, tender_id)
  );
  CREATE INDEX bookmarks_by_tender ON bookmarks (tender_id);

  CREATE TABLE comments (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    organisation_id TEXT NOT NULL REFERENCES organisations(id),
    entity_type TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    parent_id TEXT,
    body TEXT,
    author_id TEXT NOT NULL REFERENCES users(id),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    deleted_at TEXT
  );
  CREATE INDEX comments_by_entity ON comments (organisation_id, entity_type, entity_id, seq);

  CREATE TABLE notifications (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    organisation_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    comment_id TEXT NOT NULL,
    tender_id TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX notifications_by_user ON notifications (user_id, seq);

  CREATE TABLE pipelines (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    organisation_id TEXT NOT NULL REFERENCES organisations(id),
    owner_id TEXT NOT NULL REFERENCES users(id),
    name TEXT NOT NULL,
    summary TEXT,
    status TEXT NOT NULL,
    target_submission_date TEXT,
    tender_id TEXT,
    archived INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX pipelines_by_org ON pipelines (organisation_id, seq);
  CREATE TABLE pipeline_members (
    pipeline_id TEXT NOT NULL REFERENCES pipelines(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    permission TEXT NOT NULL,
    PRIMARY KEY (pipeline_id, user_id)
  );
  CREATE TABLE stages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    pipeline_id TEXT NOT NULL REFERENCES pipelines(id),
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    expected_duration_days REAL,
    status TEXT NOT NULL,
    notes TEXT,
    due_date TEXT
  );
  CREATE INDEX stages_by_pipeline ON stages (pipeline_id, position);

  -- A creation's idempotency key, remembered per organisation, creator and endpoint.
  CREATE TABLE idempotency_keys (
    organisation_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    key TEXT NOT NULL,
    content TEXT NOT NULL,
    record_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (organisation_id, user_id, endpoint, key)
  );
  `,
  // 2: a narrow index over every tender filter column, so that counting the hits of a filtered
  // word search reads compact index pages instead of whole tender rows (14 ms -> 3.7 ms at 9,000 hits).
  `
  CREATE INDEX tenders_filters ON tenders (sort_key, status, region, buyer_id, value_amount, published_at, deadline, id);
  `,
  // 3: status against the clock, where public records came from, and whether an import finished.
  // open_until is when a tender stored as open stops being open: its deadline, or for a notice
  // with no deadline, 90 days after its latest release (NO_DEADLINE_OPEN_DAYS; see the writer).
  // It is null for every other status, so `open_until > now` is exactly "open now".
  `
  ALTER TABLE tenders ADD COLUMN open_until TEXT;
  UPDATE tenders SET open_until = CASE WHEN status = 'open'
    THEN coalesce(deadline, strftime('%Y-%m-%dT%H:%M:%SZ', published_at, '+90 days')) END;
  DROP INDEX tenders_filters;
  CREATE INDEX tenders_filters ON tenders (sort_key, status, open_until, region, buyer_id, value_amount, published_at, deadline, id);
  CREATE INDEX tenders_open_until ON tenders (open_until, sort_key);
  CREATE INDEX tenders_by_deadline ON tenders (deadline, sort_key);

  -- Facts about the public records as a whole: 'source' (demo or imported), 'import' (the
  -- import under way or last finished, as JSON).
  CREATE TABLE public_records_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  INSERT INTO public_records_meta (key, value)
    SELECT 'source', CASE WHEN EXISTS (SELECT 1 FROM tenders WHERE source_name = 'Tenderbot demo data')
      THEN 'demo' ELSE 'imported' END
    WHERE EXISTS (SELECT 1 FROM tenders);
  `,
  // 4: every address a tender's releases name (its notice, documents, links), so that a link a
  // person pastes finds its tender (`GET /v1/tenders?url=`). Kept from the notice address already
  // stored; a new import adds documents and links.
  `
  CREATE TABLE tender_links (
    url TEXT NOT NULL COLLATE NOCASE,
    tender_id TEXT NOT NULL,
    PRIMARY KEY (url, tender_id)
  ) WITHOUT ROWID;
  INSERT OR IGNORE INTO tender_links (url, tender_id)
    SELECT trim(url), id FROM tenders WHERE url IS NOT NULL AND length(trim(url)) BETWEEN 8 AND 2000;
  `,
  // 5: a value is compared in its own currency (src/service/money/reference-rates.ts), so the
  // covering index of the filter columns holds the currency beside the amount.
  `
  DROP INDEX tenders_filters;
  CREATE INDEX tenders_filters ON tenders (sort_key, status, open_until, region, buyer_id, value_amount,
    value_currency, published_at, deadline, id);
  `,
  // 6: words as people write them. tender_words holds each word's Porter stem, so "library"
  // finds "libraries" and "clean" finds "cleaning" (a word of a search still matches as a
  // prefix of a stem). tender_exact_words holds the words as written, for quoted phrases, which
  // match exactly, and its vocabulary (tender_vocabulary) is where suggestions for misspelt
  // words come from. Both are rebuilt from the tenders here and after every import.
  `
  DROP TABLE tender_words;
  CREATE VIRTUAL TABLE tender_words USING fts5 (
    title, description, buyer_name,
    content='tenders', content_rowid='sort_key',
    tokenize='porter unicode61 remove_diacritics 2', prefix='2 3 4'
  );
  INSERT INTO tender_words (tender_words) VALUES ('rebuild');
  CREATE VIRTUAL TABLE tender_exact_words USING fts5 (
    title, description, buyer_name,
    content='tenders', content_rowid='sort_key',
    tokenize='unicode61 remove_diacritics 2'
  );
  INSERT INTO tender_exact_words (tender_exact_words) VALUES ('rebuild');
  CREATE VIRTUAL TABLE tender_vocabulary USING fts5vocab (tender_exact_words, 'row');
  `,
  // 7: a tender found by the reference its source prints (GET /v1/tenders?reference=).
  `
  CREATE INDEX tenders_by_source_id ON tenders (source_id COLLATE NOCASE, sort_key);
  `,
  // 8: a search word is a prefix of stems, and FTS5 answers a prefix of a length it has an index
  // for from that index; any other length merges the hits of every stem it begins before its
  // first row. "cleaning" is the 5-letter stem "clean": with prefixes indexed up to 10 letters,
  // a first search of it at 100,000 tenders counts in 0.41 ms instead of 0.65 and reads its
  // first page in 0.16 ms instead of 0.39 (CPU time), for 40 % more word index (27 MB there).
  // The same tenders match either way.
  `
  DROP TABLE tender_words;
  CREATE VIRTUAL TABLE tender_words USING fts5 (
    title, description, buyer_name,
    content='tenders', content_rowid='sort_key',
    tokenize='porter unicode61 remove_diacritics 2', prefix='2 3 4 5 6 7 8 9 10'
  );
  INSERT INTO tender_words (tender_words) VALUES ('rebuild');
  `,
  // 9: tender_words keeps only which tenders hold each stem and prefix (detail=none): nothing
  // reads where in a tender a word stands (quoted phrases use tender_exact_words), and the index
  // is 5 times smaller (101 -> 19 MB at 100,000 tenders). Merged into one segment ('optimize'),
  // as the writer leaves it after every rewrite, so that a search reads a word's hits straight
  // from its pages (WordIndexReader).
  `
  DROP TABLE tender_words;
  CREATE VIRTUAL TABLE tender_words USING fts5 (
    title, description, buyer_name,
    content='tenders', content_rowid='sort_key',
    tokenize='porter unicode61 remove_diacritics 2', prefix='2 3 4 5 6 7 8 9 10', detail=none
  );
  INSERT INTO tender_words (tender_words) VALUES ('rebuild');
  INSERT INTO tender_words (tender_words) VALUES ('optimize');
  `,
  // 10: idempotency keys are kept in lower case, as they are now looked up (a UUID's case says
  // nothing, and a retry in capitals made a second record). Where both cases were kept, the
  // capitals' row stays as it was and is never matched again.
  `
  UPDATE OR IGNORE idempotency_keys SET key = lower(key);
  `,
];
