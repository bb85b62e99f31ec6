import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { TENDERBOT_BIN } from '../support/process.ts';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.ts';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.stop());

describe('tenderbot openapi', () => {
  it('prints, as its only output, exactly the document GET /v1/openapi.json answers', async () => {
    const printed = await runCli(['openapi']);
    expect(printed.stderr).toBe('');
    expect(printed.code).toBe(0);
    const served = await sandbox.call('GET', '/v1/openapi.json');
    expect(served.status).toBe(200);
    // The whole of standard output is the document (so `> openapi.json` makes a JSON file).
    expect(JSON.parse(printed.stdout)).toEqual(served.body);
    expect(Object.keys(JSON.parse(printed.stdout).paths)).toContain('/v1/tenders/{id}');
  });

  it('refuses an argument it does not take, with the usage', async () => {
    const refused = await runCli(['openapi', 'yaml']);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('unexpected argument: yaml');
    expect(refused.stderr).toContain('openapi');
  });

  it('ends quietly, with the status of a closed pipe (141), when its reader has gone (tenderbot openapi | head)', async () => {
    const child = spawn(process.execPath, [TENDERBOT_BIN, 'openapi'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    // The reader gone before the document is written: the write has nowhere to go.
    child.stdout.destroy();
    const code = await new Promise<number | null>((exited) => child.once('close', exited));
    expect(stderr).toBe('');
    expect(code).toBe(141);
  });
});

describe('tenderbot help', () => {
  it('prints the usage on standard output and ends with 0, asked as help, --help or -h', async () => {
    for (const asked of ['help', '--help', '-h']) {
      const printed = await runCli([asked]);
      expect(printed.code).toBe(0);
      expect(printed.stderr).toBe('');
      expect(printed.stdout).toContain('Usage: tenderbot <command>');
      expect(printed.stdout).toContain('sandbox serve');
    }
    // Not a command of its own elsewhere: an unknown word is still a usage mistake.
    expect((await runCli(['helpme'])).code).toBe(2);
  });
});
