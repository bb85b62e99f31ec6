import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './database.ts';

type Params = unknown[] | object;

/** Prepares each distinct SQL text once; queries built from filters repeat a small set of shapes. */
export class StatementCache {
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly db: SqliteDatabase) {}

  prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  get<T>(sql: string, params: Params): T | undefined {
    const statement = this.prepare(sql);
    return (Array.isArray(params) ? statement.get(...params) : statement.get(params)) as T | undefined;
  }

  all<T>(sql: string, params: Params): T[] {
    const statement = this.prepare(sql);
    return (Array.isArray(params) ? statement.all(...params) : statement.all(params)) as T[];
  }

  run(sql: string, params: Params): { changes: number } {
    const statement = this.prepare(sql);
    return Array.isArray(params) ? statement.run(...params) : statement.run(params);
  }
}
