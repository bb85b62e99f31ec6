import { describe, expect, it } from 'vitest';
import { stageText } from '../../../../../src/app/features/bids/views/stage-text.ts';
import type { Stage } from '../../../../../src/contract/schemas.ts';

const NOW = new Date('2026-11-26T10:00:00Z');

const stage = (overrides: Partial<Stage> = {}): Stage => ({
  id: 'st-1',
  position: 0,
  name: 'Write the bid',
  description: null,
  expectedDurationDays: null,
  status: 'in_progress',
  notes: null,
  dueDate: '2026-11-20',
  ...overrides,
});

describe('a stage’s line', () => {
  it('says a stage past its due day is overdue while the bid is worked on, and flags days after the closing and the target', () => {
    expect(stageText(stage(), 1, NOW, 300)).toContain('due 20 Nov 2026 (overdue)');
    const late = stageText(stage({ dueDate: '2026-12-20' }), 1, NOW, 300, '2026-12-10', '2026-12-05');
    expect(late).toContain(':warning:');
    // Done: nothing to chase.
    expect(stageText(stage({ status: 'completed' }), 1, NOW, 300)).not.toContain('overdue');
  });

  it('says no stage of a bid submitted, settled or archived is overdue (nobody works to its days)', () => {
    const settled = stageText(stage(), 1, NOW, 300, null, null, true);
    expect(settled).toContain('due 20 Nov 2026');
    expect(settled).not.toMatch(/overdue|:warning:/);
  });
});
