import { describe, expect, it } from 'vitest';
import { StaleButtonError } from '../../../src/app/features/feature-context.ts';
import { bookmarkValueOf, recordIdOf, searchStateOf } from '../../../src/app/listeners/button-values.ts';

describe('button values', () => {
  it('reads the values the app writes', () => {
    const state = { f: { q: 'cleaning', status: 'open' as const, valueMin: 100_000 }, o: 5 };
    expect(searchStateOf(JSON.stringify(state))).toEqual(state);
    expect(bookmarkValueOf(JSON.stringify({ t: 'ocds-1', c: 'detail' }))).toEqual({
      tenderId: 'ocds-1',
      place: 'detail',
    });
    expect(bookmarkValueOf(JSON.stringify({ t: 'ocds-1', c: JSON.stringify(state) }))).toEqual({
      tenderId: 'ocds-1',
      place: state,
    });
    expect(recordIdOf('ocds-b5fd17-1')).toBe('ocds-b5fd17-1');
  });

  it('refuses broken, forged and outdated values as a StaleButtonError', () => {
    const broken: [(value: string | undefined) => unknown, string | undefined][] = [
      [searchStateOf, 'not json'],
      [searchStateOf, 'null'],
      [searchStateOf, '[]'],
      [searchStateOf, '{"f":{},"o":-1}'],
      [searchStateOf, '{"f":{},"o":1.5}'],
      [searchStateOf, '{"f":{"status":"<!channel>"},"o":0}'],
      [searchStateOf, '{"f":{"deadlineTo":"tomorrow"},"o":0}'],
      [searchStateOf, '{"f":{"evil":1},"o":0}'],
      [searchStateOf, undefined],
      [bookmarkValueOf, '{"t":"ocds-1"}'],
      [bookmarkValueOf, '{"t":"","c":"detail"}'],
      [bookmarkValueOf, '{"t":"ocds-1","c":"elsewhere"}'],
      [bookmarkValueOf, '{"t":"ocds-1","c":{"o":1}}'],
      [recordIdOf, ''],
      [recordIdOf, '   '],
      [recordIdOf, 'x'.repeat(301)],
      [recordIdOf, undefined],
    ];
    expect(broken.length).toBeGreaterThan(0);
    for (const [parse, value] of broken) expect(() => parse(value), String(value)).toThrow(StaleButtonError);
  });
});
