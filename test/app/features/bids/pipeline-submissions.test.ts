import { describe, expect, it } from 'vitest';
import {
  checkEditBid,
  checkStartBid,
  isDay,
} from '../../../../src/app/features/bids/pipeline-submissions.ts';
import { PipelineIds } from '../../../../src/app/shared/ids.ts';

describe('a form’s date', () => {
  it('is a day that exists, or none: 31 February and month 13 are said under the date field', () => {
    for (const day of [null, '2027-02-28', '2028-02-29', '2026-12-31'])
      expect(isDay(day), String(day)).toBe(true);
    for (const day of ['2027-02-31', '2027-02-29', '2027-13-01', '2027-00-10', '30/06/2030', '2027-2-3', ''])
      expect(isDay(day), day).toBe(false);
    const start = checkStartBid({ name: 'Bid', summary: '', targetDate: '2027-02-31', stages: 'Qualify' });
    expect(start).toEqual({
      ok: false,
      errors: { [PipelineIds.targetBlock]: 'Pick the date from the calendar.' },
    });
    expect(
      checkEditBid({ name: 'Bid', summary: undefined, targetDate: '2027-02-31', stageNames: ['Qualify'] }),
    ).toEqual({ [PipelineIds.targetBlock]: 'Pick the date from the calendar.' });
    expect(
      checkStartBid({ name: 'Bid', summary: '', targetDate: '2028-02-29', stages: 'Qualify' }),
    ).toMatchObject({
      ok: true,
    });
  });
});

describe('invisible text', () => {
  it('refuses a bid named, or a stage written, with invisible characters only', () => {
    const fields = { name: '\u200B\u200B', summary: '', targetDate: null, stages: '' };
    expect(checkStartBid(fields)).toMatchObject({
      ok: false,
      errors: { 'pipeline/name_block': 'Give the bid a name.' },
    });
    const stage = checkStartBid({ ...fields, name: 'Bid', stages: 'Qualify\n\u200B | 3' });
    expect(stage).toMatchObject({ ok: false });
    expect(JSON.stringify(stage)).toContain('Line 2 has no stage name before the bar.');
  });
});
