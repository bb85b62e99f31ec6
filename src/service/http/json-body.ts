import type { FastifyInstance } from 'fastify';
import { invalidField } from './problem.ts';

/**
 * JSON bodies read as bytes and decoded strictly. Fastify's own parser decodes a body as UTF-8
 * with replacement, so bytes that are no UTF-8 (a lone surrogate sent as ED A0 80) were stored as
 * U+FFFD, three of them, the text changed without a word; JSON's own `\ud800` escape reaches a
 * field as half a character, which SQLite would store as one U+FFFD. Both are a 400 naming where.
 * Parsing is Fastify's (secure-json-parse: `__proto__` and `constructor` keys refused, as before).
 */
export function readJsonBodiesStrictly(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = STRICT_UTF8.decode(body as Buffer);
    } catch {
      done(invalidField('body', 'must be UTF-8 text: some of its bytes are not'), undefined);
      return;
    }
    parseJson(request, text, (error: Error | null, parsed: unknown) => {
      if (error) {
        done(error, undefined);
        return;
      }
      // Only a body that spells a surrogate as an escape can hold one: the rest skip the walk.
      const broken = SURROGATE_ESCAPE.test(text) ? illFormedField(parsed, '') : null;
      if (broken !== null) {
        done(
          invalidField(broken || 'body', 'must be text: it holds half of a character (a lone surrogate)'),
          undefined,
        );
        return;
      }
      done(null, parsed);
    });
  });
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

/** The path of the first string (value or key) in `value` that is not well-formed UTF-16, or null. */
function illFormedField(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.isWellFormed() ? null : path;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = illFormedField(value[index], joinField(path, String(index)));
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (!key.isWellFormed()) return path || 'body';
      const found = illFormedField(inner, joinField(path, key));
      if (found !== null) return found;
    }
  }
  return null;
}

/** A field's name in a problem: `stages[0].name` (the form field errors use). */
export function joinField(path: string, segment: string): string {
  return /^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment;
}
