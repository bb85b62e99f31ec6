import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The machine's PostgreSQL (trust auth on loopback); TENDERBOT_TEST_POSTGRES overrides it. */
export const POSTGRES_SERVER = process.env.TENDERBOT_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432';

export interface TestDatabase {
  /** `postgres://…/name` of a new, empty database. */
  url: string;
  name: string;
  /** Drops it (closing whatever is still connected to it). */
  drop(): Promise<void>;
}

/**
 * A new empty database for one test file, named `tb_<label>_<random>`. Fails (never skips) when
 * PostgreSQL does not answer: CI starts it, and a test that needs it must not pass without it.
 */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `tb_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  await administer(`CREATE DATABASE ${name}`);
  return {
    url: `${POSTGRES_SERVER}/${name}`,
    name,
    drop: () => administer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function administer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${POSTGRES_SERVER}/postgres` });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL does not answer at ${POSTGRES_SERVER} (start it: pg_ctlcluster <version> main start): ${(error as Error).message}`,
    );
  }
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
