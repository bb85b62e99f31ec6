import { describe, expect, it } from 'vitest';
import { blockKitProblems, viewProblems } from '../../../../src/app/shared/views/block-kit-limits.ts';
import { clip, escapeMrkdwn } from '../../../../src/app/shared/views/mrkdwn.ts';
import { tenderCard } from '../../../../src/app/shared/views/tender-card.ts';
import type { Tender } from '../../../../src/contract/schemas.ts';
import { readerTime } from '../../../support/slack-dates.ts';

const longTender: Tender = {
  id: 'ocds-x',
  title: 'T'.repeat(10_000),
  description: 'D'.repeat(20_000),
  status: 'open',
  buyer: { id: 'b', name: '<b>'.repeat(1000) },
  value: { amount: 1_250_000, currency: 'GBP' },
  publishedAt: '2026-11-01T00:00:00Z',
  deadline: '2026-11-26T12:00:00Z',
  awardedAt: null,
  region: 'North West',
  cpvCodes: [{ code: '90910000', description: 'Cleaning services' }],
  source: { name: 'Contracts Finder', id: 'CF-1' },
  url: `https://example.org/${'u'.repeat(5000)}`,
  frameworkId: null,
  suppliers: [],
};

describe('the Block Kit validator', () => {
  it('names each limit a payload breaks', () => {
    const problems = blockKitProblems(
      [
        { type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } },
        { type: 'section', text: { type: 'mrkdwn', text: 's'.repeat(3001) } },
        { type: 'section', fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'f' })) },
        {
          type: 'actions',
          elements: [
            {
              type: 'button',
              text: { type: 'plain_text', text: 'b'.repeat(76) },
              action_id: 'a',
              value: 'v'.repeat(2001),
            },
          ],
        },
        {
          type: 'input',
          label: { type: 'plain_text', text: 'x' },
          element: { type: 'plain_text_input', action_id: 'i' },
        },
      ],
      'message',
    );
    expect(problems).toEqual([
      'blocks[0] (header): header text over 150',
      'blocks[1] (section).text: text over 3000',
      'blocks[2] (section): over 10 fields',
      'blocks[3] (actions): button text over 75',
      'blocks[3] (actions): button value over 2000',
      'blocks[4] (input): input blocks belong in modals and Home tabs',
    ]);
    expect(
      blockKitProblems(
        Array.from({ length: 51 }, () => ({ type: 'divider' })),
        'message',
      ),
    ).toContain('51 blocks, over the 50 a message allows');
    expect(
      viewProblems({
        type: 'modal',
        title: { type: 'plain_text', text: 'A title longer than 24 chars' },
        blocks: [],
      }),
    ).toEqual(['view.title over 24 characters']);
  });

  it('holds an external select to its own limits: options from the app, an initial option within size', () => {
    const modal = (element: Record<string, unknown>) =>
      viewProblems({
        type: 'modal',
        title: { type: 'plain_text', text: 'Search tenders' },
        blocks: [{ type: 'input', label: { type: 'plain_text', text: 'Buyer' }, element }],
      });
    expect(modal({ type: 'external_select', action_id: 'b', min_query_length: 2 })).toEqual([]);
    expect(
      modal({
        type: 'external_select',
        action_id: 'b',
        options: [],
        initial_option: { text: { type: 'plain_text', text: 't'.repeat(76) }, value: 'v'.repeat(151) },
        min_query_length: -1,
      }),
    ).toEqual([
      'blocks[0] (input).element: an external select lists no options of its own',
      'blocks[0] (input).element: option text over 75',
      'blocks[0] (input).element: option value over 150',
      'blocks[0] (input).element: min_query_length',
    ]);
  });

  it('finds nothing wrong with a card built from an oversized tender', () => {
    const card = tenderCard(longTender, {
      bookmarked: false,
      shared: false,
      now: new Date('2026-11-21T00:00:00Z'),
      context: 'detail',
    });
    expect(blockKitProblems(card, 'message')).toEqual([]);
    expect(JSON.stringify(card)).toContain(
      `closes in 5 days (${readerTime('2026-11-26T12:00:00Z', '26 Nov 2026, 12:00 UTC')})`,
    );
    expect(JSON.stringify(card)).toContain('£1,250,000');
  });
});

describe('mrkdwn escaping', () => {
  it('escapes Slack’s control characters and never cuts an entity in half', () => {
    expect(escapeMrkdwn('<!channel> & <@U123>')).toBe('&lt;!channel&gt; &amp; &lt;@U123&gt;');
    expect(clip(escapeMrkdwn('ab<<<<'), 6)).toBe('ab…');
  });
});
