/**
 * The texts of the store's prepared queries (Prepared, compiled once each), named so that
 * PostgreSQL parses and plans each once per connection instead of at every run: the scheduler runs
 * some for every post, and parsing and planning them took half the server's CPU in bench:digests
 * (a claim's plan alone 570 µs). Only these: a name stays prepared on its connection for as long as
 * the connection lives, so texts built per call (lists of varying length) are never named.
 */
const names = new Map<string, string>();
/** Bumped when a named statement no longer fits the table (another version changed its columns). */
let generation = 0;

/** Registers a prepared query's text (idempotent). */
export function nameStatement(text: string): void {
  if (!names.has(text)) names.set(text, `tb_${names.size}`);
}

/** The name `text` runs under on PostgreSQL, or undefined to run it unnamed. */
export function statementName(text: string): string | undefined {
  const name = names.get(text);
  return name === undefined ? undefined : `${name}_${generation}`;
}

/**
 * A named statement was prepared before its table's columns changed (a newer copy migrated while
 * this one ran): PostgreSQL refuses to run it ("cached plan must not change result type"). Every
 * name changes, so each statement is prepared anew on its next run.
 */
export function renameStatements(): void {
  generation++;
}
