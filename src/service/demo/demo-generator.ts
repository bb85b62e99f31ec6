import type { SqliteDatabase } from '../store/database.ts';
import { assertCanAdd, setPublicRecordsSource } from '../store/public-records-meta.ts';
import { toStoredInstant } from '../store/public-records-reader.ts';
import type { OrganisationInput, TenderReleaseInput } from '../store/public-records-writer.ts';
import { PublicRecordsWriter } from '../store/public-records-writer.ts';
import {
  DEMO_BUYER_PATTERNS,
  DEMO_CENTRAL_BUYERS,
  DEMO_CPV_CODES,
  DEMO_PLACES,
  DEMO_SUPPLIER_FIRST,
  DEMO_SUPPLIER_SECOND,
  DEMO_SUPPLIER_SUFFIX,
  DEMO_TITLE_PATTERNS,
} from './demo-vocabulary.ts';

export interface DemoOptions {
  tenders: number;
  seed?: number;
  /** Deadlines and publications are spread around this day (default: today). */
  today?: Date;
}

/** Ids of the records made large on purpose, so that the API's caps show. */
export const DEMO_LARGE_BUYER_NOTICES = 150;
export const DEMO_LARGE_FRAMEWORK_SIZE = 150;
export const DEMO_SOURCE_NAME = 'Tenderbot demo data';
const DAY_MS = 86_400_000;

/** A small, fast, seedable generator (mulberry32): the same seed gives the same data everywhere. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Writes a deterministic, realistic demo data set of `tenders` tenders, with buyers, suppliers
 * and frameworks in proportion: one buyer with over 100 notices and one framework with over
 * 100 suppliers and call-offs (when the set is large enough to hold them).
 */
