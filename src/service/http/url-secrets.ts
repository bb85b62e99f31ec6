/**
 * API keys belong in the Authorization header. A key in a URL ends up in proxies' logs, browser
 * history and our own request log, so a URL carrying one is refused and never logged as sent.
 */

/** Query parameter names that announce a credential, compared without case, `-` or `_`. */
const KEY_PARAMETER_NAMES = new Set([
  'apikey',
  'key',
  'token',
  'accesstoken',
  'authtoken',
  'authorization',
  'auth',
  'bearer',
  'secret',
]);

/** A value that looks like one of our keys (`pis_` and a long url-safe tail), anywhere in it. */
const KEY_LIKE = /pis_[A-Za-z0-9_-]{8,}/i;
const KEY_LIKE_GLOBAL = /pis_[A-Za-z0-9_-]{8,}/gi;

export const REDACTED = '[redacted]';

interface QueryPart {
  raw: string;
  rawName: string;
  name: string;
  value: string;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

function queryParts(query: string): QueryPart[] {
  if (query.length === 0) return [];
  return query.split('&').map((pair) => {
    const equals = pair.indexOf('=');
    const rawName = equals === -1 ? pair : pair.slice(0, equals);
    const rawValue = equals === -1 ? '' : pair.slice(equals + 1);
    return { raw: pair, rawName, name: safeDecode(rawName), value: safeDecode(rawValue) };
  });
}

function isKeyParameter(part: QueryPart): boolean {
  return (
    KEY_PARAMETER_NAMES.has(part.name.toLowerCase().replace(/[-_]/g, '')) ||
    KEY_LIKE.test(part.value) ||
    KEY_LIKE.test(part.name)
  );
}

function splitUrl(url: string): { path: string; query: string } {
  const question = url.indexOf('?');
  return question === -1
    ? { path: url, query: '' }
    : { path: url.slice(0, question), query: url.slice(question + 1) };
}

/** The names of query parameters that carry (or are named for) an API key, in the order sent. */
export function keyParametersIn(url: string): string[] {
  const names: string[] = [];
  for (const part of queryParts(splitUrl(url).query)) {
    if (isKeyParameter(part)) names.push(KEY_LIKE.test(part.name) ? REDACTED : part.name);
  }
  return names;
}

/** The URL as it may be logged: a key-like value or a credential parameter's value is replaced. */
export function redactUrl(url: string): string {
  const { path, query } = splitUrl(url);
  const decodedPath = safeDecode(path);
  const safePath = KEY_LIKE.test(decodedPath) ? decodedPath.replace(KEY_LIKE_GLOBAL, REDACTED) : path;
  if (!url.includes('?')) return safePath;
  const safeQuery = queryParts(query)
    .map((part) => {
      if (!isKeyParameter(part)) return part.raw;
      return `${KEY_LIKE.test(part.name) ? REDACTED : part.rawName}=${REDACTED}`;
    })
    .join('&');
  return `${safePath}?${safeQuery}`;
}
