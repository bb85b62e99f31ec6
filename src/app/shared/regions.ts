import { LRUCache } from 'lru-cache';
import {
  type DirectoryParse,
  parseDirectory,
  parseSearch,
  type SearchParse,
} from './commands/parse-command.ts';
import { nearestRegions, regionKey } from './commands/region-words.ts';
import type { FeatureContext } from './feature-context.ts';
import { OPTIONS_MAX } from './views/block-kit-limits.ts';
import { clip, code, joinMrkdwn, literalText, type Mrkdwn, mrkdwn } from './views/mrkdwn.ts';

/**
 * How regions are wanted. 'fresh': the search form, and choices that last (a feed subscribed):
 * after a failure the service is asked again, and a failure is the caller's. 'typed': a search's
 * words, read on every search: for 30 seconds after a failure the service is not asked again, and
 * regions read within the hour stand in for a failed reading (else the failure).
 */
export type RegionsWanted = 'fresh' | 'typed';

/**
 * The regions of the workspace's data, read from its buyers and newest tenders (kept 10 minutes per
 * workspace): every one that can be written in `region:"…"`, sorted; a select offers the first 99.
 * One reading at a time per workspace: callers at once share it, each as it wants regions.
 */
export async function regionsFor(
  context: FeatureContext,
  teamId: string,
  wanted: RegionsWanted = 'fresh',
): Promise<string[]> {
  const now = context.clock().getTime();
  const cache = regionCacheOf(context);
  const kept: KeptRegions = cache.get(teamId) ?? { regions: null, readAt: null, failedAt: null };
  // An age is counted on the app's clock; one set back makes nothing look newer than it is.
  const within = (at: number | null, ms: number) => at !== null && now >= at && now - at < ms;
  const standIn = wanted === 'typed' && within(kept.readAt, STAND_IN_AT_MOST_MS) ? kept.regions : null;
  const asWanted = (reading: Promise<string[]>) =>
    wanted === 'typed'
      ? reading.catch((error: unknown) => {
          if (standIn) return standIn;
          throw error;
        })
      : reading;
  if (kept.reading) return asWanted(kept.reading);
  if (kept.regions && within(kept.readAt, REGIONS_TTL_MS)) return kept.regions;
  if (wanted === 'typed' && within(kept.failedAt, FAILED_READING_KEPT_MS)) {
    if (standIn) return standIn;
    throw kept.failure;
  }
  const reading = readRegions(context, teamId);
  cache.set(teamId, { ...kept, reading });
  // Registered before any caller's: the entry is up to date when they go on. Written only while it
  // is this reading's (the entry may have been evicted, or forgotten, and another reading begun).
  const settle = (entry: KeptRegions) => {
    if (cache.get(teamId)?.reading === reading) cache.set(teamId, entry);
  };
  reading.then(
    (regions) => settle({ regions, readAt: context.clock().getTime(), failedAt: null }),
    (error: unknown) =>
      settle({
        regions: kept.regions,
        readAt: kept.readAt,
        failedAt: context.clock().getTime(),
        failure: error ?? new Error('the regions could not be read'),
      }),
  );
  return asWanted(reading);
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

/** Regions read are kept this long per workspace (read again on the first use after). */
const REGIONS_TTL_MS = 10 * 60_000;

/** After a failed reading, typed words are not read against the service again for this long. */
const FAILED_READING_KEPT_MS = 30_000;

/** Regions read at most this long ago stand in for a failed reading of typed words. */
const STAND_IN_AT_MOST_MS = 60 * 60_000;

/** The most buyers read to gather regions (pages of 100). */
const REGION_PAGES = 10;

interface KeptRegions {
  /** The last regions read, if any, and when (epoch ms on the app's clock). */
  regions: string[] | null;
  readAt: number | null;
  /** When the last reading failed, if it did since the last success, and why. */
  failedAt: number | null;
  failure?: unknown;
  /** The reading under way. */
  reading?: Promise<string[]>;
}

type RegionCache = LRUCache<string, KeptRegions>;

/**
 * The regions kept for the app's connections to the service (its composition root's): per
 * workspace, at most 500 (one copy may serve many), the age checked on reading. Kept with the
 * connections, not in the module, so two apps in one process (the tests') never share them.
 */
const regionCaches = new WeakMap<FeatureContext['clients'], RegionCache>();

/**
 * Forgets what was read of a workspace's regions (its key was removed or replaced): the next use
 * reads them with the key it has then; a reading under way is not kept.
 */
export function forgetRegions(context: FeatureContext, teamId: string): void {
  regionCaches.get(context.clients)?.delete(teamId);
}

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

/** How a parse reads a region typed without quotes (see parseWithRegions). */
export interface RegionReading {
  /** How the regions are wanted (RegionsWanted): 'typed' unless said. */
  wanted?: RegionsWanted;
  /**
   * For a search that lasts (a feed, a workflow's step): when the regions cannot be read, a region
   * that may be more than its first word (`region:south west`) is refused with the quoted form to
   * use, rather than followed as typed for good.
   */
  refuseUnread?: boolean;
}

/**
 * A search as parseSearch reads it, with the regions of the data when an unquoted region is
 * followed by words (`region:south west cleaning` is read as the region "South West", not as
 * "south" and the word "west"). The regions are read only then; without them (the reading failed)
 * the words are searched as typed and an empty answer suggests the region's quoted form, or, with
 * `refuseUnread`, the search is refused with that form.
 */
export async function parseWithRegions(
  context: FeatureContext,
  teamId: string,
  text: string,
  reading: RegionReading = {},
): Promise<SearchParse> {
  const { parsed, unread } = await readWithRegions(
    context,
    teamId,
    (regions) => parseSearch(text, context.clock(), { regions }),
    reading.wanted,
  );
  if (!reading.refuseUnread) return parsed;
  if (unread === undefined) return parsed.ok ? refuseUnknownRegion(context, teamId, parsed) : parsed;
  const quoted = `region:"${unread.replace(/[-_]+/g, ' ')}"`;
  return {
    ok: false,
    problem: mrkdwn`Tenderbot could not read the data’s regions just now, so it cannot tell whether ${code(`region:${unread}`, 110)} is one region. Put a region of more than one word in quotes, as in ${code(quoted, 110)}, or try again in a minute.`,
  };
}

/**
 * A search that lasts, with a region the data does not name (`region:Atlantis`, `region:lond`):
 * refused with those it names rather than followed for good, finding nothing; one it names, in
 * its spelling. When the regions cannot be read, it is followed as typed.
 */
async function refuseUnknownRegion(
  context: FeatureContext,
  teamId: string,
  parsed: Extract<SearchParse, { ok: true }>,
): Promise<SearchParse> {
  const { region } = parsed.filters;
  if (!region) return parsed;
  const regions = await regionsFor(context, teamId, 'fresh').catch(() => null);
  if (!regions || regions.length === 0) return parsed;
  // Followed as the data spells it (`region:wales` is Wales), as a search's heading says it.
  const known =
    regions.find((each) => each.toLowerCase() === region.toLowerCase()) ??
    // The regions read are a sample (the first buyers, the newest tenders): a rarer one is asked for.
    (await regionNamedByData(context, teamId, region));
  if (known === undefined) return parsed;
  if (known) return known === region ? parsed : { ...parsed, filters: { ...parsed.filters, region: known } };
  const unknown = await unknownRegion(context, teamId, region, parsed.afterRegion, 'fresh').catch(() => null);
  if (!unknown) return parsed;
  return { ok: false, problem: unknown.sentence, ...(unknown.meant ? { regionMeant: unknown.meant } : {}) };
}

/**
 * The region as the data spells it when a tender or a buyer names it; null when none does;
 * undefined when the service could not be asked (then it is followed as typed).
 */
async function regionNamedByData(
  context: FeatureContext,
  teamId: string,
  region: string,
): Promise<string | null | undefined> {
  try {
    const { client } = await context.clients.forTeam(teamId);
    const [tenders, buyers] = await Promise.all([
      client.tenders.search({ region, limit: 1 }),
      client.buyers.list({ region, limit: 1 }),
    ]);
    const named = tenders.data[0]?.region ?? buyers.data[0]?.region ?? null;
    // Its spelling only when it is the same region (a service may match more loosely).
    return named === null || named.toLowerCase() === region.toLowerCase() ? named : region;
  } catch {
    return undefined;
  }
}

/**
 * A region no buyer nor recent tender names: the sentence saying so, with those the data names (so
 * `region:"Nort West"` is answered with the right spelling), and the region meant when one stands
 * in for the typed one alone (a typo, `north-west`), so a search can offer itself again with it;
 * not when the region meant took the words after it (`region:north west cleaning`: the words
 * searched would change too). Null for a region the data names, or with none to compare with.
 */
export async function unknownRegion(
  context: FeatureContext,
  teamId: string,
  region: string,
  words = '',
  wanted: RegionsWanted = 'typed',
): Promise<{ sentence: Mrkdwn; meant: string | null } | null> {
  const regions = await regionsFor(context, teamId, wanted);
  if (regions.length === 0 || regions.some((known) => known.toLowerCase() === region.toLowerCase()))
    return null;
  // `region:north west` (no quotes) and `region:north-west` mean a region Tenderbot knows: say its form.
  const following = words.split(/\s+/).filter(Boolean);
  for (const extra of [0, 1, 2]) {
    const meant = regions.find(
      (known) => regionKey([region, ...following.slice(0, extra)].join(' ')) === regionKey(known),
    );
    if (meant)
      return {
        sentence: mrkdwn`Tenderbot knows no region called “${literalText(region)}”. Did you mean ${code(`region:"${meant}"`, 110)}? A region of more than one word goes in quotes.`,
        meant: extra === 0 ? meant : null,
      };
  }
  const near = nearestRegions(region, regions);
  const [only] = near;
  if (only && near.length === 1)
    return {
      sentence: mrkdwn`Tenderbot knows no region called “${literalText(region)}”. Did you mean ${code(`region:"${only}"`, 110)}?`,
      meant: only,
    };
  // As near to two (`North Est`): both are named, and neither is guessed for the person.
  if (near.length > 1) {
    const named = near.map((each) => code(`region:"${each}"`, 110));
    return {
      sentence: mrkdwn`Tenderbot knows no region called “${literalText(region)}”. Did you mean ${joinMrkdwn(named.slice(0, -1), mrkdwn`, `)} or ${named[named.length - 1] ?? mrkdwn``}?`,
      meant: null,
    };
  }
  const shown = regions.slice(0, 40).map((known) => code(`region:"${clip(known, 100)}"`));
  return {
    sentence: mrkdwn`Tenderbot knows no region called “${literalText(region)}”. Regions in the data include ${joinMrkdwn(shown, mrkdwn`, `)}${regions.length > 40 ? mrkdwn`, …` : mrkdwn``}.`,
    meant: null,
  };
}

/** `/tender buyers` and `/tender suppliers` as parseDirectory reads them, regions as parseWithRegions. */
export async function parseDirectoryWithRegions(
  context: FeatureContext,
  teamId: string,
  text: string,
): Promise<DirectoryParse> {
  const { parsed } = await readWithRegions(context, teamId, (regions) => parseDirectory(text, { regions }));
  return parsed;
}

type RegionParse = { ok: false } | { ok: true; filters: { region?: string }; afterRegion?: string };

/**
 * The parse, with the regions where they may change it; `unread`, when they could not be read
 * then, is the region as typed with the word that may belong to it (`south west`, `south-west`).
 */
async function readWithRegions<P extends RegionParse>(
  context: FeatureContext,
  teamId: string,
  parse: (regions?: readonly string[]) => P,
  wanted: RegionsWanted = 'typed',
): Promise<{ parsed: P; unread?: string }> {
  const parsed = parse();
  if (!parsed.ok || !parsed.filters.region) return { parsed };
  const { region } = parsed.filters;
  // Only a region that could be read otherwise: followed by a plain word (a filter or a quoted
  // phrase never joins it), or written with a hyphen.
  const next = parsed.afterRegion?.split(' ')[0] ?? '';
  const joining =
    next !== '' && !/[:<>"]/.test(next) ? `${region} ${next}` : /[-_]/.test(region) ? region : null;
  if (joining === null) return { parsed };
  try {
    const regions = await regionsFor(context, teamId, wanted);
    return { parsed: regions.length > 0 ? parse(regions) : parsed };
  } catch {
    return { parsed, unread: joining };
  }
}
