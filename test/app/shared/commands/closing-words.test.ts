import { describe, expect, it } from 'vitest';
import { unreadableDay } from '../../../../src/app/shared/commands/closing-words.ts';

/** A Thursday. */
const now = new Date('2026-11-26T10:00:00Z');

describe('a closing day in numbers that cannot be searched', () => {
  it('is named with why: no day, passed, or more than ten years ahead', () => {
    expect(unreadableDay('services closing 31/02/2027', now)).toEqual({ typed: '31/02/2027', why: 'no day' });
    expect(unreadableDay('closing 0/0/0', now)).toEqual({ typed: '0/0/0', why: 'no day' });
    expect(unreadableDay('cleaning due by 1/1/2020.', now)).toEqual({ typed: '1/1/2020', why: 'passed' });
    expect(unreadableDay('closing date: 2026/05/12', now)).toEqual({ typed: '2026/05/12', why: 'passed' });
    expect(unreadableDay('closing 12/05/2040', now)).toEqual({ typed: '12/05/2040', why: 'too far' });
    // After a weekday too.
    expect(unreadableDay('cleaning closing Thursday 31.02.2027', now)).toEqual({
      typed: '31.02.2027',
      why: 'no day',
    });
    expect(unreadableDay('by Fri, 1/1/2020', now)).toEqual({ typed: '1/1/2020', why: 'passed' });
  });

  it('is nothing for a day that reads, a number without a lead word, or a lot number', () => {
    for (const text of [
      'closing 12/05/2027',
      'closing 12-05-2027',
      'by 12/05/27 please',
      'cleaning 31/02/2027',
      'lot 2.1 closing Friday',
      'closing 2 contracts',
      // A time after a weekday is no date.
      'closing Friday 5.30 pm',
      'by Fri 17.00',
    ])
      expect(unreadableDay(text, now), text).toBeNull();
  });
});