export function generateDemoData(db: SqliteDatabase, options: DemoOptions): { tenders: number } {
  // Demo tenders are never mixed into imported public records.
  assertCanAdd(db, db.name, 'demo');
  const random = seededRandom(options.seed ?? 20261121);
  const today = startOfDay(options.today ?? new Date());
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const cpvTotalWeight = DEMO_CPV_CODES.reduce((sum, cpv) => sum + cpv.weight, 0);
  const pickCpv = () => {
    let remaining = random() * cpvTotalWeight;
    for (const cpv of DEMO_CPV_CODES) {
      remaining -= cpv.weight;
      if (remaining <= 0) return cpv;
    }
    return DEMO_CPV_CODES[0] as (typeof DEMO_CPV_CODES)[number];
  };

  const buyerCount = Math.max(10, Math.round(options.tenders / 40));
  const supplierCount = Math.max(20, Math.round(options.tenders / 15));
  const frameworkCount = Math.max(2, Math.round(options.tenders / 400));

  const buyers = uniqueByName(
    Array.from({ length: buyerCount * 2 }, (_, index): OrganisationInput & { place: string } => {
      if (index % 12 === 0) {
        const name = pick(DEMO_CENTRAL_BUYERS);
        return {
          ...organisation(name, 'London', 'SW1A', 'Westminster'),
          type: 'central',
          place: 'Westminster',
        };
      }
      const place = pick(DEMO_PLACES);
      const pattern = pick(DEMO_BUYER_PATTERNS);
      const name = pattern.pattern.replace('{place}', place.name);
      return {
        ...organisation(name, place.region, `${place.postcode} ${between(1, 9)}AA`, place.name),
        type: pattern.type,
        place: place.name,
      };
    }),
  ).slice(0, buyerCount);
  const suppliers = uniqueByName(
    Array.from({ length: supplierCount * 2 }, () => {
      const place = pick(DEMO_PLACES);
      const name = `${pick(DEMO_SUPPLIER_FIRST)} ${pick(DEMO_SUPPLIER_SECOND)} ${pick(DEMO_SUPPLIER_SUFFIX)}`;
      return {
        ...organisation(name, place.region, `${place.postcode} ${between(1, 9)}ZZ`, place.name),
        place: place.name,
      };
    }),
  ).slice(0, supplierCount);
  // Enough distinct supplier names for the large framework even in a small data set.
  while (suppliers.length < Math.min(DEMO_LARGE_FRAMEWORK_SIZE + 10, options.tenders)) {
    const place = pick(DEMO_PLACES);
    const name = `${pick(DEMO_SUPPLIER_FIRST)} ${pick(DEMO_SUPPLIER_SECOND)} ${suppliers.length + 1} Ltd`;
    suppliers.push({ ...organisation(name, place.region, place.postcode, place.name), place: place.name });
  }

  const frameworkIds = Array.from(
    { length: frameworkCount },
    (_, index) => `ocds-tbdemo-fw-${String(index + 1).padStart(4, '0')}`,
  );
  const largeFrameworkCallOffs = Math.min(DEMO_LARGE_FRAMEWORK_SIZE, Math.floor(options.tenders / 4));
  const largeBuyerNotices = Math.min(DEMO_LARGE_BUYER_NOTICES, Math.floor(options.tenders / 3));
  const writer = new PublicRecordsWriter(db);

  const releases: TenderReleaseInput[] = [];
  frameworkIds.forEach((id, index) => {
    const cpv = pickCpv();
    const owner = buyers[index % buyers.length] as (typeof buyers)[number];
    const start = new Date(today.getTime() - between(-90, 900) * DAY_MS);
    const end = new Date(start.getTime() + between(2, 4) * 365 * DAY_MS);
    const supplierTotal =
      index === 0 ? Math.min(DEMO_LARGE_FRAMEWORK_SIZE, suppliers.length) : between(3, 25);
    const awarded = Array.from(
      { length: supplierTotal },
      (_, n) => suppliers[(index * 7 + n) % suppliers.length],
    ).filter((supplier): supplier is (typeof suppliers)[number] => supplier !== undefined);
    releases.push({
      // An upcoming framework was announced before it starts, and never after today.
      ...baseRelease(
        id,
        new Date(Math.min(start.getTime(), today.getTime()) - between(1, 60) * DAY_MS),
        `${cpv.description} framework ${index + 1}`,
      ),
      description: `A multi-supplier framework agreement for ${cpv.description.toLowerCase()}, open to public bodies across the UK. Lots cover ${cpv.words.join(' and ')}.`,
      status: 'awarded',
      buyer: owner,
      value: { amount: between(5, 500) * 1_000_000, currency: 'GBP' },
      region: owner.region,
      cpvCodes: [{ code: cpv.code, description: cpv.description }],
      awards: [
        { id: `${id}-award`, amount: null, currency: null, date: toStoredInstant(start), suppliers: awarded },
      ],
      framework: {
        type: index % 5 === 4 ? 'dynamic_purchasing_system' : 'framework',
        startDate: start.toISOString().slice(0, 10),
        endDate: end.toISOString().slice(0, 10),
        lots: [1, 2, 3].map((lot) => ({ id: String(lot), title: `Lot ${lot}: ${pick(cpv.words)}` })),
      },
    });
  });

  let awardedToBusiest = 0;
  for (let index = 0; index < options.tenders - frameworkCount; index++) {
    const id = `ocds-tbdemo-${String(index + 1).padStart(7, '0')}`;
    const cpv = pickCpv();
    const buyer = (index < largeBuyerNotices ? buyers[0] : pick(buyers)) as (typeof buyers)[number];
    const published = new Date(
      today.getTime() - Math.floor(random() * 540 * DAY_MS) - between(0, 86_399) * 1000,
    );
    const deadline = new Date(published.getTime() + between(14, 75) * DAY_MS + 12 * 3600_000);
    const frameworkId =
      index < largeFrameworkCallOffs ? frameworkIds[0] : random() < 0.05 ? pick(frameworkIds) : null;
    const roll = random();
    const isOpen = deadline.getTime() > today.getTime();
    const status: TenderReleaseInput['status'] =
      roll < 0.03
        ? 'cancelled'
        : roll < 0.06
          ? 'planned'
          : isOpen
            ? 'open'
            : roll < 0.7
              ? 'awarded'
              : 'closed';
    const valueAmount = random() < 0.1 ? null : Math.round(10 ** (4 + random() * 3.2) / 100) * 100;
    const drawn =
      status === 'awarded'
        ? Array.from({ length: random() < 0.8 ? 1 : between(2, 4) }, () => pick(suppliers))
        : [];
    // The first awards all go to one supplier as well, so that a supplier's notices pass the cap too.
    const busiest = suppliers[0];
    if (drawn.length > 0 && busiest && awardedToBusiest < DEMO_LARGE_BUYER_NOTICES) {
      drawn.push(busiest);
      awardedToBusiest++;
    }
    const awardSuppliers = uniqueByName(drawn);
    const place = DEMO_PLACES.find((candidate) => buyer.name.includes(candidate.name));
    const title = DEMO_TITLE_PATTERNS[index % DEMO_TITLE_PATTERNS.length]
      ?.replace('{service}', cpv.description)
      .replace('{buyerPlace}', place?.name ?? buyer.locality ?? 'the authority')
      .replace('{lotWord}', pick(cpv.words))
      .replace('{year}', String(published.getUTCFullYear()))
      .replace('{nextYear}', String((published.getUTCFullYear() + 1) % 100).padStart(2, '0')) as string;
    releases.push({
      ...baseRelease(id, published, title),
      description: `${buyer.name} invites tenders for ${cpv.description.toLowerCase()}, covering ${cpv.words.join(', ')} across ${place?.name ?? 'its area'}. The contract runs for ${between(1, 5)} years with an option to extend. Suppliers must show relevant experience, social value commitments and compliance with the Procurement Act 2023.`,
      status: status === 'awarded' && awardSuppliers.length === 0 ? 'closed' : status,
      buyer,
      value: valueAmount === null ? null : { amount: valueAmount, currency: 'GBP' },
      deadline: status === 'planned' ? null : toStoredInstant(deadline),
      region: buyer.region,
      cpvCodes: [{ code: cpv.code, description: cpv.description }],
      frameworkId: frameworkId ?? null,
      awards:
        awardSuppliers.length > 0
          ? [
              {
                id: `${id}-award-1`,
                amount: valueAmount,
                currency: valueAmount === null ? null : 'GBP',
                date: toStoredInstant(new Date(deadline.getTime() + between(10, 60) * DAY_MS)),
                suppliers: awardSuppliers,
              },
            ]
          : [],
    });
  }

  // Written newest first (the search order, ties by id), so that finish() need not renumber.
  releases.sort((a, b) =>
    a.releaseDate === b.releaseDate ? (a.id < b.id ? -1 : 1) : a.releaseDate < b.releaseDate ? 1 : -1,
  );
  // A page cache large enough for the whole transaction (1 GiB at most), so that a million
  // tenders are not spilled and read back; the usual size again afterwards.
  const cacheSize = db.pragma('cache_size', { simple: true }) as number;
  db.pragma(`cache_size = ${-Math.min(1_048_576, Math.max(65_536, options.tenders * 2))}`);
  try {
    // One transaction: a reader sees no demo data or all of it, and the source is said with it.
    db.transaction(() => {
      for (const release of releases) writer.writeRelease(release);
      writer.finish();
      setPublicRecordsSource(db, 'demo');
    })();
  } finally {
    db.pragma(`cache_size = ${cacheSize}`);
  }
  db.pragma('optimize');
  return { tenders: releases.length };
}

function baseRelease(id: string, published: Date, title: string): TenderReleaseInput {
  return {
    id,
    releaseDate: toStoredInstant(published),
    title,
    description: null,
    status: null,
    buyer: null,
    value: null,
    deadline: null,
    region: null,
    cpvCodes: [],
    sourceName: DEMO_SOURCE_NAME,
    sourceId: id.replace('ocds-tbdemo-', 'TB-'),
    url: `https://example.org/notices/${id}`,
    frameworkId: null,
    awards: [],
    framework: null,
  };
}

function organisation(name: string, region: string, postalCode: string, locality: string): OrganisationInput {
  return { name, region, locality, postalCode, countryCode: 'GB', identifiers: [], website: null };
}

function uniqueByName<T extends { name: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((item) => !seen.has(item.name) && seen.add(item.name));
}

function startOfDay(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}
