import { tz } from '@date-fns/tz';
import { addMonths } from 'date-fns/addMonths';
import { formatDistanceStrict } from 'date-fns/formatDistanceStrict';
import { describe, expect, it } from 'vitest';
import { countdown } from '../../../../src/app/shared/views/bid-parts.ts';
import {
  formatAmount,
  formatDayOf,
  formatMoney,
  formatMoneyInline,
  formatTimeOf,
} from '../../../../src/app/shared/views/formats.ts';
import { deadlineMrkdwn, formatDeadline } from '../../../../src/app/shared/views/tender-card.ts';
import { seededRandom } from '../../../../src/service/demo/demo-generator.ts';

describe('the formats cards share', () => {
  it('formats money in its own currency, and any code the data gives', () => {
    expect(formatMoney({ amount: 1_250_000, currency: 'GBP' })).toBe('£1,250,000');
    expect(formatMoney({ amount: 355_820.4, currency: 'CAD' })).toBe('CA$355,820');
    expect(formatMoney({ amount: 1000, currency: 'not a code' })).toBe('1,000 (currency not given)');
    expect(formatMoney(null)).toBe('Not stated');
  });

  it('shows no price where the data gives none: negative, under a penny, or without a currency code', () => {
    // Real notices (canada-buyandsell) hold -989 and -1 CAD.
    for (const amount of [-989, -1, -0.4, 0.004, Number.NaN])
      expect(formatMoney({ amount, currency: 'CAD' }), String(amount)).toBe('Not stated');
    expect(formatMoney({ amount: 5000, currency: '' })).toBe('5,000 (currency not given)');
    const huge = formatMoney({ amount: 5000, currency: 'Q'.repeat(2100) });
    expect(huge).toBe('5,000 (currency not given)');
    // Case aside, a code is a code: lower-case xaf is still shown by its code, never as FCFA.
    expect(formatMoney({ amount: 5000, currency: 'xaf' })).toBe(
      formatMoney({ amount: 5000, currency: 'XAF' }),
    );
    expect(formatMoney({ amount: 5000, currency: 'xaf' })).toBe('5,000 XAF');
    expect(formatMoney({ amount: 5000, currency: ' gbp ' })).toBe('£5,000');
  });

  it('inside a sentence lowers only its words: a currency’s mark stays as drawn', () => {
    expect(formatMoneyInline({ amount: 2_000_000, currency: 'CAD' })).toBe('CA$2,000,000');
    expect(formatMoneyInline({ amount: 1_500_000, currency: 'USD' })).toBe('US$1,500,000');
    expect(formatMoneyInline({ amount: 900, currency: 'CHF' })).toBe(
      formatMoney({ amount: 900, currency: 'CHF' }),
    );
    expect(formatMoneyInline(null)).toBe('not stated');
    expect(formatMoneyInline({ amount: 0.01, currency: 'GBP' })).toBe('not stated');
  });

  it('names every ISO currency by a mark of its own (no bare `$` shared by several)', () => {
    const marks = new Map<string, string>();
    for (const code of Intl.supportedValuesOf('currency')) {
      const mark = formatMoney({ amount: 5, currency: code }).replace(/[\d\s.,\u00a0]/g, '');
      expect(marks.get(mark), `${code} and ${marks.get(mark)} drawn alike`).toBeUndefined();
      marks.set(mark, code);
    }
    expect(formatMoney({ amount: 1_000_000, currency: 'USD' })).toBe('US$1,000,000');
  });

  it('keeps answering the same for many currency codes (the kept formatters are bounded)', () => {
    const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    const codes = Array.from(
      { length: 200 },
      (_, index) => `Q${letters[index % 26]}${letters[Math.floor(index / 26)]}`,
    );
    expect(new Set(codes).size).toBe(200);
    for (const code of codes)
      expect(formatMoney({ amount: 5, currency: code })).toBe(
        new Intl.NumberFormat('en-GB', {
          style: 'currency',
          currency: code,
          maximumFractionDigits: 0,
        }).format(5),
      );
    expect(formatMoney({ amount: 5, currency: 'EUR' })).toBe('€5');
  });

  it('formats days and times in UTC, as Slack readers expect, and says when a date is unknown', () => {
    const instant = new Date('2026-12-01T23:30:00Z');
    expect(formatDayOf(instant)).toBe('1 Dec 2026');
    expect(formatTimeOf(instant)).toBe('23:30');
    expect(formatDayOf(new Date('not a date'))).toBe('an unknown date');
  });

  it('reads the amounts notices give when they give none as “Not stated”, in any currency', () => {
    for (const amount of [0, 0.01, 1])
      for (const currency of ['GBP', 'EUR', 'CAD', 'XOF', 'not a code', ''])
        expect(formatMoney({ amount, currency }), `${amount} ${currency}`).toBe('Not stated');
    // A search's bound is what was typed, placeholder or not.
    expect(formatAmount(0, 'GBP')).toBe('£0');
    expect(formatAmount(1, 'GBP')).toBe('£1');
  });

  it('never rounds a real amount to nothing: under one unit it keeps its pence', () => {
    expect(formatMoney({ amount: 0.4, currency: 'GBP' })).toBe('£0.40');
    expect(formatMoney({ amount: 0.5, currency: 'EUR' })).toBe('€0.50');
    expect(formatMoney({ amount: 0.02, currency: 'XOF' })).toBe('0.02 XOF');
    expect(formatMoney({ amount: 1.4, currency: 'GBP' })).toBe('£1');
    expect(formatMoney({ amount: 2, currency: 'GBP' })).toBe('£2');
    for (const amount of [0.02, 0.1, 0.4, 0.99, 1.2, 1.5])
      expect(formatMoney({ amount, currency: 'GBP' })).not.toMatch(/^£0$/);
  });

  it('says deadlines under two months in calendar days, on the day in hours, and later ones in months', () => {
    const now = new Date('2026-11-01T12:00:00Z');
    expect(formatDeadline('2026-12-05T12:00:00Z', now)).toBe('closes in 34 days (5 Dec 2026, 12:00 UTC)');
    // A time within two days in hours, the same for every reader whatever their calendar's day.
    expect(formatDeadline('2026-11-02T13:00:00Z', now)).toBe('closes in 25 hours (2 Nov 2026, 13:00 UTC)');
    expect(formatDeadline('2026-11-02T09:00:00Z', now)).toBe('closes in 21 hours (2 Nov 2026, 09:00 UTC)');
    expect(formatDeadline('2026-11-03T11:00:00Z', now)).toBe('closes in 47 hours (3 Nov 2026, 11:00 UTC)');
    expect(formatDeadline('2026-11-03T13:00:00Z', now)).toBe('closes in 2 days (3 Nov 2026, 13:00 UTC)');
    expect(formatDeadline('2026-11-02T00:00:00Z', now)).toBe('closes tomorrow (2 Nov 2026)');
    expect(formatDeadline('2026-11-01T17:00:00Z', now)).toBe('closes in 5 hours (1 Nov 2026, 17:00 UTC)');
    expect(formatDeadline('2026-11-01T12:40:00Z', now)).toBe('closes in 40 minutes (1 Nov 2026, 12:40 UTC)');
    expect(formatDeadline('2026-12-31T12:00:00Z', now)).toBe('closes in 60 days (31 Dec 2026, 12:00 UTC)');
    expect(formatDeadline('2027-01-15T12:00:00Z', now)).toBe('closes in 2 months (15 Jan 2027, 12:00 UTC)');
    expect(formatDeadline('2026-11-01T09:00:00Z', now)).toBe('closed 3 hours ago (1 Nov 2026, 09:00 UTC)');
    expect(formatDeadline('2026-10-31T23:00:00Z', now)).toBe('closed 13 hours ago (31 Oct 2026, 23:00 UTC)');
    expect(formatDeadline('2026-10-31T00:00:00Z', now)).toBe('closed yesterday (31 Oct 2026)');
    expect(formatDeadline('2026-09-28T12:00:00Z', now)).toBe('closed 34 days ago (28 Sept 2026, 12:00 UTC)');
    expect(formatDeadline('2025-11-01T12:00:00Z', now)).toBe('closed 1 year ago (1 Nov 2025, 12:00 UTC)');
    // A notice that gives a day and no time (midnight): the day alone, unless the time is asked for.
    expect(formatDeadline('2026-12-05T00:00:00Z', now)).toBe('closes in 34 days (5 Dec 2026)');
    expect(formatDeadline('2026-12-05T00:00:00Z', now, { time: 'always' })).toBe(
      'closes in 34 days (5 Dec 2026, 00:00 UTC)',
    );
    expect(formatDeadline('not a date', now)).toBe('an unknown deadline');
  });

  it('gives a deadline’s time in mrkdwn as Slack’s date token: each reader’s own zone, its UTC words as the fallback', () => {
    const now = new Date('2026-11-01T12:00:00Z');
    // The same words as in plain text; the moment is the deadline's own second.
    expect(deadlineMrkdwn('2026-12-05T12:00:00+01:00', now)).toBe(
      `closes in 34 days (<!date^${Date.parse('2026-12-05T11:00:00Z') / 1000}^{date_short} at {time} your time|5 Dec 2026, 11:00 UTC>)`,
    );
    for (const deadline of ['2026-11-01T12:40:00Z', '2026-10-31T23:00:00Z', '2027-01-15T12:00:00Z']) {
      const drawn = deadlineMrkdwn(deadline, now);
      const plain = formatDeadline(deadline, now);
      expect(drawn.startsWith(plain.slice(0, plain.indexOf(' (')))).toBe(true);
      expect(drawn).toContain(`<!date^${Date.parse(deadline) / 1000}^`);
      expect(drawn.endsWith(`|${plain.slice(plain.indexOf(' (') + 2, -1)}>)`)).toBe(true);
    }
    // A day without a time stays that day for everyone (midnight UTC is the evening before in New York).
    expect(deadlineMrkdwn('2026-12-05T00:00:00Z', now)).toBe('closes in 34 days (5 Dec 2026)');
    // The full view gives it to the minute, in UTC words: as the reader's time it would be another day.
    expect(deadlineMrkdwn('2026-12-05T00:00:00Z', now, { time: 'always' })).toBe(
      'closes in 34 days (5 Dec 2026, 00:00 UTC)',
    );
    // Within two days, hours: the same for every reader, whose calendar day may not be UTC's.
    expect(deadlineMrkdwn('2026-11-02T23:30:00Z', now)).toMatch(/^closes in 35 hours \(<!date\^/);
    expect(deadlineMrkdwn(null, now)).toBe('No deadline given');
    expect(deadlineMrkdwn('not a date', now)).toBe('an unknown deadline');
  });

  it('writes a time of day as en-GB does in UTC, before 1970 too', () => {
    const intl = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });
    const times = [0, 59_999, 60_000, 86_399_999, -1, -60_001, Date.parse('2026-12-02T12:00:00Z')];
    const random = seededRandom(23);
    for (let index = 0; index < 2000; index++) times.push(Math.floor((random() - 0.3) * 4e12));
    for (const time of times)
      expect(formatTimeOf(new Date(time)), String(time)).toBe(intl.format(new Date(time)));
    expect(formatTimeOf(new Date(Number.NaN))).toBe('an unknown time');
  });

  it('counts deadlines by arithmetic exactly as the date-fns reading it replaced', () => {
    // The reading before: days through each day's ISO string, two months through date-fns' addMonths.
    const before = (deadline: string, now: Date): string => {
      const date = new Date(deadline);
      const shown =
        date.getTime() % 86_400_000 !== 0
          ? `${formatDayOf(date)}, ${formatTimeOf(date)} UTC`
          : formatDayOf(date);
      const ahead = date.getTime() >= now.getTime();
      const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
      const days = Math.round(
        (Date.parse(`${date.toISOString().slice(0, 10)}T00:00:00Z`) - today) / 86_400_000,
      );
      const [early, late] = ahead ? [now, date] : [date, now];
      const far = (d: Date) => formatDistanceStrict(d, now, { roundingMethod: 'floor' });
      // Since: a time within two days in hours, whatever the calendar day.
      const apart = Math.abs(date.getTime() - now.getTime());
      if (date.getTime() % 86_400_000 !== 0 && apart < 2 * 86_400_000 && apart >= 86_400_000) {
        const hours = formatDistanceStrict(date, now, { roundingMethod: 'floor', unit: 'hour' });
        return ahead ? `closes in ${hours} (${shown})` : `closed ${hours} ago (${shown})`;
      }
      if (days === 0 || (date.getTime() % 86_400_000 !== 0 && apart < 86_400_000))
        return ahead ? `closes in ${far(date)} (${shown})` : `closed ${far(date)} ago (${shown})`;
      if (days === 1 && ahead) return `closes tomorrow (${shown})`;
      if (days === -1 && !ahead) return `closed yesterday (${shown})`;
      const distance =
        late.getTime() < addMonths(early, 2, { in: tz('UTC') }).getTime()
          ? `${Math.abs(days)} day${Math.abs(days) === 1 ? '' : 's'}`
          : far(date);
      return ahead ? `closes in ${distance} (${shown})` : `closed ${distance} ago (${shown})`;
    };
    const day = 86_400_000;
    const nows = [
      Date.parse('2026-11-28T21:00:00Z'),
      Date.parse('2026-12-31T23:59:00Z'),
      Date.parse('2028-02-29T00:00:00Z'),
    ];
    const cases: [number, number][] = [];
    // Around two months ahead and behind (31 Dec → 28 Feb), each day's midnight and its edges.
    for (const now of nows)
      for (let offset = -70 * day; offset <= 70 * day; offset += day / 4)
        for (const nudge of [0, -1, 1, -60_000]) cases.push([now, now + offset + nudge]);
    // Seeded: a failure found here is found again by the next run.
    const random = seededRandom(29);
    for (let index = 0; index < 4000; index++) {
      const now = Date.parse('1990-01-01T00:00:00Z') + Math.floor(random() * 3.5e12);
      const spread = [day, 70 * day, 4000 * day][index % 3] as number;
      cases.push([now, now + Math.floor((random() * 2 - 1) * spread)]);
    }
    // Services write deadlines with offsets too: the same instant reads the same, whatever it is written in.
    const offsets = [60, -300, 345, 840, -720];
    const written = (instant: number, minutes: number): string => {
      const local = new Date(instant + minutes * 60_000).toISOString().slice(0, 23);
      const sign = minutes < 0 ? '-' : '+';
      const hours = String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0');
      return `${local}${sign}${hours}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;
    };
    // Cards say UTC wherever the process runs: the reading is the same under the machine's own zone.
    // Cards say UTC wherever the process runs: what a machine in UTC writes, one in New York (its
    // clocks change in March and November) and one in Sydney (October and April) write too.
    const machineZone = process.env.TZ;
    try {
      process.env.TZ = 'UTC';
      const expected = cases.map(([now, deadline]) =>
        before(new Date(deadline).toISOString(), new Date(now)),
      );
      for (const zone of ['UTC', 'America/New_York', 'Australia/Sydney']) {
        process.env.TZ = zone;
        for (const [index, [now, deadline]] of cases.entries()) {
          const iso = new Date(deadline).toISOString();
          const where = `${iso} at ${new Date(now).toISOString()} in ${zone}`;
          expect(formatDeadline(iso, new Date(now)), where).toBe(expected[index]);
          const withOffset = written(deadline, offsets[index % offsets.length] as number);
          expect(Date.parse(withOffset)).toBe(deadline);
          expect(formatDeadline(withOffset, new Date(now)), `${withOffset} in ${zone}`).toBe(expected[index]);
        }
      }
      // Found by a review: three months across New York's change of clocks, two in UTC.
      process.env.TZ = 'America/New_York';
      expect(formatDeadline('2026-04-10T11:30:00Z', new Date('2026-01-10T12:00:00Z'))).toBe(
        'closes in 2 months (10 Apr 2026, 11:30 UTC)',
      );
    } finally {
      if (machineZone === undefined) delete process.env.TZ;
      else process.env.TZ = machineZone;
    }
  });

  it('a tender and a bid due the same day count the same days, whatever the hour', () => {
    for (const now of ['2026-11-28T00:10:00Z', '2026-11-28T18:36:00Z', '2026-11-28T23:59:00Z'])
      for (const hour of ['00:30', '12:00', '23:30']) {
        const tender = formatDeadline(`2026-12-02T${hour}:00Z`, new Date(now));
        expect(tender, `${now} → ${hour}`).toMatch(/^closes in 4 days \(2 Dec 2026/);
        expect(countdown('2026-12-02', new Date(now))).toBe('2 Dec 2026 · in 4 days');
      }
  });
});
