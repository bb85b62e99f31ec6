import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateSqlite, openSqlite } from '../../src/shared/sqlite.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MIGRATIONS = [
  'CREATE TABLE workspaces (team_id TEXT PRIMARY KEY);',
  "CREATE TABLE seen (id TEXT PRIMARY KEY); INSERT INTO workspaces VALUES ('T1');",
];

describe('the SQLite migrator', () => {
  it('brings a new file to the newest version, and a second opening changes nothing', () => {
    const path = join(dir, 'one.db');
    const first = openSqlite(path, MIGRATIONS);
    expect(first.pragma('user_version', { simple: true })).toBe(2);
    first.close();
    const again = openSqlite(path, MIGRATIONS);
    expect(again.prepare('SELECT count(*) AS n FROM workspaces').get()).toEqual({ n: 1 });
    again.close();
  });

  it('refuses a file newer than it knows, with a sentence', () => {
    const path = join(dir, 'newer.db');
    openSqlite(path, MIGRATIONS).close();
    const db = openSqlite(path, [...MIGRATIONS, 'CREATE TABLE later (x);']);
    expect(() => migrateSqlite(db, MIGRATIONS)).toThrow(/newer than this program knows/);
    db.close();
  });

  it('applies each migration once when several processes open a new file at the same moment', async () => {
    const path = join(dir, 'race.db');
    const opener = resolve(import.meta.dirname, '../../src/shared/sqlite.ts');
    const script = `
      import { openSqlite } from ${JSON.stringify(opener)};
      const db = openSqlite(${JSON.stringify(path)}, ${JSON.stringify(MIGRATIONS)});
      console.log(db.pragma('user_version', { simple: true }), db.prepare('SELECT count(*) AS n FROM workspaces').get().n);
    `;
    // Copies of the app started together: before the fix one failed with "table … already exists".
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
          cwd: resolve(import.meta.dirname, '../..'),
        }),
      ),
    );
    expect(answers.map((answer) => answer.stdout.trim())).toEqual(Array(6).fill('2 1'));
  }, 60_000);
});
