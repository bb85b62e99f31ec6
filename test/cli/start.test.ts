import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SOURCES_BIN } from '../support/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `tenderbot start` in an empty folder with only `env` (no .env file there). */
function start(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [SOURCES_BIN, 'start'],
      { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, _stdout, stderr) =>
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr }),
    );
  });
}

describe('tenderbot start', () => {
  it('with an app’s client id runs the Slack app (many workspaces), not the workbench', async () => {
    // Half an OAuth configuration: the app's own configuration check answers, naming what is
    // missing, and no workbench data folder is made.
    const { code, stderr } = await start({ SLACK_CLIENT_ID: '1234.5678' });
    expect(code).not.toBe(0);
    expect(stderr).toContain('Tenderbot cannot start');
    expect(stderr).toContain('SLACK_CLIENT_SECRET');
    expect(existsSync(join(dir, 'data'))).toBe(false);
  });
});
