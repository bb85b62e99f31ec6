import { describe, expect, it } from 'vitest';
import {
  parseAmount,
  parseCommand,
  parseDirectory,
  parseSearch,
} from '../../../src/app/commands/parse-command.ts';

const now = new Date('2026-11-21T10:00:00Z');

describe('parseCommand', () => {
  it('finds the subcommand, an id alone, help for nothing, and unknown words', () => {
    expect(parseCommand('search cleaning  region:"North West"')).toEqual({
      kind: 'search',
      rest: 'cleaning  region:"North West"',
    });
    expect(parseCommand('ocds-b5fd17-e3b5f385')).toEqual({ kind: 'show', rest: 'ocds-b5fd17-e3b5f385' });
    expect(parseCommand('SHOW abc')).toEqual({ kind: 'show', rest: 'abc' });
    expect(parseCommand('  ')).toEqual({ kind: 'help', rest: '' });
    expect(parseCommand('serach cleaning')).toEqual({ kind: 'unknown', word: 'serach' });
    expect(parseCommand('cleaning')).toEqual({ kind: 'unknown', word: 'cleaning' });
  });
});

describe('parseSearch', () => {
  it('reads every filter a person types, with straight or curly quotes', () => {
    const parsed = parseSearch(
      'cleaning region:“North West” status:open value>100k value<=2.5m closes<14d cpv:909 schools',
      now,
    );
    expect(parsed).toEqual({
      ok: true,
      buyerName: null,
      filters: {
        q: 'cleaning schools',
        region: 'North West',
        status: 'open',
        valueMin: 100_000,
        valueMax: 2_500_000,
        deadlineFrom: '2026-11-21',
        deadlineTo: '2026-12-05',
        cpv: '909',
      },
    });
  });

  it('takes a buyer by id or by name, and keeps codes with colons as words', () => {
    expect(parseSearch('buyer:9711454a-f86c-5415-9d6b-f37e32a7b68e', now)).toMatchObject({
      filters: { buyerId: '9711454a-f86c-5415-9d6b-f37e32a7b68e' },
    });
    expect(parseSearch('buyer:"Leeds City Council" ISO:9001', now)).toMatchObject({
      buyerName: 'Leeds City Council',
      filters: { q: 'ISO:9001' },
    });
  });

  it('answers a bad filter with a sentence that says what to type', () => {
    expect(parseSearch('status:pending', now)).toEqual({
      ok: false,
      problem: expect.stringContaining('use one of planned, open'),
    });
    expect(parseSearch('value>lots', now)).toEqual({
      ok: false,
      problem: expect.stringContaining('such as value>100k'),
    });
    expect(parseSearch('closes<soon', now)).toEqual({
      ok: false,
      problem: expect.stringContaining('such as closes<14d'),
    });
    expect(parseSearch('cpv:IT', now)).toEqual({
      ok: false,
      problem: expect.stringContaining('such as cpv:72'),
    });
  });
});

describe('parseDirectory and parseAmount', () => {
  it('reads directory filters', () => {
    expect(parseDirectory('facilities region:London')).toEqual({
      ok: true,
      filters: { q: 'facilities', region: 'London' },
    });
    expect(parseDirectory('status:live type:dps')).toEqual({
      ok: true,
      filters: { status: 'live', type: 'dynamic_purchasing_system' },
    });
    expect(parseDirectory('type:lots')).toMatchObject({ ok: false });
  });

  it('reads amounts', () => {
    expect(parseAmount('100k')).toBe(100_000);
    expect(parseAmount('£250,000')).toBe(250_000);
    expect(parseAmount('1.5M')).toBe(1_500_000);
    expect(parseAmount('abc')).toBeNull();
  });
});
