import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { looksLikeTenderId } from '../../../../src/app/shared/commands/parse-command.ts';
import { SUBCOMMANDS } from '../../../../src/app/shared/commands/subcommands.ts';

/**
 * Every command the app's sentences tell people to type is one the app answers: a sentence naming
 * `/tender searches` sent people to "is not a command" (the command is `/tender saved`). The
 * sentences are the string literals and templates of every file the app and the workbench show
 * text from; comments are not read.
 */
const ROOT = join(import.meta.dirname, '../../../..');
const SCANNED = ['src/app', 'src/workbench'];

/**
 * `/tender` and what is written after it on the same line, when it starts as a word or an id does:
 * `${…}`, `&lt;id&gt;`, `…` and the end of a piece of a template are placeholders, not words.
 */
const NAMED = /\/tender(?![\w-])(?:[ \t\u00A0]+([\p{L}\p{N}][\p{L}\p{N}_-]*))?/gu;

interface Named {
  where: string;
  word: string | null;
}

/** The cooked text of each string literal and each piece of each template in a file, with its line. */
function literalsOf(path: string, source: string): { line: number; text: string }[] {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: { line: number; text: string }[] = [];
  const add = (node: ts.Node, text: string) =>
    found.push({ line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1, text });
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) add(node, node.text);
    else if (ts.isTemplateExpression(node)) {
      add(node.head, node.head.text);
      for (const span of node.templateSpans) add(span.literal, span.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Each `/tender` written in the file's literals, and the word after it (null: nothing after it). */
function commandsNamedIn(path: string, source: string): Named[] {
  return literalsOf(path, source).flatMap(({ line, text }) =>
    [...text.matchAll(NAMED)].map((match) => ({ where: `${path}:${line}`, word: match[1] ?? null })),
  );
}

/** A word after `/tender` that the app answers: a subcommand, or a tender's id (which shows it). */
function isAnswered(word: string | null): boolean {
  return word === null || (SUBCOMMANDS as readonly string[]).includes(word) || looksLikeTenderId(word);
}

function typeScriptFilesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(dir, name))
    .sort();
}

describe('the commands the app’s sentences name', () => {
  it('finds a wrong name in a sentence, whatever quotes it (the old “Check its name in /tender searches.”)', () => {
    const source = [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a planted source file, templates and all.
      'const a = plainSentence`No saved search is called “${named}”. Check its name in /tender searches.`;',
      "const b = 'Run `/tender saved` or `/tender`.';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a planted source file, templates and all.
      'const c = mrkdwn`Try ${code(`/tender ${meant}`)} or \\`/tender ocds-b5fd17-…\\` or /tender &lt;id&gt;`;',
      '// A comment naming /tender nonsense is not a sentence.',
    ].join('\n');
    const named = commandsNamedIn('planted.ts', source);
    expect(named.filter((one) => !isAnswered(one.word))).toEqual([
      { where: 'planted.ts:1', word: 'searches' },
    ]);
    expect(named).toHaveLength(6);
    expect(named.flatMap((one) => (one.word ? [one.word] : [])).sort()).toEqual([
      'ocds-b5fd17-',
      'saved',
      'searches',
    ]);
  });

  it('every `/tender <word>` in src/app and src/workbench names a subcommand, or nothing after it', () => {
    const named = SCANNED.flatMap(typeScriptFilesUnder).flatMap((path) =>
      commandsNamedIn(relative(ROOT, join(ROOT, path)), readFileSync(join(ROOT, path), 'utf8')),
    );
    // The scan reads the sentences: the help card alone names a dozen commands.
    expect(named.filter((one) => one.word !== null).length).toBeGreaterThan(30);
    const wrong = named
      .filter((one) => !isAnswered(one.word))
      .map((one) => `${one.where}: /tender ${one.word}`);
    expect(wrong).toEqual([]);
  });
});
