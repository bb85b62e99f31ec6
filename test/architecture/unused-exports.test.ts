import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `npm run lint:unused` (knip, with the project's knip.json) fails on an export nobody imports and
 * on a dependency nobody uses, and passes once they are gone: a small tree laid out as src/ is.
 */
const run = promisify(execFile);
const knip = join(import.meta.dirname, '../../node_modules/knip/bin/knip.js');
const projectConfig = readFileSync(join(import.meta.dirname, '../../knip.json'), 'utf8');
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function planted(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'tenderbot-unused-'));
  roots.push(root);
  const tree: Record<string, string> = {
    'knip.json': projectConfig,
    'tsconfig.json': JSON.stringify({ compilerOptions: { allowImportingTsExtensions: true, noEmit: true } }),
    'src/cli/main.ts': "import { used } from '../app/parts.ts';\nconsole.log(used);\n",
    ...files,
  };
  for (const [path, text] of Object.entries(tree)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

async function knipIn(root: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run(process.execPath, [knip, '--no-progress', '--no-config-hints'], {
      cwd: root,
    });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: `${failed.stdout}${failed.stderr}` };
  }
}

const packageJson = (dependencies: Record<string, string> = {}) =>
  JSON.stringify({ name: 'planted', type: 'module', dependencies });

describe('npm run lint:unused', () => {
  it('fails on an export nobody imports, naming it, and passes without it', async () => {
    const breach = planted({
      'package.json': packageJson(),
      'src/app/parts.ts': 'export const used = 1;\nexport const forgotten = 2;\n',
    });
    const refused = await knipIn(breach);
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/Unused exports[\s\S]*forgotten[\s\S]*src\/app\/parts\.ts/);

    const clean = planted({ 'package.json': packageJson(), 'src/app/parts.ts': 'export const used = 1;\n' });
    expect(await knipIn(clean)).toEqual({ code: 0, output: '' });
  }, 60_000);

  it('fails on a dependency nothing imports', async () => {
    const breach = planted({
      'package.json': packageJson({ 'left-pad': '^1.3.0' }),
      'src/app/parts.ts': 'export const used = 1;\n',
    });
    const refused = await knipIn(breach);
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/Unused dependencies[\s\S]*left-pad/);
  }, 60_000);
});
