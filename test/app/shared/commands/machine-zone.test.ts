import { describe, expect, it } from 'vitest';
import { parseSearch } from '../../../../src/app/shared/commands/parse-command.ts';
import { readSentence } from '../../../../src/app/shared/commands/read-sentence.ts';
import { formatDeadline } from '../../../../src/app/shared/views/tender-card.ts';

// Days are UTC days everywhere (cards, filters, stored dates): a copy of the app running on a
// machine in another zone reads and writes the same. Found by running the suite under
// TZ=Pacific/Kiritimati, where twelve tests read "closes<14d" and "closing this month" a day off.
const NOWS = ['2026-11-30T20:00:00Z', '2026-12-31T23:30:00Z', '2027-03-28T00:30:00Z', '2027-01-01T05:00:00Z'];
const SEARCHES = ['cleaning closes<14d', 'closes>5d closes<30d roads', 'closes<0d'];
const SENTENCES = [
  'cleaning closing this month',
  'roads closing next month',
  'IT support closing this week',
  'catering closing next week',
  'catering before 12 May',
  'cleaning by 1 January',
  'roads closing within 10 days',
];

function readings(): unknown[] {
  return NOWS.flatMap((now) => [
    ...SEARCHES.map((search) => parseSearch(search, new Date(now))),
    ...SENTENCES.map((sentence) => readSentence(sentence, new Date(now), ['Wales'])),
    formatDeadline('2027-06-10T11:30:00Z', new Date(now)),
  ]);
}

describe('commands read on a machine in another time zone', () => {
  it('read every window and day as a machine in UTC does', () => {
    const machineZone = process.env.TZ;
    try {
      process.env.TZ = 'UTC';
      const inUtc = readings();
      expect(JSON.stringify(inUtc)).toContain('deadlineTo');
      for (const zone of [
        'Pacific/Kiritimati',
        'America/Los_Angeles',
        'Australia/Sydney',
        'Asia/Kathmandu',
      ]) {
        process.env.TZ = zone;
        expect(readings(), zone).toEqual(inUtc);
      }
    } finally {
      if (machineZone === undefined) delete process.env.TZ;
      else process.env.TZ = machineZone;
    }
  });
});
