import { describe, expect, it } from 'vitest';
import {
  LISTED_TENDERS,
  tenderListOutput,
} from '../../../../../src/app/features/workflows/views/step-outputs.ts';
import type { Tender } from '../../../../../src/contract/schemas.ts';

const NOW = new Date('2026-11-26T12:00:00Z');

function tender(index: number, overrides: Partial<Tender> = {}): Tender {
  return {
    id: `ocds-test-${index}`,
    title: `Cleaning ${index}`,
    description: null,
    status: 'open',
    buyer: { id: 'b1', name: 'Leeds City Council' },
    value: null,
    publishedAt: '2026-11-20T00:00:00Z',
    deadline: '2026-12-10T12:00:00Z',
    awardedAt: null,
    region: null,
    cpvCodes: [],
    source: { name: 'test', id: `T-${index}` },
    url: `https://example.org/notices/${index}`,
    frameworkId: null,
    suppliers: [],
    ...overrides,
  } as Tender;
}

describe('the tender list a step outputs (mrkdwn a later "Send a message" step shows)', () => {
  it('links each title to its notice, with the buyer, the deadline and the id', () => {
    expect(tenderListOutput([tender(1)], 1, NOW)).toBe(
      '• <https://example.org/notices/1|Cleaning 1> · Leeds City Council · closes in 14 days (10 Dec 2026, 12:00 UTC) · ocds-test-1',
    );
  });

  it('escapes the service’s text, so a title cannot mention a channel or break the link', () => {
    const planted = tenderListOutput(
      [
        tender(2, {
          title: '<!channel> *urgent*|<https://evil.example|x>',
          buyer: { id: 'b', name: '<@U0ADMIN>' },
        }),
      ],
      1,
      NOW,
    );
    expect(planted).not.toContain('<!channel>');
    expect(planted).not.toContain('<@U0ADMIN>');
    expect(planted).not.toContain('<https://evil.example');
    expect(planted).toContain('&lt;!channel&gt;');
  });

  it('lists ten at most and says how many more, and says when there are none', () => {
    const many = Array.from({ length: 12 }, (_, index) => tender(index));
    const lines = tenderListOutput(many, 40, NOW).split('\n');
    expect(lines).toHaveLength(LISTED_TENDERS + 1);
    expect(lines.at(-1)).toBe('…and 30 more.');
    // A year's tenders: grouped by thousands, as every count people read.
    expect(tenderListOutput(many, 8547, NOW).split('\n').at(-1)).toBe('…and 8,537 more.');
    expect(tenderListOutput([], 0, NOW)).toBe('No new tenders.');
  });
});
