// The statement cache is shared with the bot's store; it lives in src/shared/sqlite.ts.
export { StatementCache } from '../../shared/sqlite.ts';
