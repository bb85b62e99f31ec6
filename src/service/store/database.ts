import { openSqlite, type SqliteDatabase } from '../../shared/sqlite.ts';
import { MIGRATIONS } from './migrations.ts';

export type { SqliteDatabase };

/** Opens the service's SQLite file (src/shared/sqlite.ts), migrated to the service's schema by default. */
export function openDatabase(path: string, migrations: readonly string[] = MIGRATIONS): SqliteDatabase {
  return openSqlite(path, migrations);
}
