import { v5 as uuidv5 } from 'uuid';
import type { BUYER_TYPES, FRAMEWORK_TYPES, TENDER_STATUSES } from '../../contract/schemas.ts';
import { markPublicRecordsChanged } from './count-cache.ts';
import type { SqliteDatabase } from './database.ts';

/** A buyer or supplier as a source describes it; identity comes from its normalised name. */
export interface OrganisationInput {
  name: string;
  region: string | null;
  locality: string | null;
  postalCode: string | null;
  countryCode: string | null;
  identifiers: { scheme: string; id: string }[];
  website: string | null;
  type?: (typeof BUYER_TYPES)[number] | null;
}

export interface AwardInput {
  id: string;
  amount: number | null;
  currency: string | null;
  date: string | null;
  suppliers: OrganisationInput[];
}

export interface FrameworkInput {
  type: (typeof FRAMEWORK_TYPES)[number];
  startDate: string | null;
  endDate: string | null;
  lots: { id: string; title: string }[];
}

/** One release of one tender, in the service's terms; several releases of a tender merge. */
export interface TenderReleaseInput {
  id: string;
  releaseDate: string;
  title: string | null;
  description: string | null;
  status: (typeof TENDER_STATUSES)[number] | null;
  buyer: OrganisationInput | null;
  value: { amount: number; currency: string } | null;
  deadline: string | null;
  region: string | null;
  cpvCodes: { code: string; description: string | null }[];
  sourceName: string;
  sourceId: string;
  url: string | null;
  /** Every address the release names (its notice, documents, links): a pasted link finds the tender. */
  links?: string[];
  frameworkId: string | null;
  awards: AwardInput[];
  framework: FrameworkInput | null;
}

const BUYER_NAMESPACE = 'a4f0f3de-5c57-4b55-9d2f-7b1f1c2ad101';
const SUPPLIER_NAMESPACE = 'c1b3e7a2-0d7f-4f8e-8a41-3e5b9c6d2f02';

