import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { nodeFlagsOfScript, TENDERBOT_NODE_FLAGS } from '../../../bench/support/node-flags.ts';

const run = promisify(execFile);
const scripts = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../../package.json'), 'utf8'))
  .scripts as Record<string, string>;

describe("tenderbot's Node flags", () => {
  it('are read from npm start, and npm run tenderbot passes the same', () => {
    expect(TENDERBOT_NODE_FLAGS).toContain('--max-semi-space-size=64');
    expect(nodeFlagsOfScript(scripts.tenderbot ?? '')).toEqual(TENDERBOT_NODE_FLAGS);
  });

  it('are ones Node takes in NODE_OPTIONS, as docs/operations.md gives them to a deployment', async () => {
    // Node refuses, and ends at once, an option NODE_OPTIONS may not carry.
    const { stdout } = await run(process.execPath, ['-p', 'process.env.NODE_OPTIONS'], {
      env: { ...process.env, NODE_OPTIONS: TENDERBOT_NODE_FLAGS.join(' ') },
    });
    expect(stdout.trim()).toBe(TENDERBOT_NODE_FLAGS.join(' '));
    const refused = await run(process.execPath, ['-e', '0'], {
      env: { ...process.env, NODE_OPTIONS: '--no-such-flag-here' },
    }).catch((error) => error);
    expect(refused).toBeInstanceOf(Error);
  });

  it('refuse a script that does not run bin/tenderbot.js with node', () => {
    expect(() => nodeFlagsOfScript('tsx bin/tenderbot.js start')).toThrow(/not a script/);
  });
});
