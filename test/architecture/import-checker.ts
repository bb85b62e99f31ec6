import { posix } from 'node:path';
import ts from 'typescript';

/** One import of a source file, as written and as resolved. */
export interface SourceImport {
  /** The file that imports, relative to the repository (`src/app/bot-app.ts`). */
  file: string;
  line: number;
  /** As written: `'undici'`, `'../../client/errors.ts'`. */
  specifier: string;
  /** A repository path for a relative import, else the package (`node:fs/promises` is `fs`). */
  target: string;
  /** `import type`, `export type … from`, or `typeof import(…)`: erased, so never run. */
  typeOnly: boolean;
}

/**
 * Every import of a file, read by TypeScript's own parser: static imports and re-exports, dynamic
 * `import()`, `require()`, and `import('…')` types. Comments and strings that merely look like
 * imports are not imports, which a regular expression would get wrong.
 */
export function importsOf(file: string, text: string): SourceImport[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: SourceImport[] = [];
  const add = (node: ts.Node, literal: ts.Expression | undefined, typeOnly: boolean) => {
    if (!literal || !ts.isStringLiteralLike(literal)) return;
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    found.push({ file, line, specifier: literal.text, target: resolveTarget(file, literal.text), typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const onlyTypes =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      add(node, node.moduleSpecifier, onlyTypes);
    } else if (ts.isExportDeclaration(node)) {
      add(node, node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node, node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal, true);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    ) {
      add(node, node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `../client/errors.ts` from `src/app/x.ts` is `src/client/errors.ts`; `node:fs/promises` is `fs`. */
function resolveTarget(file: string, specifier: string): string {
  if (specifier.startsWith('.')) return posix.normalize(posix.join(posix.dirname(file), specifier));
  const bare = specifier.replace(/^node:/, '');
  const parts = bare.split('/');
  return bare.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

/** A dependency the project forbids, written as data so that each reads as one sentence. */
export interface DependencyRule {
  /** The rule in words, quoted by every failure. */
  rule: string;
  /** The folders the rule governs (`src/app/`). */
  files: string[];
  /** Folders under `files` that the rule does not govern. */
  except?: string[];
  /** Folders of the repository (ending in `/`) or packages (`undici`, `fs` for `node:fs`). */
  mayNotImport: string[];
  /**
   * `direct` (the default): every import the files write, type-only ones too (a type from storage
   * ties a view to storage's shape). `runtime`: what the files can run, that is their value
   * imports followed from file to file through the repository: type-only imports are erased.
   */
  reach?: 'direct' | 'runtime';
  /**
   * Today's imports the rule lets through, each with the reason; a stale one is reported. In a
   * runtime rule an allowed import is not followed either: the walk stops there.
   */
  allowed?: { file: string; target: string; reason: string }[];
}

export interface Violation {
  rule: string;
  file: string;
  line: number;
  specifier: string;
  /** For a runtime rule: the chain of files from the governed file to the forbidden import. */
  through: string[];
}

const governs = (rule: DependencyRule, file: string) =>
  rule.files.some((folder) => file.startsWith(folder)) &&
  !(rule.except ?? []).some((folder) => file.startsWith(folder));

const forbids = (rule: DependencyRule, target: string) =>
  rule.mayNotImport.some((forbidden) =>
    forbidden.endsWith('/') ? target.startsWith(forbidden) : target === forbidden,
  );

const isAllowed = (rule: DependencyRule, file: string, target: string) =>
  (rule.allowed ?? []).some(
    (allowance) => allowance.file === file && forbidsTarget(allowance.target, target),
  );

const forbidsTarget = (pattern: string, target: string) =>
  pattern.endsWith('/') ? target.startsWith(pattern) : target === pattern;

/** Every import of `sources` (path → text) that breaks a rule. */
export function checkDependencies(
  sources: ReadonlyMap<string, string>,
  rules: readonly DependencyRule[],
): Violation[] {
  const imports = new Map<string, SourceImport[]>();
  for (const [file, text] of sources) imports.set(file, importsOf(file, text));
  const violations: Violation[] = [];
  for (const rule of rules) {
    for (const file of imports.keys()) {
      if (!governs(rule, file)) continue;
      if ((rule.reach ?? 'direct') === 'direct') {
        for (const found of imports.get(file) ?? []) {
          if (forbids(rule, found.target) && !isAllowed(rule, file, found.target)) {
            violations.push({
              rule: rule.rule,
              file,
              line: found.line,
              specifier: found.specifier,
              through: [],
            });
          }
        }
      } else {
        violations.push(...runtimeViolations(rule, file, imports));
      }
    }
  }
  return violations;
}

/**
 * Walks value imports from `start` through the repository's files, breadth first, and reports
 * the shortest path to each forbidden import it meets (one per forbidden import written).
 */
function runtimeViolations(
  rule: DependencyRule,
  start: string,
  imports: ReadonlyMap<string, SourceImport[]>,
): Violation[] {
  const violations: Violation[] = [];
  const seen = new Set<string>([start]);
  const queue: { file: string; path: string[] }[] = [{ file: start, path: [start] }];
  while (queue.length > 0) {
    const { file, path } = queue.shift() as { file: string; path: string[] };
    for (const found of imports.get(file) ?? []) {
      if (found.typeOnly || isAllowed(rule, file, found.target)) continue;
      if (forbids(rule, found.target)) {
        violations.push({
          rule: rule.rule,
          file: start,
          line: found.line,
          specifier: found.specifier,
          through: path,
        });
      } else if (imports.has(found.target) && !seen.has(found.target)) {
        seen.add(found.target);
        queue.push({ file: found.target, path: [...path, found.target] });
      }
    }
  }
  return violations;
}

/** Allowances that no longer match any import: the exception outlived its reason. */
export function staleAllowances(
  sources: ReadonlyMap<string, string>,
  rules: readonly DependencyRule[],
): string[] {
  const stale: string[] = [];
  for (const rule of rules) {
    for (const allowance of rule.allowed ?? []) {
      const text = sources.get(allowance.file);
      const used =
        text !== undefined &&
        importsOf(allowance.file, text).some((found) => forbidsTarget(allowance.target, found.target));
      if (!used) stale.push(`${allowance.file} → ${allowance.target} (${rule.rule})`);
    }
  }
  return stale;
}

/** One line a person can act on: the file, the line, the import, and the rule it breaks. */
export function describeViolation(violation: Violation): string {
  const where = violation.through.at(-1) ?? violation.file;
  const how =
    violation.through.length > 1
      ? `${violation.file} reaches '${violation.specifier}' (${violation.through.join(' → ')}:${violation.line})`
      : `${where}:${violation.line} imports '${violation.specifier}'`;
  return `${how}, which breaks the rule "${violation.rule}"`;
}
