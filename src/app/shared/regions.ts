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
 */
export async function regionsFor(context: FeatureContext, teamId: string): Promise<string[]> {
  const now = context.clock().getTime();
  const cache = regionCacheOf(context);
  const cached = cache.get(teamId);
  if (cached && now - cached.at < REGIONS_TTL_MS) return cached.regions;
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
  const list = offerableRegions([...regions], Number.POSITIVE_INFINITY);
  cache.set(teamId, { at: now, regions: list });
  return list;
}

/** Regions are read from the service's buyers at most this often per workspace. */
const REGIONS_TTL_MS = 10 * 60_000;

/** The most buyers read to gather regions (pages of 100). */
const REGION_PAGES = 10;

type RegionCache = LRUCache<string, { at: number; regions: string[] }>;

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
  const regions = await regionsFor(context, teamId).catch(() => []);
  return regions.length > 0 ? parse(regions) : parsed;
}
