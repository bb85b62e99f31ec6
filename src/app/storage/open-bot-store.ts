import { openPostgresBotDatabase, openSqliteBotDatabase } from './bot-database.ts';
import type { BotStore } from './bot-store.ts';
import { composeBotStore, openKyselyStores } from './kysely-bot-store.ts';

/**
 * Opens the bot's store: `sqlite:PATH` a SQLite file (created and migrated now; `sqlite::memory:`
 * a throwaway one), `postgres://…` a PostgreSQL database (migrated before its first query, which
 * waits for it). Other schemes are refused with a sentence.
 */
export function openBotStore(databaseUrl: string): BotStore {
  if (databaseUrl.startsWith('sqlite:')) {
    return composeBotStore(openKyselyStores(openSqliteBotDatabase(databaseUrl.slice('sqlite:'.length))));
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    return composeBotStore(openKyselyStores(openPostgresBotDatabase(databaseUrl)));
  }
  throw new Error(
    `DATABASE_URL ${databaseUrl.split(':')[0]}: is not supported; use sqlite:PATH or postgres://…`,
  );
}
