import { describe, expect, it } from 'vitest';
import {
  closingHint,
  formatClosing,
  openDeadline,
  openDeadlineDay,
} from '../../../../../src/app/features/bids/views/tender-closes.ts';

describe('the tender’s deadline on a bid’s forms', () => {
  const now = new Date('2026-11-28T12:00:00Z');

  it('is carried as an ISO instant while ahead, whatever form the service wrote it in', () => {
    expect(openDeadline('2026-12-19T12:00:00+01:00', now)).toBe('2026-12-19T11:00:00.000Z');
    expect(openDeadline('2026-12-19T12:00:00.123456789Z', now)).toBe('2026-12-19T12:00:00.123Z');
    expect(openDeadline('2026-11-28T11:59:59Z', now)).toBeNull();
    expect(openDeadline('not a date', now)).toBeNull();
    expect(openDeadline(null, now)).toBeNull();
    // Its day is the UTC day, as the forms' question counts it and the card flags it.
    expect(openDeadlineDay('2026-12-19T00:00:00+01:00', now)).toBe('2026-12-18');
    expect(openDeadlineDay('2026-12-19T23:00:00-05:00', now)).toBe('2026-12-20');
  });

  it('is said with its time when the notice sets one, as a day alone at midnight', () => {
    expect(formatClosing('2026-12-19T12:00:00.000Z')).toBe('19 Dec 2026, 12:00 UTC');
    expect(formatClosing('2026-12-19T00:00:00.000Z')).toBe('19 Dec 2026');
    expect(closingHint('2026-12-19T09:05:00.000Z')).toEqual({
      hint: { type: 'plain_text', text: 'The tender closes 19 Dec 2026, 09:05 UTC.' },
    });
  });
});
