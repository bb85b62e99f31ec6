import { describe, expect, it } from 'vitest';
import {
  bidEntity,
  currentStage,
  tenderEntity,
} from '../../../../../src/app/features/work-objects/views/entities.ts';
import type { Pipeline, Stage, Tender } from '../../../../../src/contract/schemas.ts';

const NOW = new Date('2026-11-26T12:00:00Z');

const tender: Tender = {
  id: 'ocds-x-1',
  title: `*Bold* <!channel> ${'long '.repeat(60)}`,
  description: null,
  status: 'active',
  buyer: null,
  value: null,
  publishedAt: '2026-11-01T00:00:00Z',
  deadline: null,
  awardedAt: null,
  region: null,
  cpvCodes: [],
  source: { name: 'Contracts Finder', id: 'cf-1' },
  url: null,
  frameworkId: null,
  suppliers: [],
} as unknown as Tender;

function stage(position: number, status: Stage['status']): Stage {
  return {
    id: `s${position}`,
    position,
    name: `Stage ${position}`,
    description: null,
    expectedDurationDays: null,
    status,
    notes: null,
    dueDate: null,
  };
}

const bid = {
  id: 'bid-1',
  name: 'A bid',
  summary: null,
  status: 'bidding',
  targetSubmissionDate: null,
  tenderId: null,
  owner: { id: 'usr-1', name: 'Carol Member' },
  archived: false,
  createdAt: '2026-11-01T00:00:00Z',
  updatedAt: '2026-11-01T00:00:00Z',
  stages: [stage(2, 'pending'), stage(1, 'completed')],
} as Pipeline;

describe('tenderEntity', () => {
  it('keeps text as plain text, clips the title, and says what is not known', () => {
    const entity = tenderEntity(
      tender,
      { url: 'https://s/v1/tenders/ocds-x-1', appUnfurlUrl: 'https://p/1' },
      NOW,
    );
    const title = entity.entity_payload.attributes.title.text;
    expect(title.length).toBe(200);
    expect(title.startsWith('*Bold* <!channel>')).toBe(true);
    expect(title.endsWith('…')).toBe(true);
    const values = Object.fromEntries(
      (entity.entity_payload.custom_fields ?? []).map((f) => [f.key, f.value]),
    );
    expect(values).toMatchObject({ status: 'Active', buyer: 'Not stated', deadline: 'No deadline given' });
    expect(entity.app_unfurl_url).toBe('https://p/1');
  });
});

describe('bidEntity', () => {
  it('names the first stage not completed, by position, and leaves out a due date it does not have', () => {
    expect(currentStage(bid.stages)?.id).toBe('s2');
    const entity = bidEntity(bid, { url: 'https://s/v1/pipelines/bid-1' }, 'BID-3');
    expect(entity.app_unfurl_url).toBeUndefined();
    // Shown by the reference people type, not the service's id.
    expect(entity.entity_payload.attributes.display_id).toBe('BID-3');
    expect(entity.entity_payload.fields).not.toHaveProperty('due_date');
    expect(entity.entity_payload.fields).toMatchObject({ status: { value: 'Bidding' } });
    const stageField = entity.entity_payload.custom_fields?.find((f) => f.key === 'stage');
    expect(stageField?.value).toBe('Stage 2 (Pending)');
    const done = bidEntity({ ...bid, stages: [stage(1, 'completed')] }, { url: 'u' }, 'BID-3');
    expect(done.entity_payload.custom_fields?.find((f) => f.key === 'stage')?.value).toBe(
      'All stages completed',
    );
  });
});
