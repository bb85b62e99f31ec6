import { createHash } from 'node:crypto';
import { ToolRefusal } from './failures.ts';

/** JSON with every object's keys sorted, so equal arguments always read alike. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const name of Object.keys(value).sort()) {
    const entry = (value as Record<string, unknown>)[name];
    if (entry !== undefined) sorted[name] = sortKeys(entry);
  }
  return sorted;
}

/**
 * Lists are paged with an opaque cursor (the MCP convention) over the service's offsets. A cursor
 * holds the next offset and a fingerprint of the list and its filters, so a cursor carried to
 * another list or other filters is refused with a sentence instead of paging something else.
 */
export function encodeCursor(offset: number, list: string, filters: object): string {
  return Buffer.from(JSON.stringify({ o: offset, f: fingerprint(list, filters) })).toString('base64url');
}

/** The offset a cursor stands for (0 without one), or a refusal naming what went wrong. */
export function offsetOf(cursor: string | null | undefined, list: string, filters: object): number {
  if (cursor === undefined || cursor === null) return 0;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    decoded = null;
  }
  const { o, f } = (decoded ?? {}) as { o?: unknown; f?: unknown };
  if (typeof o !== 'number' || !Number.isInteger(o) || o < 0 || typeof f !== 'string')
    throw new ToolRefusal(
      'That cursor is not one this server gave. Use the nextCursor of the previous page as it was, or leave cursor out to start from the first page.',
    );
  if (f !== fingerprint(list, filters))
    throw new ToolRefusal(
      'That cursor belongs to another list or to other filters. Call again with the same filters as the page that gave it, or leave cursor out to start from the first page.',
    );
  return o;
}

function fingerprint(list: string, filters: object): string {
  return createHash('sha256')
    .update(`${list}\n${canonicalJson(filters)}`)
    .digest('base64url')
    .slice(0, 16);
}
