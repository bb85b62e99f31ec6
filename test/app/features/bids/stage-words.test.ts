import { describe, expect, it } from 'vitest';
import { bidStatusMeant, stageStatusMeant } from '../../../../src/app/features/bids/stage-words.ts';

describe('a status typed wrong', () => {
  it('is answered with the status most likely meant, as its card shows it', () => {
    expect(String(bidStatusMeant('qualfying'))).toBe(' Did you mean Qualifying?');
    expect(String(bidStatusMeant('on hodl'))).toBe(' Did you mean On hold?');
    expect(String(stageStatusMeant('blokced'))).toBe(' Did you mean Blocked?');
    expect(String(stageStatusMeant('compelte'))).toBe(' Did you mean Completed?');
  });

  it('offers nothing far from every status, for a status one may not set, or for a word too short to guess', () => {
    expect(String(bidStatusMeant('winning'))).toBe('');
    expect(String(bidStatusMeant('submited'))).toBe('');
    expect(String(stageStatusMeant('xy'))).toBe('');
    expect(String(stageStatusMeant('finnished'))).toBe('');
  });
});
