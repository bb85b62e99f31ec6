import { describe, expect, it } from 'vitest';
import { hiddenCount, seenBidIds } from '../../../../src/app/features/connection/seen-bids.ts';
import type { ProcurementClient } from '../../../../src/client/procurement-client.ts';

/** A client whose bid list answers `ids`, of `total` in all (or throws). */
const clientListing =
  (ids: string[], total = ids.length, fails = false) =>
  async () => ({
    client: {
      pipelines: {
        list: async () => {
          if (fails) throw new Error('no pipeline:read');
          return { data: ids.map((id) => ({ id })), pagination: { total, limit: 100, offset: 0 } };
        },
      },
    } as unknown as ProcurementClient,
  });

describe('the bids a key sees, compared', () => {
  it('reads a whole list only: more than one page, or no answer, compares nothing', async () => {
    expect(await seenBidIds(clientListing(['pl-1', 'pl-2']))).toEqual(new Set(['pl-1', 'pl-2']));
    expect(await seenBidIds(clientListing(['pl-1'], 101))).toBeNull();
    expect(await seenBidIds(clientListing([], 0, true))).toBeNull();
  });

  it('counts the bids seen before and not after, and nothing when either is unknown', () => {
    const before = new Set(['pl-1', 'pl-2', 'pl-3']);
    expect(hiddenCount(before, new Set(['pl-2', 'pl-9']))).toBe(2);
    expect(hiddenCount(before, before)).toBe(0);
    expect(hiddenCount(null, before)).toBe(0);
    expect(hiddenCount(before, null)).toBe(0);
  });
});
