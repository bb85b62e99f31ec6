import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
import { SeenRequests } from '../../../src/app/storage/seen-requests.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-seen-requests-'));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the requests seen, pruned in the background', () => {
  it('a prune that fails never fails the write it follows: the command stored and the request remembered say so', async () => {
    const failing = vi
      .spyOn(SeenRequests.prototype as unknown as { deleteExpired: () => Promise<void> }, 'deleteExpired')
      .mockRejectedValue(new Error('canceling statement due to lock timeout'));
    const store = openBotStore(`sqlite:${join(dir, 'prune.db')}`);
    const now = new Date('2027-05-03T08:00:00Z');
    const request = { id: 'signature:v0=aa', expiresAt: new Date(now.getTime() + 360_000), now };
    expect(await store.queueCommand({ id: 'c-1', teamId: 'T1', body: '{}', receivedAt: now }, request)).toBe(
      true,
    );
    // Its first prune was tried (and failed) as the command was stored; the next a minute later.
    expect(failing).toHaveBeenCalledTimes(1);
    const later = new Date(now.getTime() + 61_000);
    expect(await store.rememberRequest('signature:v0=bb', new Date(later.getTime() + 360_000), later)).toBe(
      true,
    );
    expect(failing).toHaveBeenCalledTimes(2);
    expect(await store.queuedCommandCount()).toBe(1);
    expect(await store.rememberRequest('signature:v0=aa', request.expiresAt, later)).toBe(false);
    await store.close();
  });
});
