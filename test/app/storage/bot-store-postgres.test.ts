import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgresBotDatabase } from '../../../src/app/storage/bot-database.ts';
import { BOT_SCHEMA } from '../../../src/app/storage/bot-schema.ts';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { Prepared, slot } from '../../../src/app/storage/kysely-store-base.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
import { botStoreContract } from './bot-store-contract.ts';

/**
 * The shared suite on PostgreSQL (127.0.0.1:5432, user postgres, trust; `.ci/run` starts it).
 * One database for the file, made on first use and dropped at the end; each test name gets a
 * schema of its own in it (the store's connections put it first on their search_path), so a new
 * name is still an empty store. A database per name made the file create and drop some thirty
 * databases, and each DROP DATABASE forces a checkpoint: under load the dropping alone outlasted
 * the hook's timeout. Without a PostgreSQL to reach this fails: CI must run it.
 */
const SERVER = 'postgres://postgres@127.0.0.1:5432';
const run = randomBytes(4).toString('hex');
const DATABASE = `tb_store_${run}`;
let database: Promise<void> | undefined;
const schemas = new Map<string, Promise<string>>();

/** Runs one statement on a database of the server (its maintenance database unless named). */
async function onServer(statement: string, databaseName = 'postgres'): Promise<void> {
  const client = new pg.Client({ connectionString: `${SERVER}/${databaseName}` });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** The URL of an empty store called `name` (the same store on every call with that name). */
async function storeUrl(name: string): Promise<string> {
  database ??= onServer(`CREATE DATABASE ${DATABASE}`);
  await database;
  let schema = schemas.get(name);
  if (!schema) {
    const schemaName = `s_${name.replace(/[^a-z0-9]/gi, '_').toLowerCase()}`.slice(0, 60);
    schema = onServer(`CREATE SCHEMA ${schemaName}`, DATABASE).then(() => schemaName);
    schemas.set(name, schema);
  }
  const schemaName = await schema;
  // application_name lets a test find its own store's connections on the server.
  return `${SERVER}/${DATABASE}?options=${encodeURIComponent(`-c search_path=${schemaName}`)}&application_name=${schemaName}`;
}

afterAll(async () => {
  if (
    await database?.then(
      () => true,
      () => false,
    )
  )
    await onServer(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
});

describe('the PostgreSQL bot store', () => {
  botStoreContract(async (name): Promise<BotStore> => openBotStore(await storeUrl(name)));

  it('applies each schema step once when several copies open a new database at the same moment', async () => {
    const url = await storeUrl('migration-race');
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

  it('parses each of its prepared queries once per connection, and prepares one again when a newer copy changed its table', async () => {
    const url = await storeUrl('named-statements');
    const store = openBotStore(url);
    const subscription = {
      id: 's-named',
      teamId: 'T1',
      channelId: 'C1',
      kind: 'pipeline' as const,
      target: '{"p":"pl-1"}',
      cadence: 'daily' as const,
      localTime: '09:00',
      timeZone: 'UTC',
      createdBy: 'U1',
      createdAt: new Date(0),
      pausedReason: null,
      nextRunAt: new Date(0),
      cursor: null,
      skippedCount: 0,
    };
    expect(await store.createSubscription(subscription)).toBe(true);
    for (let read = 0; read < 5; read++)
      expect((await store.getSubscription('T1', 's-named'))?.id).toBe('s-named');
    const schema = new URL(url).searchParams.get('application_name') as string;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // A newer copy adds a column: the statement prepared for the old row no longer fits, and
      // PostgreSQL refuses it (only a named statement can be refused so: an unnamed one is parsed
      // at every run); the store prepares it again and answers.
      await client.query(`ALTER TABLE ${schema}.subscriptions ADD COLUMN added_by_a_newer_copy text`);
    } finally {
      await client.end();
    }
    for (let read = 0; read < 3; read++)
      expect((await store.getSubscription('T1', 's-named'))?.id).toBe('s-named');
    await store.close();
    // The connection that ran a prepared query holds it under its name (queries one after another
    // take the same idle connection back).
    const database = openPostgresBotDatabase(url);
    await database.ready;
    const byId = new Prepared(
      database.db.selectFrom('subscriptions').select('id').where('id', '=', slot<string>('id')),
    );
    for (let read = 0; read < 3; read++)
      expect((await byId.run(database.db, { id: 's-named' })).rows).toEqual([{ id: 's-named' }]);
    const held = await sql<{
      name: string;
      statement: string;
    }>`select name, statement from pg_prepared_statements`.execute(database.db);
    expect(
      held.rows.some((row) => /^tb_\d+_\d+$/.test(row.name) && row.statement.includes('"subscriptions"')),
    ).toBe(true);
    await database.close();
  });

  it('a connection the server drops while a transaction holds it fails that transaction, not the process', async () => {
    const url = await storeUrl('dropped-held');
    const database = openPostgresBotDatabase(url);
    await database.ready;
    const applicationName = new URL(url).searchParams.get('application_name');
    const held = database.db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      await onServer(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '${applicationName}'`,
      );
      // The socket's error arrives while the transaction holds the connection, between statements.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await sql`select 1`.execute(trx);
    });
    await expect(held).rejects.toThrow();
    // The next query answers on a new connection.
    let answered = false;
    for (let attempt = 0; attempt < 3 && !answered; attempt++) {
      answered = await sql`select 1`.execute(database.db).then(
        () => true,
        () => false,
      );
    }
    expect(answered).toBe(true);
    await database.close();
  });

  it('refuses a database newer than it knows, with a sentence', async () => {
    const url = await storeUrl('newer');
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
    const url = await storeUrl('dropped');
    const store = openBotStore(url);
    await store.ping();
    const applicationName = new URL(url).searchParams.get('application_name');
    await onServer(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '${applicationName}'`,
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
