import { describe, expect, it } from 'vitest';
import { checkStartBid } from '../../../src/app/features/bids/pipeline-submissions.ts';
import { isBlank } from '../../../src/app/shared/blank-text.ts';

describe('isBlank', () => {
  it('is true for spaces and invisible characters only, false once anything shows', () => {
    for (const blank of ['', '   ', '\u200B', ' \u200D\u200E\u2060 ', '\uFEFF\u202E', '\t\n\u0007'])
      expect(isBlank(blank), JSON.stringify(blank)).toBe(true);
    for (const shown of ['a', ' 1 ', '\u200Bé', '🚀', '\u0301', '·'])
      expect(isBlank(shown), JSON.stringify(shown)).toBe(false);
  });

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
