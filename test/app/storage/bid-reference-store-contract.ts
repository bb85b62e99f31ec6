import { expect, it } from 'vitest';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';

/** What every BidReferenceStore must do (bids' short numbers); `open` as in botStoreContract. */
export function bidReferenceStoreContract(open: (name: string) => BotStore | Promise<BotStore>): void {
  it('gives each bid a number once, per workspace, from 1, and finds bids by number and id prefix', async () => {
    const first = await open('bid-references');
    const second = await open('bid-references');
    expect((await first.bidReferenceNumbers('T1', [])).size).toBe(0);
    const given = await first.bidReferenceNumbers('T1', ['aaaa1111-p1', 'aaaa2222-p2']);
    expect([...given.entries()]).toEqual([
      ['aaaa1111-p1', 1],
      ['aaaa2222-p2', 2],
    ]);
    // Asked again, by another copy too, a bid keeps its number; a new one gets the next.
    const again = await second.bidReferenceNumbers('T1', ['aaaa2222-p2', 'bbbb3333-p3', 'aaaa1111-p1']);
    expect(Object.fromEntries(again)).toEqual({ 'aaaa1111-p1': 1, 'aaaa2222-p2': 2, 'bbbb3333-p3': 3 });
    // Another workspace counts from 1 on its own.
    expect((await second.bidReferenceNumbers('T2', ['aaaa1111-p1'])).get('aaaa1111-p1')).toBe(1);
    // Read without giving: only the numbers given so far, in that workspace; nothing given by asking.
    expect(
      Object.fromEntries(await first.givenBidReferenceNumbers('T1', ['bbbb3333-p3', 'cccc4444-p4'])),
    ).toEqual({
      'bbbb3333-p3': 3,
    });
    expect((await first.givenBidReferenceNumbers('T2', ['bbbb3333-p3'])).size).toBe(0);
    expect(await first.bidWithReferenceNumber('T1', 4)).toBeNull();
    expect(await first.bidWithReferenceNumber('T1', 3)).toBe('bbbb3333-p3');
    expect(await first.bidWithReferenceNumber('T1', 4)).toBeNull();
    expect(await first.bidWithReferenceNumber('T2', 2)).toBeNull();
    expect(await second.bidsWithIdPrefix('T1', 'aaaa', 10)).toEqual(['aaaa1111-p1', 'aaaa2222-p2']);
    expect(await second.bidsWithIdPrefix('T1', 'aaaa2', 10)).toEqual(['aaaa2222-p2']);
    expect(await second.bidsWithIdPrefix('T1', 'aaaa', 1)).toHaveLength(1);
    expect(await second.bidsWithIdPrefix('T2', 'bbbb', 10)).toEqual([]);
    // What LIKE would read as a wildcard matches nothing rather than everything.
    expect(await second.bidsWithIdPrefix('T1', '%', 10)).toEqual([]);
    await first.close();
    await second.close();
  });

  it('never gives one number twice when two copies allocate at the same moment', async () => {
    const first = await open('bid-references-race');
    const second = await open('bid-references-race');
    const ids = (copy: string) => Array.from({ length: 12 }, (_, index) => `${copy}-${index}`);
    // Each copy numbers its own bids one call each, all at once, and both number the shared ones.
    const answers = await Promise.all([
      ...ids('first').map((id) => first.bidReferenceNumbers('T1', [id])),
      ...ids('second').map((id) => second.bidReferenceNumbers('T1', [id])),
      first.bidReferenceNumbers('T1', ['shared-a', 'shared-b']),
      second.bidReferenceNumbers('T1', ['shared-b', 'shared-a']),
    ]);
    const all = await first.bidReferenceNumbers('T1', [
      ...ids('first'),
      ...ids('second'),
      'shared-a',
      'shared-b',
    ]);
    const numbers = [...all.values()].sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 26 }, (_, index) => index + 1));
    // What each caller was told is what the store keeps.
    for (const answer of answers) for (const [id, number] of answer) expect(all.get(id)).toBe(number);
    await first.close();
    await second.close();
  });
}
