import { describe, expect, it } from 'vitest';
import {
  qualifyAnswered,
  qualifyQuestion,
} from '../../../../../src/app/features/workflows/views/qualify-question.ts';
import type { Tender } from '../../../../../src/contract/schemas.ts';

const NOW = new Date('2026-11-26T12:00:00Z');

const TENDER = {
  id: 'ocds-test-1',
  title: 'Cleaning <!channel> & *windows*',
  description: null,
  status: 'open',
  buyer: { id: 'b1', name: 'Leeds City Council' },
  value: null,
  publishedAt: '2026-11-20T00:00:00Z',
  deadline: '2026-12-10T12:00:00Z',
  awardedAt: null,
  region: null,
  cpvCodes: [],
  source: { name: 'test', id: 'T-1' },
  url: 'https://example.org/notices/1',
  frameworkId: null,
  suppliers: [],
} as unknown as Tender;

describe('the question "Ask someone to qualify a tender" posts', () => {
  it('asks the person, names the tender, and has one button per answer', () => {
    const question = qualifyQuestion('U0MEMBER', TENDER, NOW, 'workflow/qualify');
    expect(question.text).toBe('<@U0MEMBER>, does this tender qualify for a bid?');
    const json = JSON.stringify(question.blocks);
    expect(json).toContain('ocds-test-1');
    expect(json).toContain('closes in 14 days');
    const actions = question.blocks.find((block) => block.type === 'actions');
    expect(actions).toMatchObject({
      elements: [
        { action_id: 'workflow/qualify/0', value: 'qualified', style: 'primary' },
        { action_id: 'workflow/qualify/1', value: 'not qualified' },
      ],
    });
  });

  it('escapes the tender’s title, so it cannot mention a channel', () => {
    const json = JSON.stringify(qualifyQuestion('U0MEMBER', TENDER, NOW, 'workflow/qualify').blocks);
    expect(json).not.toContain('<!channel>');
    expect(json).toContain('&lt;!channel&gt; &amp;');
  });

  it('once answered, says who answered what, with no buttons left', () => {
    const answered = qualifyAnswered('U0MEMBER', 'not qualified', 'ocds-<x>');
    expect(answered.text).toBe('<@U0MEMBER> answered: tender ocds-&lt;x&gt; is *not qualified*.');
    expect(answered.blocks.some((block) => block.type === 'actions')).toBe(false);
  });
});
