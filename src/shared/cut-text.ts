/**
 * The one way outside text (a name, a title, a comment, typed words) is cut to a length limit,
 * in the Slack app, the client, the service, the MCP server and the workbench alike.
 *
 * Lengths are UTF-16 units, as `string.length` and zod's `.max()` count them (a bid's name, a
 * stage's name). A limit counted in code points (a comment's body, CONTRACT.md §9) or in Slack's
 * characters is never more than that, so what fits here fits there too.
 */
const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * `text` itself when it has at most `max` UTF-16 units; else its longest start of whole
 * characters as people see them (grapheme clusters: an emoji with its skin tone or ZWJ family, a
 * letter with its accents, a flag) that leaves room for `mark`, followed by `mark` (an ellipsis
 * for the callers that show one). Never half a surrogate pair, so never a U+FFFD where an emoji was.
 */
export function cutText(text: string, max: number, mark = ''): string {
  if (text.length <= max) return text;
  const room = Math.max(0, max - mark.length);
  return `${text.slice(0, cutPoint(text, room))}${mark}`;
}

/** Where a cut to `room` units ends (`room` < `text.length`): the start of the cluster at `room`. */
function cutPoint(text: string, room: number): number {
  if (room === 0) return 0;
  // `containing` finds the boundary from nearby text: no walk from the start of a long text.
  const start = GRAPHEMES.segment(text).containing(room)?.index ?? room;
  if (start > 0) return start;
  // A first cluster longer than the room (a letter under hundreds of marks): whole code points
  // of it rather than nothing at all, which a name or a search could not be.
  return isHighSurrogate(text.charCodeAt(room - 1)) ? room - 1 : room;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}
