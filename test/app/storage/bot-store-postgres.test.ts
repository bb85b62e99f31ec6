import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe } from 'vitest';
import { type BotStore, openBotStore } from '../../../src/app/storage/bot-store.ts';
import { botStoreContract } from './bot-store-contract.ts';

/**
 * The shared suite on PostgreSQL (127.0.0.1:5432, user postgres, trust; `.ci/run` starts it).
 * A database of its own per test name, made on first use and dropped at the end. Without a
 * PostgreSQL to reach this fails: CI must run it.
 */
const SERVER = 'postgres://postgres@127.0.0.1:5432';
const run = randomBytes(4).toString('hex');
const created = new Map<string, Promise<string>>();

/** Runs one statement on the server's maintenance database. */
async function onServer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${SERVER}/postgres` });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

function databaseFor(name: string): Promise<string> {
  let database = created.get(name);
  if (!database) {
    const databaseName = `tb_store_${run}_${name.replace(/[^a-z0-9]/gi, '_').toLowerCase()}`;
    database = onServer(`CREATE DATABASE ${databaseName}`).then(() => databaseName);
    created.set(name, database);
  }
  return database;
}

afterAll(async () => {
  for (const database of created.values()) {
    const name = await database.catch(() => null);
    if (name) await onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
});

describe('the PostgreSQL bot store', () => {
  botStoreContract(async (name): Promise<BotStore> => openBotStore(`${SERVER}/${await databaseFor(name)}`));
});
