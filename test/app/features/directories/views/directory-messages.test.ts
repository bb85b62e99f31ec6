import { describe, expect, it } from 'vitest';
import { organisationsMessage } from '../../../../../src/app/features/directories/views/directory-messages.ts';
import { counted } from '../../../../../src/app/shared/views/formats.ts';
import { mrkdwn } from '../../../../../src/app/shared/views/mrkdwn.ts';
import { buyerRecord } from '../../../../support/buyer-record.ts';

const buyerWith = (name: string, noticeCount: number) =>
  buyerRecord(
    name,
    `9711454a-f86c-5415-9d6b-f37e32a7b6${String(noticeCount % 100).padStart(2, '0')}`,
    noticeCount,
  );

describe('counts people read', () => {
  it('are grouped by thousands, with the noun in the singular for one', () => {
    expect(counted(1, 'notice')).toBe('1 notice');
    expect(counted(0, 'notice')).toBe('0 notices');
    expect(counted(8547, 'notice')).toBe('8,547 notices');
    expect(counted(1_234_567, 'match', 'matches')).toBe('1,234,567 matches');
  });

  it('a buyer list says 8,547 notices, not 8547', () => {
    const message = organisationsMessage(
      'buyers',
      [buyerWith('Big Council', 8547), buyerWith('Small Parish', 1)],
      2,
      mrkdwn`“council”`,
    );
    const words = JSON.stringify(message.blocks);
    expect(words).toContain('8,547 notices');
    expect(words).not.toContain('8547');
    expect(words).toContain('1 notice');
    expect(words).not.toContain('1 notices');
  });
});
