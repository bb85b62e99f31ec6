import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inStoreTurn } from '../../../src/app/shared/store-turn.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';

// Two copies of the app: two store objects on one SQLite file (each its own queue in the process).
const url = `sqlite:${join(mkdtempSync(join(tmpdir(), 'store-turn-')), 'bot.sqlite')}`;
const one = openBotStore(url);
const two = openBotStore(url);
afterAll(async () => {
  await one.close();
  await two.close();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('inStoreTurn', () => {
  it('runs work for one name one at a time across copies, and other names alongside', async () => {
    let inside = 0;
    let mostInside = 0;
    const order: string[] = [];
    const work = (label: string) => async () => {
      inside++;
      mostInside = Math.max(mostInside, inside);
      order.push(`${label} in`);
      await pause(20);
      order.push(`${label} out`);
      inside--;
      return label;
    };
    const results = await Promise.all([
      inStoreTurn(one, 'bid-a', work('one 1')),
      inStoreTurn(two, 'bid-a', work('two 1')),
      inStoreTurn(one, 'bid-a', work('one 2')),
      inStoreTurn(two, 'bid-a', work('two 2')),
    ]);
    expect(results).toEqual(['one 1', 'two 1', 'one 2', 'two 2']);
    expect(mostInside).toBe(1);
    // Each went in and out before the next went in.
    for (let index = 0; index < order.length; index += 2) {
      expect(order[index]?.replace(' in', '')).toBe(order[index + 1]?.replace(' out', ''));
    }

    let otherRan = false;
    await Promise.all([
      inStoreTurn(one, 'bid-b', async () => {
        await pause(50);
        expect(otherRan).toBe(true);
      }),
      inStoreTurn(two, 'bid-c', async () => {
        otherRan = true;
      }),
    ]);
  });

  it('gives the turn back when the work fails', async () => {
    await expect(
      inStoreTurn(one, 'failing', async () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    const started = performance.now();
    await expect(inStoreTurn(two, 'failing', async () => 'next')).resolves.toBe('next');
    // Taken at once, not when the failed work's claim would have ended (a minute).
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('a turn held by a copy that died is taken once its claim ends', async () => {
    const now = new Date('2026-11-29T10:00:00Z');
    // The dead copy's claim, never given back: it ends at 10:01.
    expect(await one.rememberRequest('turn:orphaned', new Date(now.getTime() + 60_000), now)).toBe(true);
    const later = new Date(now.getTime() + 60_001);
    await expect(inStoreTurn(two, 'orphaned', async () => 'taken', { clock: () => later })).resolves.toBe(
      'taken',
    );
  });

  it('work waits for a held turn at most waitAtMostMs, then goes ahead (a click is never dropped)', async () => {
    const now = new Date();
    expect(await one.rememberRequest('turn:stuck', new Date(now.getTime() + 60_000), now)).toBe(true);
    let ran = false;
    const going = inStoreTurn(
      two,
      'stuck',
      async () => {
        ran = true;
      },
      { waitAtMostMs: 150 },
    );
    await pause(50);
    expect(ran).toBe(false);
    await going;
    expect(ran).toBe(true);
  });
});
