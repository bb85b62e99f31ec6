import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { nodeFlagsOfScript } from './node-flags.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** Another commit of this repository, checked out beside it, to run as a same-run baseline. */
export interface Checkout {
  commit: string;
  /** Its `bin/tenderbot.js`. */
  entry: string;
  /** The Node flags its own `npm start` ran with (Node's defaults where it named none). */
  nodeFlags: string[];
  remove(): void;
}

/**
 * `commit` checked out in a temporary worktree with this checkout's node_modules (its own may
 * differ in patch versions; the app's code is what is compared), or why not when this is no clone
 * that holds it (a shallow clone, or no git).
 */
export function checkoutAt(commit: string): Checkout | { missing: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tenderbot-baseline-'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    git('worktree', 'add', '--detach', '--force', dir, commit);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const said = (error as { stderr?: string }).stderr?.trim().split('\n')[0] ?? String(error);
    return { missing: `${commit} could not be checked out here (${said})` };
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const packageJson = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  let nodeFlags: string[] = [];
  try {
    nodeFlags = nodeFlagsOfScript(packageJson.scripts?.start ?? '');
  } catch {
    // A start script of another shape: Node's defaults.
  }
  return {
    commit,
    entry: join(dir, 'bin/tenderbot.js'),
    nodeFlags,
    remove: () => {
      try {
        git('worktree', 'remove', '--force', dir);
      } catch {
        rmSync(dir, { recursive: true, force: true });
        git('worktree', 'prune');
      }
    },
  };
}
