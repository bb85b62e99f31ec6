import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { OCDS_DIR } from '../support/ocds-data.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-cli-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tenderbot sandbox import', () => {
  it('imports files and prints what it did', async () => {
    const db = join(dir, 'import.db');
    const result = await runCli([
      'sandbox',
      'import',
      join(OCDS_DIR, 'uk-notices.releases.jsonl.gz'),
      join(OCDS_DIR, 'uk-ccs-frameworks.releases.jsonl.gz'),
      '--db',
      db,
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('uk-notices.releases.jsonl.gz: 380 releases imported, 0 skipped');
    expect(result.stdout).toContain('database: 497 tenders, 240 buyers, 241 suppliers, 184 frameworks');
  });

  it('fails with a sentence, not a stack trace, for a file that is not OCDS JSON', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"ocid": "x", "date": "2025-01-01T00:00:00Z"}\nthis is not json\n');
    const result = await runCli(['sandbox', 'import', bad, '--db', join(dir, 'bad.db')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^tenderbot: .*line 2: not valid JSON/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const usage = await runCli(['sandbox', 'import']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Usage: tenderbot');
  });
});
