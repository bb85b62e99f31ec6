import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { BOT_SCHEMA } from '../../../src/app/storage/bot-schema.ts';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
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

  it('applies each schema step once when several copies open a new database at the same moment', async () => {
    const url = `${SERVER}/${await databaseFor('migration-race')}`;
    const copies = Array.from({ length: 4 }, () => openBotStore(url));
    await Promise.all(copies.map((copy) => copy.ping()));
    await Promise.all(
      copies.map((copy, index) =>
        copy.saveConnection({
          teamId: `T${index}`,
          encryptedApiKey: 'v1:x',
          serviceUrl: null,
          connectedBy: 'U',
          connectedAt: 'now',
        }),
      ),
    );
    expect(await copies[0]?.listConnections()).toHaveLength(4);
    for (const copy of copies) await copy.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT version FROM bot_schema_version');
      expect(rows).toEqual([{ version: BOT_SCHEMA.length }]);
    } finally {
      await client.end();
    }
  });

  it('refuses a database newer than it knows, with a sentence', async () => {
    const url = `${SERVER}/${await databaseFor('newer')}`;
    await openBotStore(url).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`UPDATE bot_schema_version SET version = ${BOT_SCHEMA.length + 1}`);
    await client.end();
    const store = openBotStore(url);
    await expect(store.ping()).rejects.toThrow(/newer than this program knows/);
    await store.close();
  });

  it('answers again after the server dropped its connections (a restart), without ending the process', async () => {
    const name = await databaseFor('dropped');
    const store = openBotStore(`${SERVER}/${name}`);
    await store.ping();
    await onServer(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`,
    );
    // The pool drops the dead connection when it hears of it (a query on it before then fails);
    // the next query takes a new one.
    let answered = false;
    for (let attempt = 0; attempt < 3 && !answered; attempt++) {
      answered = await store.ping().then(
        () => true,
        () => false,
      );
    }
    expect(answered).toBe(true);
    await store.close();
  });

  it('fails, rather than waits, when the database does not answer', async () => {
    // A port nothing listens on: a health check must say so.
    const store = openBotStore('postgres://postgres@127.0.0.1:1/tenderbot');
    await expect(store.ping()).rejects.toThrow();
    await store.close();
  });
});
