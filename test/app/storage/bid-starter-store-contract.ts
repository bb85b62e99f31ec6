import { expect, it } from 'vitest';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { at } from './contract-fixtures.ts';

/** What every BidStarterStore must do (who started each bid); `open` as in botStoreContract. */
export function bidStarterStoreContract(open: (name: string) => BotStore | Promise<BotStore>): void {
  it('records who started each bid, per workspace, keeps the first, and is shared by every copy', async () => {
    const first = await open('bid-starters');
    const second = await open('bid-starters');
    expect((await first.bidStarters('T1', [])).size).toBe(0);
    await first.recordBidStarter({
      pipelineId: 'p1',
      teamId: 'T1',
      userId: 'UALICE',
      ownKey: true,
      startedAt: at,
    });
    await first.recordBidStarter({
      pipelineId: 'p2',
      teamId: 'T1',
      userId: 'UBOB',
      ownKey: false,
      startedAt: at,
    });
    await first.recordBidStarter({
      pipelineId: 'p1',
      teamId: 'T2',
      userId: 'UCAROL',
      ownKey: false,
      startedAt: at,
    });
    // A retry (or another copy) recording the same bid again does not change who started it.
    await second.recordBidStarter({
      pipelineId: 'p1',
      teamId: 'T1',
      userId: 'UMALLORY',
      ownKey: false,
      startedAt: at,
    });
    const starters = await second.bidStarters('T1', ['p1', 'p2', 'p3']);
    expect([...starters.keys()].sort()).toEqual(['p1', 'p2']);
    expect(starters.get('p1')).toEqual({
      pipelineId: 'p1',
      teamId: 'T1',
      userId: 'UALICE',
      ownKey: true,
      startedAt: at,
    });
    expect(starters.get('p2')).toMatchObject({ userId: 'UBOB', ownKey: false });
    expect([...(await first.bidStarters('T2', ['p1', 'p2'])).values()].map((s) => s.userId)).toEqual([
      'UCAROL',
    ]);
    // Many ids at once (more than one statement's worth).
    const many = Array.from({ length: 250 }, (_, index) => `m${index}`);
    await first.recordBidStarter({
      pipelineId: 'm249',
      teamId: 'T1',
      userId: 'ULAST',
      ownKey: false,
      startedAt: at,
    });
    const bulk = await first.bidStarters('T1', many);
    expect([...bulk.values()].map((s) => s.userId)).toEqual(['ULAST']);
    // A workspace that removes Tenderbot takes who started its bids with it; others keep theirs.
    await first.removeWorkspace('T1');
    expect((await second.bidStarters('T1', ['p1', 'p2'])).size).toBe(0);
    expect((await second.bidStarters('T2', ['p1'])).get('p1')?.userId).toBe('UCAROL');
    await first.close();
    await second.close();
  });
}
