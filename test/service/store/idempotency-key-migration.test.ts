import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/service/store/database.ts';
import { MIGRATIONS } from '../../../src/service/store/migrations.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-idempotency-migration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('schema step 10 on a database made before keys were compared without case', () => {
  it('lowers the kept keys, and where one was kept in both cases keeps the capitals’ row apart', () => {
    const path = join(dir, 'before-lowered.db');
    const before = openDatabase(path, MIGRATIONS.slice(0, 9));
    const insert = before.prepare(
      `INSERT INTO idempotency_keys (organisation_id, user_id, endpoint, key, content, record_id, created_at)
       VALUES ('org-1', 'usr-1', 'POST /v1/comments', ?, '{}', ?, '2026-11-01T00:00:00Z')`,
    );
    insert.run('AAAAAAAA-0000-4000-8000-000000000001', 'c-upper');
    // The same key kept twice, in both cases (a retry in capitals made a second comment).
    insert.run('bbbbbbbb-0000-4000-8000-000000000002', 'c-lower');
    insert.run('BBBBBBBB-0000-4000-8000-000000000002', 'c-twice');
    before.close();

    const after = openDatabase(path);
    try {
      expect(after.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      const kept = after
        .prepare('SELECT key, record_id AS recordId FROM idempotency_keys ORDER BY record_id')
        .all();
      expect(kept).toEqual([
        { key: 'bbbbbbbb-0000-4000-8000-000000000002', recordId: 'c-lower' },
        { key: 'BBBBBBBB-0000-4000-8000-000000000002', recordId: 'c-twice' },
        { key: 'aaaaaaaa-0000-4000-8000-000000000001', recordId: 'c-upper' },
      ]);
    } finally {
      after.close();
    }
  });
});
