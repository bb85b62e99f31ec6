import { LRUCache } from 'lru-cache';
import {
  type DirectoryParse,
  parseDirectory,
  parseSearch,
  type SearchParse,
} from './commands/parse-command.ts';
import type { FeatureContext } from './feature-context.ts';
import { OPTIONS_MAX } from './views/block-kit-limits.ts';

/**
 * The regions of the workspace's data, read from its buyers and newest tenders (kept 10 minutes per
 * workspace): every one that can be written in `region:"…"`, sorted; a select offers the first 99.
 * One reading at a time per workspace (searches at once share it). When one fails, the regions
 * kept before are given (however old), else the failure. A person opening the search form after a
 * failure has the service asked again; `readingTyped` (a search's words) does not, for 30 seconds
 * after a failure, so a failing service is not read twenty pages deep on every search.
 */
export async function regionsFor(
  context: FeatureContext,
  teamId: string,
  readingTyped = false,
): Promise<string[]> {
  const now = context.clock().getTime();
  const cache = regionCacheOf(context);
  const kept = cache.get(teamId);
  if (kept?.reading) return kept.reading;
  if (readingTyped && kept?.failure !== undefined && now - kept.at < FAILED_READING_KEPT_MS) {
    if (kept.regions) return kept.regions;
    throw kept.failure;
  }
  if (kept?.regions && kept.failure === undefined && now - kept.at < REGIONS_TTL_MS) return kept.regions;
  // Failed, and asked again by the form: the regions kept (however old) wait for the failure to age.
  if (kept?.regions && kept.failure !== undefined && now - kept.at < FAILED_READING_KEPT_MS)
    return kept.regions;
  const reading = readRegions(context, teamId);
  cache.set(teamId, { at: kept?.at ?? now, regions: kept?.regions ?? null, reading });
  try {
    const regions = await reading;
    cache.set(teamId, { at: context.clock().getTime(), regions });
    return regions;
  } catch (error) {
    cache.set(teamId, { at: context.clock().getTime(), regions: kept?.regions ?? null, failure: error });
    if (kept?.regions) return kept.regions;
    throw error;
  }
}

async function readRegions(context: FeatureContext, teamId: string): Promise<string[]> {
  const { client } = await context.clients.forTeam(teamId);
  const regions = new Set<string>();
  let read = 0;
  for await (const buyer of client.buyers.all({ limit: 100 })) {
    if (buyer.region) regions.add(buyer.region);
    read += 1;
    if (read >= REGION_PAGES * 100) break;
  }
  // Tenders name regions their buyers may not (a delivery place): the newest ones add theirs.
  read = 0;
  for await (const tender of client.tenders.all({ limit: 100 })) {
    if (tender.region) regions.add(tender.region);
    read += 1;
    if (read >= REGION_PAGES * 100) break;
  }
  // All of them, for reading what people type; a select offers the first (offerableRegions' cap).
  return offerableRegions([...regions], Number.POSITIVE_INFINITY);
}

/** Regions are read from the service's buyers at most this often per workspace. */
const REGIONS_TTL_MS = 10 * 60_000;

/** A reading that failed is not tried again for this long, for a search's words or while regions are kept. */
const FAILED_READING_KEPT_MS = 30_000;

/** The most buyers read to gather regions (pages of 100). */
const REGION_PAGES = 10;

interface KeptRegions {
  /** When they were read, or the reading failed (epoch ms). */
  at: number;
  /** The last regions read, if any. */
  regions: string[] | null;
  /** The reading under way. */
  reading?: Promise<string[]>;
  /** Why the last reading failed. */
  failure?: unknown;
}

type RegionCache = LRUCache<string, KeptRegions>;

/**
 * The regions kept for the app's connections to the service (its composition root's): per
 * workspace, at most 500 (one copy may serve many), the age checked on reading. Kept with the
 * connections, not in the module, so two apps in one process (the tests') never share them.
 */
const regionCaches = new WeakMap<FeatureContext['clients'], RegionCache>();

function regionCacheOf(context: FeatureContext): RegionCache {
  let cache = regionCaches.get(context.clients);
  if (!cache) {
    cache = new LRUCache({ max: 500 });
    regionCaches.set(context.clients, cache);
  }
  return cache;
}

/**
 * Region names that can be offered: fit an option and can be written in `region:"…"`; at most
 * `max`, by default as many as a select holds beside its "Any region".
 */
export function offerableRegions(regions: readonly string[], max = OPTIONS_MAX - 1): string[] {
  const seen = new Set<string>();
  const offered: string[] = [];
  for (const region of regions) {
    const name = region.trim();
    const key = name.toLowerCase();
    if (!name || name.length > 75 || name.includes('"') || seen.has(key)) continue;
    seen.add(key);
    offered.push(name);
  }
  // One place of the select's 100 is its "Any region".
  return offered.sort((a, b) => a.localeCompare(b, 'en-GB')).slice(0, max);
}

/**
 * A search as parseSearch reads it, with the regions of the data when an unquoted region is
 * followed by words (`region:south west cleaning` is read as the region "South West", not as
 * "south" and the word "west"). The regions are read only then; without them (the lookup failed)
 * the words are searched as typed and an empty answer suggests the region's quoted form.
 */
export function parseWithRegions(
  context: FeatureContext,
  teamId: string,
  text: string,
): Promise<SearchParse> {
  return readWithRegions(context, teamId, (regions) => parseSearch(text, context.clock(), { regions }));
}

/** `/tender buyers` and `/tender suppliers` as parseDirectory reads them, regions as parseWithRegions. */
export function parseDirectoryWithRegions(
  context: FeatureContext,
  teamId: string,
  text: string,
): Promise<DirectoryParse> {
  return readWithRegions(context, teamId, (regions) => parseDirectory(text, { regions }));
}

type RegionParse = { ok: false } | { ok: true; filters: { region?: string }; afterRegion?: string };

async function readWithRegions<P extends RegionParse>(
  context: FeatureContext,
  teamId: string,
  parse: (regions?: readonly string[]) => P,
): Promise<P> {
  const parsed = parse();
  if (!parsed.ok || !parsed.filters.region) return parsed;
  // Only a region that could be read otherwise: one written with a hyphen, or followed by a word
  // (not a filter or a quoted phrase, which never join it).
  const next = parsed.afterRegion?.split(' ')[0] ?? '';
  const joinable = (next !== '' && !/[:<>"]/.test(next)) || /[-_]/.test(parsed.filters.region);
  if (!joinable) return parsed;
  const regions = await regionsFor(context, teamId, true).catch(() => []);
  return regions.length > 0 ? parse(regions) : parsed;
}