/** Lower case, single spaces, no surrounding space: "Acme  Ltd " and "ACME Ltd" are one organisation. */
export function normaliseName(name: string): string {
  return name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Stable across imports and machines: UUIDv5 of the normalised name. */
export function buyerIdFor(name: string): string {
  return uuidv5(normaliseName(name), BUYER_NAMESPACE);
}

export function supplierIdFor(name: string): string {
  return uuidv5(normaliseName(name), SUPPLIER_NAMESPACE);
}

/**
 * A notice stored as open that gives no deadline stays open this many days after its latest
 * release, then counts as closed. On the real files these are framework notices of 2016 to 2022:
 * shown as open for years they would mislead; 90 days covers the longest usual tender period.
 * Migration 3 repeats the number in SQL.
 */
export const NO_DEADLINE_OPEN_DAYS = 90;

/** Distinct organisation descriptions a writer remembers having written (see writeOnce). */
const MAX_REMEMBERED_ORGANISATIONS = 100_000;

/** Fields of a tender that a newer release overrides and an older one only fills in. */
const MERGED_TENDER_COLUMNS = [
  'title',
  'description',
  'status',
  'buyer_id',
  'source_value_amount',
  'source_value_currency',
  'deadline',
  'region',
  'source_name',
  'source_id',
  'url',
  'framework_id',
] as const;

/**
 * Writes public records (tenders, buyers, suppliers, frameworks) with merge semantics: applying
 * the same releases again changes nothing, and a newer release wins over an older one field by
 * field. Call `finish()` once after a batch: it derives values, links and the search order.
 */
export class PublicRecordsWriter {
  private readonly upsertBuyer;
  private readonly upsertSupplier;
  private readonly upsertTender;
  private readonly upsertCpv;
  private readonly insertLink;
  private readonly upsertAward;
  private readonly linkSupplier;
  private readonly upsertFramework;
  private readonly writtenOrganisations = new Map<string, string>();
  /** Releases merged by this writer so far. */
  releasesWritten = 0;

  constructor(private readonly db: SqliteDatabase) {
    const organisationUpsert = (table: 'buyers' | 'suppliers', withType: boolean) =>
      db.prepare(`
        INSERT INTO ${table} (id, name, region, locality, postal_code, country_code, identifiers, website${withType ? ', type' : ''})
        VALUES (@id, @name, @region, @locality, @postalCode, @countryCode, @identifiers, @website${withType ? ', @type' : ''})
        ON CONFLICT (id) DO UPDATE SET
          region = coalesce(excluded.region, region),
          locality = coalesce(excluded.locality, locality),
          postal_code = coalesce(excluded.postal_code, postal_code),
          country_code = coalesce(excluded.country_code, country_code),
          identifiers = CASE WHEN excluded.identifiers = '[]' THEN identifiers ELSE excluded.identifiers END,
          website = coalesce(excluded.website, website)${withType ? ', type = coalesce(excluded.type, type)' : ''}`);
    this.upsertBuyer = organisationUpsert('buyers', true);
    this.upsertSupplier = organisationUpsert('suppliers', false);

    const merged = MERGED_TENDER_COLUMNS.map(
      (column) =>
        `${column} = CASE WHEN excluded.published_at >= tenders.published_at
           THEN coalesce(excluded.${column}, tenders.${column}) ELSE coalesce(tenders.${column}, excluded.${column}) END`,
    ).join(',\n');
    // New tenders take a sort key past the end; finish() renumbers them into place.
    this.upsertTender = db.prepare(`
      INSERT INTO tenders (sort_key, id, title, description, status, buyer_id, source_value_amount, source_value_currency,
        published_at, deadline, region, source_name, source_id, url, framework_id)
      VALUES ((SELECT coalesce(max(sort_key), 0) + 1 FROM tenders), @id, coalesce(@title, @id), @description,
        coalesce(@status, 'open'), @buyerId, @valueAmount, @valueCurrency, @publishedAt, @deadline, @region,
        @sourceName, @sourceId, @url, @frameworkId)
      ON CONFLICT (id) DO UPDATE SET ${merged},
        published_at = max(excluded.published_at, tenders.published_at)`);
    this.insertLink = db.prepare('INSERT OR IGNORE INTO tender_links (url, tender_id) VALUES (?, ?)');
    this.upsertCpv = db.prepare(`
      INSERT INTO tender_cpv (tender_id, code, description) VALUES (?, ?, ?)
      ON CONFLICT DO UPDATE SET description = coalesce(excluded.description, description)`);
    this.upsertAward = db.prepare(`
      INSERT INTO tender_awards (tender_id, award_id, release_date, amount, currency, award_date)
      VALUES (@tenderId, @awardId, @releaseDate, @amount, @currency, @date)
      ON CONFLICT DO UPDATE SET
        amount = CASE WHEN excluded.release_date >= release_date THEN coalesce(excluded.amount, amount) ELSE coalesce(amount, excluded.amount) END,
        currency = CASE WHEN excluded.release_date >= release_date THEN coalesce(excluded.currency, currency) ELSE coalesce(currency, excluded.currency) END,
        award_date = coalesce(award_date, excluded.award_date),
        release_date = max(release_date, excluded.release_date)`);
    this.linkSupplier = db.prepare(
      'INSERT OR IGNORE INTO tender_suppliers (supplier_id, tender_id) VALUES (?, ?)',
    );
    this.upsertFramework = db.prepare(`
      INSERT INTO frameworks (id, title, description, type, owner_id, start_date, end_date, value_amount, value_currency, url, lots)
      VALUES (@id, @title, @description, @type, @ownerId, @startDate, @endDate, @valueAmount, @valueCurrency, @url, @lots)
      ON CONFLICT (id) DO UPDATE SET
        title = excluded.title,
        description = coalesce(excluded.description, description),
        type = excluded.type,
        owner_id = coalesce(excluded.owner_id, owner_id),
        start_date = coalesce(excluded.start_date, start_date),
        end_date = coalesce(excluded.end_date, end_date),
        value_amount = coalesce(excluded.value_amount, value_amount),
        value_currency = coalesce(excluded.value_currency, value_currency),
        url = coalesce(excluded.url, url),
        lots = CASE WHEN excluded.lots = '[]' THEN lots ELSE excluded.lots END`);
  }

  /** Writes a buyer and returns its id. */
  writeBuyer(buyer: OrganisationInput): string {
    return this.writeOnce('buyer', buyer, () => {
      const id = buyerIdFor(buyer.name);
      this.upsertBuyer.run({ ...organisationParams(buyer, id), type: buyer.type ?? null });
      return id;
    });
  }

  /** Writes a supplier and returns its id. */
  writeSupplier(supplier: OrganisationInput): string {
    return this.writeOnce('supplier', supplier, () => {
      const id = supplierIdFor(supplier.name);
      this.upsertSupplier.run(organisationParams(supplier, id));
      return id;
    });
  }

  /**
   * Releases repeat the same buyer and suppliers thousands of times (Canada: 48,597 releases,
   * 122 buyers). Writing the same description again changes nothing, since writes merge, so
   * each distinct description is written once per writer; the memory stays bounded.
   */
  private writeOnce(kind: string, organisation: OrganisationInput, write: () => string): string {
    const key = `${kind}\u0000${JSON.stringify(organisation)}`;
    const known = this.writtenOrganisations.get(key);
    if (known !== undefined) return known;
    if (this.writtenOrganisations.size >= MAX_REMEMBERED_ORGANISATIONS) this.writtenOrganisations.clear();
    const id = write();
    this.writtenOrganisations.set(key, id);
    return id;
  }

  /** Merges one release of a tender (and what it says of buyers, suppliers and frameworks). */
  writeRelease(release: TenderReleaseInput): void {
    this.releasesWritten++;
    const buyerId = release.buyer ? this.writeBuyer(release.buyer) : null;
    this.upsertTender.run({
      id: release.id,
      title: release.title,
      description: release.description,
      status: release.status,
      buyerId,
      valueAmount: release.value?.amount ?? null,
      valueCurrency: release.value?.currency ?? null,
      publishedAt: release.releaseDate,
      deadline: release.deadline,
      region: release.region,
      sourceName: release.sourceName,
      sourceId: release.sourceId,
      url: release.url,
      frameworkId: release.frameworkId,
    });
    for (const cpv of release.cpvCodes) this.upsertCpv.run(release.id, cpv.code, cpv.description);
    for (const link of linksOf(release)) this.insertLink.run(link, release.id);
    for (const award of release.awards) {
      this.upsertAward.run({
        tenderId: release.id,
        awardId: award.id,
        releaseDate: release.releaseDate,
        amount: award.amount,
        currency: award.currency,
        date: award.date,
      });
      for (const supplier of award.suppliers) this.linkSupplier.run(this.writeSupplier(supplier), release.id);
    }
    if (release.framework) {
      this.upsertFramework.run({
        id: release.id,
        title: release.title ?? release.id,
        description: release.description,
        type: release.framework.type,
        ownerId: buyerId,
        startDate: release.framework.startDate,
        endDate: release.framework.endDate,
        valueAmount: release.value?.amount ?? null,
        valueCurrency: release.value?.currency ?? null,
        url: release.url,
        lots: JSON.stringify(release.framework.lots),
      });
    }
  }

  /**
   * Derives what depends on every release of a tender (value, award date, suppliers, CPV list),
   * renumbers tenders into newest-first order and rebuilds the word indexes.
   */
  finish(): void {
    this.db.transaction(() => {
      this.db.exec(`
        -- A CPV code described by any release (of this tender or another) is described everywhere.
        -- One description per code first, so that a code on many tenders costs no more than linear.
        CREATE TEMP TABLE cpv_described AS
          SELECT code, max(description) AS description FROM tender_cpv WHERE description IS NOT NULL GROUP BY code;
        CREATE UNIQUE INDEX temp.cpv_described_by_code ON cpv_described (code);
        UPDATE tender_cpv SET description = (SELECT d.description FROM cpv_described d WHERE d.code = tender_cpv.code)
          WHERE description IS NULL AND code IN (SELECT code FROM cpv_described);
        DROP TABLE temp.cpv_described;

        UPDATE tenders SET
          open_until = CASE WHEN status = 'open' THEN coalesce(deadline,
            strftime('%Y-%m-%dT%H:%M:%SZ', published_at, '+${NO_DEADLINE_OPEN_DAYS} days')) END,
          -- No release of the tender names a place: the buyer's address, as any release gave it.
          region = coalesce(region, (SELECT region FROM buyers b WHERE b.id = tenders.buyer_id)),
          value_amount = coalesce(source_value_amount,
            (SELECT sum(amount) FROM tender_awards a WHERE a.tender_id = tenders.id)),
          value_currency = CASE WHEN source_value_amount IS NOT NULL THEN source_value_currency
            ELSE (SELECT max(currency) FROM tender_awards a WHERE a.tender_id = tenders.id AND amount IS NOT NULL) END,
          awarded_at = (SELECT min(award_date) FROM tender_awards a WHERE a.tender_id = tenders.id),
          buyer_name = (SELECT name FROM buyers b WHERE b.id = tenders.buyer_id),
          cpv_codes = (SELECT json_group_array(json_object('code', code, 'description', description))
            FROM (SELECT code, description FROM tender_cpv c WHERE c.tender_id = tenders.id ORDER BY code)),
          suppliers = (SELECT json_group_array(json_object('id', id, 'name', name))
            FROM (SELECT s.id, s.name FROM tender_suppliers ts JOIN suppliers s ON s.id = ts.supplier_id
                  WHERE ts.tender_id = tenders.id ORDER BY s.name, s.id));

        CREATE TEMP TABLE tender_order AS
          SELECT id, row_number() OVER (ORDER BY published_at DESC, id ASC) AS position FROM tenders;
        CREATE UNIQUE INDEX temp.tender_order_by_id ON tender_order (id);
      `);
      // Renumbering rewrites every row and every index entry twice: skipped when the tenders are
      // already in order (demo data is written newest first; 1M tenders: minutes saved).
      const outOfOrder = this.db
        .prepare(
          'SELECT EXISTS (SELECT 1 FROM tenders t JOIN tender_order o ON o.id = t.id WHERE t.sort_key <> o.position)',
        )
        .pluck()
        .get();
      if (outOfOrder) {
        this.db.exec(`
          UPDATE tenders SET sort_key = -sort_key;
          UPDATE tenders SET sort_key = (SELECT position FROM tender_order o WHERE o.id = tenders.id);
        `);
      }
      this.db.exec(`
        DROP TABLE temp.tender_order;

        INSERT INTO tender_words (tender_words) VALUES ('rebuild');
        -- One segment: a search reads a word's hits straight from it (see WordIndexReader).
        INSERT INTO tender_words (tender_words) VALUES ('optimize');
        INSERT INTO tender_exact_words (tender_exact_words) VALUES ('rebuild');
        INSERT INTO buyer_words (buyer_words) VALUES ('rebuild');
        INSERT INTO supplier_words (supplier_words) VALUES ('rebuild');
        INSERT INTO framework_words (framework_words) VALUES ('rebuild');

        -- A new version note at each rewrite, so that every process holding public records in
        -- memory (TenderFilterIndex) knows to read them again.
        INSERT INTO public_records_meta (key, value) VALUES ('records_version', lower(hex(randomblob(8))))
          ON CONFLICT (key) DO UPDATE SET value = excluded.value;
      `);
    })();
    // Inside an import's transaction the importer optimizes once it has committed.
    if (!this.db.inTransaction) this.db.pragma('optimize');
    markPublicRecordsChanged(this.db);
  }
}

function organisationParams(organisation: OrganisationInput, id: string) {
  return {
    id,
    name: organisation.name.trim().replace(/\s+/g, ' '),
    region: organisation.region,
    locality: organisation.locality,
    postalCode: organisation.postalCode,
    countryCode: organisation.countryCode,
    identifiers: JSON.stringify(organisation.identifiers),
    website: organisation.website,
  };
}

/** The longest address kept for finding a tender by a pasted link (longer ones are not links people paste). */
const MAX_LINK_LENGTH = 2000;

/** The release's notice address and every other it names, trimmed, once each. */
function linksOf(release: TenderReleaseInput): Set<string> {
  const links = new Set<string>();
  for (const link of [release.url, ...(release.links ?? [])]) {
    const trimmed = link?.trim();
    if (trimmed && trimmed.length <= MAX_LINK_LENGTH && /^https?:\/\//i.test(trimmed)) links.add(trimmed);
  }
  return links;
}
