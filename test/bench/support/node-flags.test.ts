import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { nodeFlagsOf, TENDERBOT_BIN, TENDERBOT_NODE_FLAGS } from '../../../bench/support/node-flags.ts';

const run = promisify(execFile);

describe("tenderbot's Node flags", () => {
  it('are read from the first line of bin/tenderbot.js', () => {
    expect(TENDERBOT_NODE_FLAGS).toContain('--max-semi-space-size=64');
  });

  it('are the ones npm start and npm run tenderbot pass', () => {
    const { scripts } = JSON.parse(
      readFileSync(resolve(import.meta.dirname, '../../../package.json'), 'utf8'),
    );
    for (const name of ['start', 'tenderbot'])
      expect(scripts[name]).toMatch(
        new RegExp(`^node ${TENDERBOT_NODE_FLAGS.join(' ')} bin/tenderbot\\.js\\b`),
      );
  });

  it('run the file as a command (the shebang is one env understands)', async () => {
    const { stdout } = await run(TENDERBOT_BIN, ['openapi'], { maxBuffer: 64 * 1024 * 1024 });
    expect(JSON.parse(stdout)).toMatchObject({ openapi: expect.stringMatching(/^3\./) });
  }, 60_000);

  it('are given to node when the file runs as a command (read from Linux /proc)', async () => {
    // `tenderbot mcp` waits on its standard input: long enough to read what node was started with.
    const child = spawn(TENDERBOT_BIN, ['mcp'], {
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { ...process.env, PROCUREMENT_API_URL: 'http://127.0.0.1:9', PROCUREMENT_API_KEY: 'pis_test' },
    });
    try {
      let argv: string[] = [];
      for (let tries = 0; tries < 100 && !argv[0]?.endsWith('node'); tries++) {
        await new Promise((wait) => setTimeout(wait, 50));
        argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
      }
      expect(argv.slice(1, 1 + TENDERBOT_NODE_FLAGS.length + 1)).toEqual([
        ...TENDERBOT_NODE_FLAGS,
        TENDERBOT_BIN,
      ]);
    } finally {
      child.kill();
    }
  }, 30_000);

  it('refuse a first line that is not a node shebang', () => {
    expect(() => nodeFlagsOf(resolve(import.meta.dirname, '../../../package.json'))).toThrow(/shebang/);
  });
});
