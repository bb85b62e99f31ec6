import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/service/sandbox.ts';
import { hashApiKey } from '../../src/service/store/organisations-store.ts';
import { runCli } from '../support/cli.ts';
import { callApi, startTestSandbox } from '../support/sandbox.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let dbPath: string;
beforeAll(async () => {
  // A database holding the test fixture's organisations and users, then closed.
  const setup = await startTestSandbox({ dir });
  dbPath = setup.dbPath;
  await setup.close();
});

/** `tenderbot sandbox key create` for a user of Acme in the test database. */
const createKey = (user: string, scopes: string) =>
  runCli([
    'sandbox',
    'key',
    'create',
    '--db',
    dbPath,
    '--org',
    'org-acme',
    '--user',
    user,
    '--scopes',
    scopes,
  ]);

describe('tenderbot sandbox key create', () => {
  it('prints a new key alone on the last line; the key works with exactly its scopes', async () => {
    const created = await createKey('usr-carol', 'tenders:read,buyers:read');
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split('\n');
    const key = lines.at(-1) as string;
    expect(key).toMatch(/^pis_[A-Za-z0-9_-]{43}$/);

    const sandbox = await startSandbox({ db: dbPath, port: 0 });
    try {
      expect((await callApi(sandbox.baseUrl, 'GET', '/v1/tenders', { key })).status).toBe(200);
      expect((await callApi(sandbox.baseUrl, 'GET', '/v1/buyers', { key })).status).toBe(200);
      const denied = await callApi(sandbox.baseUrl, 'GET', '/v1/suppliers', { key });
      expect(denied.body).toMatchObject({ code: 'missing_scope', requiredScope: 'suppliers:read' });
      // Only the hash is stored: its SHA-256 is there, the clear key nowhere in the table.
      const rows = sandbox.db.prepare('SELECT * FROM api_keys').all();
      expect(rows.filter((row) => (row as { key_hash: string }).key_hash === hashApiKey(key))).toHaveLength(
        1,
      );
      expect(JSON.stringify(rows)).not.toContain(key);
    } finally {
      await sandbox.close();
    }
  });

  it('refuses unknown scopes, organisations and non-members with exit code 2 and a sentence', async () => {
    const unknownScope = await createKey('usr-alice', 'tenders:write');
    expect(unknownScope.code).toBe(2);
    expect(unknownScope.stderr).toContain('unknown scope tenders:write');
    const nonMember = await createKey('usr-dave', 'tenders:read');
    expect(nonMember.code).toBe(2);
    expect(nonMember.stderr).toContain('not a member');
    const missing = await runCli(['sandbox', 'key', 'create', '--db', dbPath]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--org is required');
  });
});
