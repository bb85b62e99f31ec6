import { escapeRegExp } from './closing-words.ts';
import { TOKEN } from './command-tokens.ts';
import { rankNearest } from './edit-distance.ts';

/** A region typed without quotes, read together with the words after it (see parseSearch). */
export interface RegionRead {
  typed: string;
  region: string;
  /** The whole text with the region quoted (`region:"South West"`): read again, it reads the same. */
  text: string;
}

/**
 * A `region:` typed without quotes, as the parsers read it: the region to search (as typed, or
 * the one the data names with the words after it), the two words after it (to suggest its quoted
 * form when nothing is found) and, when it was read with words, how many it took and the reading.
 */
export function readUnquotedRegion(
  normalised: string,
  match: RegExpMatchArray,
  value: string,
  regions: readonly string[] | undefined,
): { region: string; afterRegion: string; read?: RegionRead; wordsJoined: number } {
  const start = match.index ?? 0;
  const rest = normalised.slice(start + match[0].length);
  const afterRegion = rest.split(/\s+/).filter(Boolean).slice(0, 2).join(' ');
  const joined = regions && regionWithWordsAfter(value, rest, regions);
  if (!joined) return { region: asTheDataSpellsIt(value, regions), afterRegion, wordsJoined: 0 };
  return {
    region: joined.region,
    afterRegion,
    wordsJoined: joined.words.length,
    read: {
      typed: [value, ...joined.words].join(' '),
      region: joined.region,
      text: `${normalised.slice(0, start)}region:"${joined.region}"${rest.slice(joined.end)}`,
    },
  };
}

/**
 * A region as the data spells it when only its letter case differs (`wales` is Wales), so the
 * heading says "in Wales"; any other value as typed.
 */
export function asTheDataSpellsIt(value: string, regions: readonly string[] | undefined): string {
  const lower = value.toLowerCase();
  return regions?.find((region) => region.toLowerCase() === lower) ?? value;
}

/** A region's name as compared with what was typed: letter case, hyphens, underscores and spacing aside. */
export function regionKey(text: string): string {
  return text.toLowerCase().replace(/[-_]+/g, ' ').replace(/\s+/g, ' ').trim();
}

/** "Yorkshire and the Humber" is a region and three more words. */
const REGION_WORDS_JOINED = 3;

/**
 * The region of `regions` that `value` names with up to three plain words typed after it, or
 * alone when the data spells it otherwise (letter case, hyphens and underscores aside). Only
 * plain words join it: a filter or a quoted phrase after a region is never part of its name.
 */

function regionWithWordsAfter(
  value: string,
  rest: string,
  regions: readonly string[],
): { region: string; words: string[]; end: number } | null {
  const known = new Map(regions.map((region) => [regionKey(region), region]));
  const following: string[] = [];
  /** Where each following word ends in `rest`. */
  const ends: number[] = [];
  for (const match of rest.matchAll(TOKEN)) {
    const word = match[6];
    if (word === undefined || following.length === REGION_WORDS_JOINED) break;
    following.push(word);
    ends.push((match.index ?? 0) + match[0].length);
  }
  // The longest reading first, even when the first word alone is a region too: with both "North"
  // and "North West" in the data, `region:north west` means the second (and says so; `region:north`
  // and a quoted `region:"north"` mean the first).
  for (let count = following.length; count > 0; count--) {
    const words = following.slice(0, count);
    const region = known.get(regionKey([value, ...words].join(' ')));
    if (region) return { region, words, end: ends[count - 1] ?? 0 };
  }
  // None with words: the value alone, when the data spells it otherwise than by letter case
  // (`region:north-west`); one named as the data names it is taken as it is.
  const alone = known.get(regionKey(value));
  return alone && alone.toLowerCase() !== value.toLowerCase() ? { region: alone, words: [], end: 0 } : null;
}

/**
 * The regions a typo is closest to (`Londn` → London, `north wst` → North West): within one edit
 * for a short name, two for five letters or more. One when it is nearer than any other; the
 * nearest two or three when as many are as near (`North Est`: North East and North West).
 */
