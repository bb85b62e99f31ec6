import { describe, expect, it } from 'vitest';
import { idsOldestFirst, withBidReferences } from '../../../../src/app/features/bids/bid-references.ts';
import type { FeatureContext } from '../../../../src/app/shared/feature-context.ts';

/** A store that numbers ids in the order it is given them, as the real one gives new numbers. */
function numberingContext(): { context: FeatureContext; asked: string[][] } {
  const asked: string[][] = [];
  const numbers = new Map<string, number>();
  const store = {
    bidReferenceNumbers: async (_teamId: string, ids: readonly string[]) => {
      asked.push([...ids]);
      for (const id of ids) if (!numbers.has(id)) numbers.set(id, numbers.size + 1);
      return new Map(ids.map((id) => [id, numbers.get(id) as number]));
    },
  };
  return { context: { store } as unknown as FeatureContext, asked };
}

describe('BID numbers given to bids shown together', () => {
  it('go oldest first whatever the list’s order, and bids made in the same moment in the list’s order reversed', async () => {
    const { context } = numberingContext();
    // Newest first, as the service lists them; two made in the same millisecond (an import).
    const listed = [
      { id: 'newest', createdAt: '2026-11-03T00:00:00.000Z' },
      { id: 'twin-later', createdAt: '2026-11-02T00:00:00.000Z' },
      { id: 'twin-earlier', createdAt: '2026-11-02T00:00:00.000Z' },
      { id: 'oldest', createdAt: '2026-11-01T00:00:00Z' },
    ];
    const numbered = await withBidReferences(context, 'T1', listed);
    // The list keeps its order; the numbers follow the bids' ages.
    expect(numbered.map((bid) => bid.id)).toEqual(['newest', 'twin-later', 'twin-earlier', 'oldest']);
    expect(numbered.map((bid) => bid.reference)).toEqual(['BID-4', 'BID-3', 'BID-2', 'BID-1']);
  });

  it('are asked for oldest first wherever bids are drawn in another order (reminders by deadline, link previews)', () => {
    expect(
      idsOldestFirst([
        { id: 'closes-first', createdAt: '2026-11-20T00:00:00Z' },
        { id: 'closes-later', createdAt: '2026-10-01T00:00:00Z' },
        { id: 'no-date' },
      ]),
    ).toEqual(['no-date', 'closes-later', 'closes-first']);
  });
});
