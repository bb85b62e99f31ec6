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

  it('refuses a database it does not support, with a sentence', () => {
    expect(() => openBotStore('postgres://localhost/tenderbot')).toThrow(
      /not supported yet; use sqlite:PATH/,
    );
  });
});