export function nearestRegions(typed: string, regions: readonly string[]): string[] {
  const key = regionKey(typed);
  if (key.length < 3) return [];
  const allowed = key.length >= 5 ? 2 : 1;
  // A name longer or shorter by more than the edits allowed is never near: not measured (a long
  // run of words typed is compared with no region).
  const likely = regions.filter((region) => Math.abs(regionKey(region).length - key.length) <= allowed);
  const ranked = rankNearest(key, likely, regionKey).filter((each) => each.distance <= allowed);
  const [best] = ranked;
  if (!best) return [];
  const tied = ranked.filter((each) => each.distance === best.distance && each.plain === best.plain);
  // More than three as near is no guess: the regions are listed instead.
  return tied.length > 3 ? [] : tied.map((each) => each.item);
}

/**
 * The known region the sentence names first (`in Wales`, `in the North West`; of two names at the
 * same place the longer, "Yorkshire and The Humber" before "Yorkshire"), taken out of it, with
 * where it was (`at` to `end` in `text`).
 */
export function regionNamedIn(
  text: string,
  regions: readonly string[],
): { name: string; rest: string; at: number; end: number } | null {
  let first: { name: string; at: number; end: number } | null = null;
  for (const name of regions) {
    if (!name.trim() || name.includes('"')) continue;
    // "Yorkshire & the Humber" is Yorkshire and The Humber.
    const spelled = escapeRegExp(name.trim())
      .replace(/\s+/g, '[\\s-]+')
      .replace(/\band\b/gi, '(?:and|&)');
    const named = new RegExp(`(\\s(?:in|across|around|for)(?:\\s+the)?)?\\s${spelled}(?=[\\s,.!?;])`, 'gi');
    for (const found of text.matchAll(named)) {
      const at = found.index;
      const end = at + found[0].length;
      if (partOfAName(text.slice(0, at), found[1] ?? '', text.slice(end))) continue;
      if (!first || at < first.at || (at === first.at && end > first.end))
        first = { name: name.trim(), at, end };
      break;
    }
  }
  return first && { ...first, rest: `${text.slice(0, first.at)} ${text.slice(first.end)}` };
}

/**
 * "Transport for London", "University of Wales", "Bank of England": after a capitalised word and
 * `for` or `of`, a region is part of a name ("cleaning for Wales" is the region). So is one that
 * begins a name: "London Borough of Camden", "Wales Ambulance Service" ("London cleaning" is the
 * region). `before` is the text before the match, `preposition` what the match began with, `after`
 * the text after it.
 */
function partOfAName(before: string, preposition: string, after: string): boolean {
  if (beginsAName(after)) return true;
  if (/^\s*for\b/i.test(preposition)) return /\s\p{Lu}\p{L}*$/u.test(before);
  return preposition === '' && /\s\p{Lu}\p{L}*\s+(?:of|for)(?:\s+the)?$/u.test(before);
}

/**
 * Words that make capitalised words after a region a public body's name. Generic ones ("Services",
 * "Group") are left out: "London Cleaning Services" may be a search for cleaning in London.
 */
const BODY_WORDS = new Set([
  'Academy',
  'Agency',
  'Airport',
  'Ambulance',
  'Assembly',
  'Authority',
  'Board',
  'Borough',
  'Brigade',
  'College',
  'Combined',
  'Commission',
  'Constabulary',
  'Corporation',
  'Council',
  'County',
  'Fire',
  'Government',
  'Hospital',
  'Hospitals',
  'Housing',
  'Institute',
  'Library',
  'Limited',
  'Ltd',
  'Metropolitan',
  'Museum',
  'Overground',
  'Parliament',
  'Partnership',
  'PLC',
  'Plc',
  'Police',
  'Port',
  'Transport',
  'Trust',
  'Underground',
  'University',
  'Water',
]);

/**
 * The text after a region goes on with its name: capitalised words, one of them a public body's
 * ("Ambulance Service", "Combined Authority"), or followed by `of` and another ("Centre of Excellence").
 */
function beginsAName(after: string): boolean {
  const capitalised = /^(?:\s+\p{Lu}[\p{L}'&-]*)+/u.exec(after)?.[0];
  if (!capitalised) return false;
  if (
    capitalised
      .trim()
      .split(/\s+/)
      .some((word) => BODY_WORDS.has(word))
  )
    return true;
  return /^\s+of(?:\s+the)?\s+\p{Lu}/u.test(after.slice(capitalised.length));
}
