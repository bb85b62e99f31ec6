import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEPENDENCY_RULES } from './dependency-rules.ts';
import {
  checkDependencies,
  type DependencyRule,
  describeViolation,
  importsOf,
  staleAllowances,
} from './import-checker.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** Every TypeScript file of src/, by its path from the repository root. */
function sourcesOfSrc(): Map<string, string> {
  const files = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `src/${file.split('\\').join('/')}`);
  return new Map(files.map((file) => [file, readFileSync(join(ROOT, file), 'utf8')]));
}

const check = (sources: Record<string, string>, rules = DEPENDENCY_RULES) =>
  checkDependencies(new Map(Object.entries(sources)), rules).map(describeViolation);

describe('the dependencies between the parts of Tenderbot', () => {
  const sources = sourcesOfSrc();

  it('reads every file of src/ and finds its imports', () => {
    expect(sources.size).toBeGreaterThan(100);
    const botApp = importsOf('src/app/bot-app.ts', sources.get('src/app/bot-app.ts') ?? '');
    expect(botApp.map((found) => found.target)).toContain('@slack/bolt');
    expect(botApp.length).toBeGreaterThan(5);
    const tellPerson = importsOf(
      'src/app/adapters/tell-person.ts',
      sources.get('src/app/adapters/tell-person.ts') ?? '',
    );
    expect(tellPerson.map((found) => found.target)).toContain('undici');
  });

  it('keeps to every rule of dependency-rules.ts', () => {
    expect(checkDependencies(sources, DEPENDENCY_RULES).map(describeViolation)).toEqual([]);
  });

  it('has no allowance left that no import uses (remove it from dependency-rules.ts)', () => {
    expect(staleAllowances(sources, DEPENDENCY_RULES)).toEqual([]);
  });
});

describe('the checker, on imports written for the test', () => {
  it('names the file, the line, the import and the rule a bad import breaks', () => {
    const failures = check({
      'src/service/store/tenders.ts': [
        "import { z } from 'zod';",
        "import { ProcurementClient } from '../../client/procurement-client.ts';",
      ].join('\n'),
    });
    expect(failures).toEqual([
      "src/service/store/tenders.ts:2 imports '../../client/procurement-client.ts', which breaks the rule " +
        '"The service never imports the client, the Slack app, the fake Slack or the workbench"',
    ]);
  });

  it('catches every way of importing: type-only, re-export, dynamic import(), require(), import types', () => {
    const failures = check({
      'src/fake-slack/a.ts': "import type { BotConfig } from '../app/config.ts';",
      'src/fake-slack/b.ts': "export { runBot } from '../app/main.ts';",
      'src/fake-slack/c.ts': "const app = await import('../app/main.ts');",
      'src/fake-slack/d.ts': "const app = require('../app/main.ts');",
      'src/fake-slack/e.ts': "let config: typeof import('../app/config.ts');",
    });
    expect(failures).toHaveLength(5);
    for (const letter of 'abcde') {
      expect(
        failures.some((failure) => failure.startsWith(`src/fake-slack/${letter}.ts:1 imports '../app/`)),
      ).toBe(true);
    }
  });

  it('takes node:fs and fs/promises for the package fs, and ignores imports that are only text', () => {
    const failures = check({
      'src/app/blocks/card.ts': [
        '// import { request } from "undici";',
        'const text = "import { readFile } from \'node:fs\'";',
        "import { readFile } from 'node:fs/promises';",
      ].join('\n'),
    });
    expect(failures).toEqual([
      "src/app/blocks/card.ts:3 imports 'node:fs/promises', which breaks the rule " +
        '"Views (src/app/blocks) do no I/O: nothing they run reaches the network, files or a database"',
    ]);
  });

  it('follows what a view runs from file to file, and shows the way to the I/O', () => {
    const failures = check({
      'src/app/blocks/card.ts': "import { label } from '../format/label.ts';",
      'src/app/format/label.ts': "import { lookup } from './lookup.ts';\nexport const label = 1;",
      'src/app/format/lookup.ts': "import { Agent } from 'undici';",
    });
    expect(failures).toEqual([
      "src/app/format/lookup.ts:1 imports 'undici', which breaks the rule " +
        '"The Slack app speaks HTTP only in src/app/adapters, never with undici elsewhere"',
      "src/app/blocks/card.ts reaches 'undici' (src/app/blocks/card.ts → src/app/format/label.ts → " +
        'src/app/format/lookup.ts:1), which breaks the rule ' +
        '"Views (src/app/blocks) do no I/O: nothing they run reaches the network, files or a database"',
    ]);
  });

  it('does not follow type-only imports for what runs: they are erased', () => {
    const failures = check({
      'src/app/blocks/card.ts': "import type { Row } from '../../shared/row.ts';",
      'src/shared/row.ts': "import Database from 'better-sqlite3';\nexport type Row = { id: string };",
    });
    expect(failures).toEqual([]);
  });

  it('lets an allowance through, and reports it once no import uses it', () => {
    const rule: DependencyRule = {
      rule: 'No undici in the app',
      files: ['src/app/'],
      mayNotImport: ['undici'],
      allowed: [{ file: 'src/app/bot-app.ts', target: 'undici', reason: 'HTTP to Slack' }],
    };
    expect(check({ 'src/app/bot-app.ts': "import { request } from 'undici';" }, [rule])).toEqual([]);
    expect(check({ 'src/app/other.ts': "import { request } from 'undici';" }, [rule])).toHaveLength(1);
    const cleaned = new Map([['src/app/bot-app.ts', "import { request } from '../client/http.ts';"]]);
    expect(staleAllowances(cleaned, [rule])).toEqual(['src/app/bot-app.ts → undici (No undici in the app)']);
  });
});
