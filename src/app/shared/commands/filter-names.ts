import { code, escapeMrkdwn, type Mrkdwn, mrkdwn } from '../views/mrkdwn.ts';
import { rankNearest } from './edit-distance.ts';

// The filters each parser understands, and the sentences for one typed wrong (parse-command.ts).

/** The filters a search understands, as a person types them (`value` and `closes` compare). */
export const SEARCH_FILTERS: readonly FilterName[] = [
  { name: 'region', example: 'region:"North West"' },
  { name: 'status', example: 'status:open' },
  { name: 'cpv', example: 'cpv:72' },
  { name: 'buyer', example: 'buyer:"Leeds City Council"' },
  { name: 'value', example: 'value>100k', compares: true },
  { name: 'closes', example: 'closes<14d', compares: true },
  { name: 'currency', example: 'currency:eur' },
];
export const DIRECTORY_FILTERS: readonly FilterName[] = [
  { name: 'region', example: 'region:"North West"' },
  { name: 'status', example: 'status:live' },
  { name: 'type', example: 'type:dps' },
];

export interface FilterName {
  name: string;
  example: string;
  /** Written with `>` or `<` rather than `:`. */
  compares?: boolean;
}

/** The longest region the service takes (its `region` parameter). */
const REGION_MAX = 200;

/**
 * A filter's name typed with nothing after it (`region:`, `value>`): said, rather than searched
 * as a word, with how to write it.
 */
export function filterWithoutValue(word: string, known: readonly FilterName[]): Mrkdwn | null {
  const bare = /^([A-Za-z]+)(:|>=|<=|>|<)$/.exec(word);
  const filter = bare && known.find((each) => each.name === bare[1]?.toLowerCase());
  if (!filter) return null;
  return mrkdwn`${code(word)} needs a value right after it, with no space, as in ${code(filter.example)}.`;
}

/** An empty region (`region:""`) or one longer than the service takes: said here, not by the service. */
export function unusableRegion(key: string, value: string, known: readonly FilterName[]): Mrkdwn | null {
  if (key !== 'region') return null;
  const example = known.find((each) => each.name === 'region')?.example ?? 'region:"North West"';
  if (value.trim() === '') return mrkdwn`${code('region:')} needs a region in it, as in ${code(example)}.`;
  // Counted as the service counts it (UTF-16 units: an emoji is two).
  if (value.length > REGION_MAX)
    return mrkdwn`A region is at most ${REGION_MAX} characters; that one has ${escapeMrkdwn(value.length.toLocaleString('en-GB'))}.`;
  return null;
}

/**
 * A filter typed a little wrong: a misspelt name (`regoin:`) gets the closest one, and a comparing
 * filter written with a colon (`value:100k`) gets its form. Anything further from every filter name
 * is a word (codes such as `ISO:9001` are searched for as typed).
 */
export function misreadFilter(key: string, operator: string, known: readonly FilterName[]): Mrkdwn | null {
  const exact = known.find((filter) => filter.name === key);
  if (exact) {
    if (exact.compares && operator === ':')
      return mrkdwn`${code(`${key}:`)} compares with &gt; or &lt;: write it as ${code(exact.example)}.`;
    return null;
  }
  if (key.length < 3) return null;
  const closest = rankNearest(key, known, (filter) => filter.name)[0];
  if (!closest || closest.distance > (key.length <= 4 ? 1 : 2)) return null;
  const filter = closest.item;
  const meant = `${filter.name}${filter.compares ? operator.replace(':', '>') : ':'}`;
  return mrkdwn`${code(`${key}${operator}`)} is not a filter; did you mean ${code(meant)}, as in ${code(filter.example)}?`;
}
