import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openBotStore } from '../../../src/app/storage/bot-store.ts';
import { botStoreContract } from './bot-store-contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-bot-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the SQLite bot store', () => {
  // A real file per name: two stores opened on one name share it, as two app copies would.
  botStoreContract((name) => openBotStore(`sqlite:${join(dir, `${name}.db`)}`));

  it('refuses a database it does not support, with a sentence', () => {
    expect(() => openBotStore('mysql://localhost/tenderbot')).toThrow(
      /not supported; use sqlite:PATH or postgres:/,
    );
  });
});
