import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { firstWithin } from '../../../src/app/shared/repeat-guard.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';

const store = openBotStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'repeat-guard-')), 'bot.sqlite')}`);
afterAll(async () => store.close());

const at = (seconds: number) => new Date(Date.UTC(2027, 0, 1, 9, 0, seconds));

describe('firstWithin (one act claimed for a while, in the shared store)', () => {
  it('lets the first of many at once through, and no other', async () => {
    const claims = await Promise.all(
      Array.from({ length: 8 }, () => firstWithin(store, 'share:T:C:tender-1', 60_000, at(0))),
    );
    expect(claims.filter((claim) => claim.first)).toHaveLength(1);
  });

  it('lets the next through once the window has passed, and not before', async () => {
    expect((await firstWithin(store, 'act-2', 60_000, at(0))).first).toBe(true);
    expect((await firstWithin(store, 'act-2', 60_000, at(59))).first).toBe(false);
    expect((await firstWithin(store, 'act-2', 60_000, at(61))).first).toBe(true);
  });

  it('a released claim (the act failed) lets the next try through at once, and that one holds again', async () => {
    const failed = await firstWithin(store, 'act-3', 60_000, at(0));
    expect(failed.first).toBe(true);
    await failed.release();
    expect((await firstWithin(store, 'act-3', 60_000, at(1))).first).toBe(true);
    expect((await firstWithin(store, 'act-3', 60_000, at(2))).first).toBe(false);
  });

  it('keeps acts apart by name', async () => {
    expect((await firstWithin(store, 'act-4:a', 60_000, at(0))).first).toBe(true);
    expect((await firstWithin(store, 'act-4:b', 60_000, at(0))).first).toBe(true);
  });
});
