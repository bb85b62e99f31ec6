import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { BOT_SCHEMA } from '../../../src/app/storage/bot-schema.ts';
import { LEGACY_SQLITE_MIGRATIONS } from '../../../src/app/storage/legacy-sqlite-migrations.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
import { openSqlite } from '../../../src/shared/sqlite.ts';
import { botStoreContract } from './bot-store-contract.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-bot-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = new Date('2026-11-22T12:00:00Z');

describe('the SQLite bot store', () => {
  // A real file per name: two stores opened on one name share it, as two app copies would.
  botStoreContract((name) => openBotStore(`sqlite:${join(dir, `${name}.db`)}`));

  it('refuses a database it does not support, with a sentence', () => {
    expect(() => openBotStore('mysql://localhost/tenderbot')).toThrow(
      /not supported; use sqlite:PATH or postgres:/,
    );
  });

  for (const version of [7, 8]) {
    it(`opens a file an older Tenderbot made (hand-written migrations, version ${version}) and keeps its data`, async () => {
      const path = join(dir, `legacy-${version}.db`);
      const old = openSqlite(path, LEGACY_SQLITE_MIGRATIONS.slice(0, version));
      old
        .prepare(
          `INSERT INTO workspaces (team_id, encrypted_api_key, service_url, connected_by, connected_at)
           VALUES ('T1', 'v1:old', NULL, 'U1', '2026-11-01T00:00:00Z')`,
        )
        .run();
      old
        .prepare(
          `INSERT INTO subscriptions (id, team_id, channel_id, kind, target, cadence, local_time, time_zone,
             created_by, created_at, next_run_at) VALUES ('s-1', 'T1', 'C1', 'pipeline', '{}', 'daily', '09:00',
             'UTC', 'U1', ?, ?)`,
        )
        .run(at.getTime(), at.getTime());
      old
        .prepare(
          `INSERT INTO deliveries (id, subscription_id, team_id, channel_id, due_at, state, not_before,
             lease_owner, lease_until, posted_ts) VALUES ('d-1', 's-1', 'T1', 'C1', ?, 'working', ?, 'A', ?, '["1.1"]')`,
        )
        .run(at.getTime(), at.getTime(), at.getTime() + 60_000);
      old
        .prepare(`INSERT INTO seen_requests (id, expires_at) VALUES ('sig:old', ?)`)
        .run(at.getTime() + 60_000);
      old.close();

      const store = openBotStore(`sqlite:${path}`);
      expect(await store.getConnection('T1')).toMatchObject({ encryptedApiKey: 'v1:old', connectedBy: 'U1' });
      expect(await store.getSubscription('T1', 's-1')).toMatchObject({ nextRunAt: at, skippedCount: 0 });
      expect(await store.getDelivery('d-1')).toMatchObject({
        state: 'working',
        postedTs: ['1.1'],
        leaseOwner: 'A',
      });
      expect(await store.rememberRequest('sig:old', new Date(at.getTime() + 60_000), at)).toBe(false);
      // It goes on where it was: the next part in its place, and the newer tables.
      expect(await store.recordPart('d-1', 'A', 1, '2.2')).toBe(true);
      expect((await store.getDelivery('d-1'))?.postedTs).toEqual(['1.1', '2.2']);
      await store.savePersonalKey({
        teamId: 'T1',
        userId: 'U2',
        encryptedApiKey: 'v1:mine',
        serviceUrl: null,
        connectedAt: at,
      });
      expect((await store.getPersonalKey('T1', 'U2'))?.encryptedApiKey).toBe('v1:mine');
      await store.close();
      const raw = new Database(path, { readonly: true });
      expect(raw.pragma('user_version', { simple: true })).toBe(BOT_SCHEMA.length);
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      raw.close();
    });
  }

  it('refuses a file newer than it knows, with a sentence', () => {
    const path = join(dir, 'newer.db');
    const raw = new Database(path);
    raw.pragma(`user_version = ${BOT_SCHEMA.length + 1}`);
    raw.close();
    expect(() => openBotStore(`sqlite:${path}`)).toThrow(/newer than this program knows/);
  });

  it('applies each schema step once when several processes open a new file at the same moment', async () => {
    const path = join(dir, 'race.db');
    const opener = resolve(import.meta.dirname, '../../../src/app/storage/open-bot-store.ts');
    const script = `
      import { openBotStore } from ${JSON.stringify(opener)};
      const store = openBotStore(${JSON.stringify(`sqlite:${path}`)});
      await store.saveConnection({ teamId: 'T' + process.pid, encryptedApiKey: 'v1:x', serviceUrl: null, connectedBy: 'U', connectedAt: 'now' });
      console.log((await store.listConnections()).length > 0 ? 'ok' : 'empty');
      await store.close();
    `;
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
          cwd: resolve(import.meta.dirname, '../../..'),
        }),
      ),
    );
    expect(answers.map((answer) => answer.stdout.trim())).toEqual(Array(4).fill('ok'));
    const store = openBotStore(`sqlite:${path}`);
    expect(await store.listConnections()).toHaveLength(4);
    await store.close();
  }, 60_000);
});
