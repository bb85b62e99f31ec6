import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inStoreTurn, type TurnStore } from '../../../src/app/shared/store-turn.ts';
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

  it('work queued in one copy behind slow work waits at most waitAtMostMs, and runs once', async () => {
    const ran: string[] = [];
    const slow = inStoreTurn(one, 'slow', async () => {
      await pause(1_000);
      ran.push('slow');
    });
    let runs = 0;
    await inStoreTurn(
      one,
      'slow',
      async () => {
        runs++;
        ran.push('waited');
      },
      { waitAtMostMs: 100 },
    );
    // Done before the slow work: it did not wait for it.
    expect(ran).toEqual(['waited']);
    await slow;
    await pause(20);
    expect(ran).toEqual(['waited', 'slow']);
    expect(runs).toBe(1);
  });

  it('a store that fails, or does not answer, never keeps the work from running', async () => {
    const failing: TurnStore = {
      rememberRequest: async () => {
        throw new Error('database is locked');
      },
      forgetRequest: async () => undefined,
    };
    await expect(inStoreTurn(failing, 'any', async () => 'ran')).resolves.toBe('ran');

    // Never answers until after the deadline, then says the claim was taken: it is given back.
    let answer: (claimed: boolean) => void = () => undefined;
    const forgotten: string[] = [];
    const silent: TurnStore = {
      rememberRequest: () => new Promise<boolean>((resolve) => (answer = resolve)),
      forgetRequest: async (id) => {
        forgotten.push(id);
      },
    };
    const started = performance.now();
    await expect(inStoreTurn(silent, 'hung', async () => 'ran', { waitAtMostMs: 100 })).resolves.toBe('ran');
    expect(performance.now() - started).toBeLessThan(5_000);
    // The next work for the same name is not stuck behind it either.
    await expect(inStoreTurn(silent, 'hung', async () => 'next', { waitAtMostMs: 100 })).resolves.toBe(
      'next',
    );
    answer(true);
    await pause(20);
    expect(forgotten).toEqual(['turn:hung']);
  });
});
