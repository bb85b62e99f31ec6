import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openBotStore } from '../../../src/app/storage/bot-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-bot-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the bot store', () => {
  it('keeps a workspace connection across reopening the file, and removes it', () => {
    const url = `sqlite:${join(dir, 'bot.db')}`;
    const store = openBotStore(url);
    store.saveConnection({
      teamId: 'T1',
      encryptedApiKey: 'v1:abc',
      serviceUrl: null,
      connectedBy: 'U1',
      connectedAt: '2026-11-21T00:00:00Z',
    });
    store.close();
    const reopened = openBotStore(url);
    expect(reopened.getConnection('T1')).toMatchObject({
      teamId: 'T1',
      encryptedApiKey: 'v1:abc',
      connectedBy: 'U1',
    });
    expect(reopened.removeConnection('T1')).toBe(true);
    expect(reopened.getConnection('T1')).toBeNull();
    expect(reopened.removeConnection('T1')).toBe(false);
    reopened.close();
  });

  it('remembers a request until it expires, once for every store opened on the same file', async () => {
    const url = `sqlite:${join(dir, 'seen.db')}`;
    const one = openBotStore(url);
    const two = openBotStore(url);
    const at = new Date('2026-11-22T12:00:00Z');
    const until = new Date(at.getTime() + 6 * 60_000);
    expect(await one.rememberRequest('signature:v0=aa', until, at)).toBe(true);
    expect(await one.rememberRequest('signature:v0=aa', until, at)).toBe(false);
    expect(await two.rememberRequest('signature:v0=aa', until, at)).toBe(false);
    expect(await two.rememberRequest('signature:v0=bb', until, at)).toBe(true);
    // Past its expiry the row is pruned, and the same id is new again.
    const later = new Date(until.getTime() + 1);
    expect(await two.rememberRequest('signature:v0=aa', new Date(later.getTime() + 60_000), later)).toBe(
      true,
    );
    one.close();
    two.close();
  });

  it('lists stored connections', async () => {
    const store = openBotStore('sqlite::memory:');
    expect(await store.listConnections()).toEqual([]);
    store.saveConnection({
      teamId: 'T2',
      encryptedApiKey: 'v1:x',
      serviceUrl: null,
      connectedBy: 'U1',
      connectedAt: '2026-11-21T00:00:00Z',
    });
    const listed = await store.listConnections();
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.map((connection) => connection.teamId)).toEqual(['T2']);
    store.close();
  });

  it('refuses a database it does not support, with a sentence', () => {
    expect(() => openBotStore('postgres://localhost/tenderbot')).toThrow(
      /not supported yet; use sqlite:PATH/,
    );
  });
});
