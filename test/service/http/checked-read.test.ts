import Database from 'better-sqlite3';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestLoggerFactory } from '../../../src/service/http/request-logger.ts';
import { expectProblem } from '../../contract/contract.ts';
import { KEYS, TENDER_A } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

// The checked tender read's fast path (issue 27): the key's hash is remembered, the key check and
// the read share one SQLite read transaction, and a request's logger is made only when it writes.
// None of it may remember what can change: each change below, made from another connection as
// another process would make it, is seen by the very next request.

let sandbox: TestSandbox;
/** A second connection to the service's file, as the command line or another copy would write. */
let other: Database.Database;
beforeAll(async () => {
  sandbox = await startTestSandbox();
  other = new Database(sandbox.dbPath);
  other.pragma('busy_timeout = 5000');
});
afterAll(async () => {
  other.close();
  await sandbox.stop();
});

const readTender = () => sandbox.call('GET', `/v1/tenders/${TENDER_A}`, { key: KEYS.carolMemberAcme });

describe('a checked tender read', () => {
  it('answers the tender the store holds, and leaves no transaction open', async () => {
    const answer = await readTender();
    expect(answer.status).toBe(200);
    const stored = sandbox.app.serviceContext.publicRecords.getTender(TENDER_A);
    expect(answer.text).toBe(JSON.stringify({ data: stored }));
    expect(sandbox.db.inTransaction).toBe(false);
    // No lock is held between requests: another connection writes at once.
    expect(() => other.prepare("UPDATE users SET name = name WHERE id = 'usr-carol'").run()).not.toThrow();
  });

  it('refuses a member removed from the organisation on the very next request, and lets them back in', async () => {
    expect((await readTender()).status).toBe(200);
    other
      .prepare("DELETE FROM memberships WHERE organisation_id = 'org-acme' AND user_id = 'usr-carol'")
      .run();
    expectProblem(await readTender(), 401, 'disabled_api_key');
    other
      .prepare(
        "INSERT INTO memberships (organisation_id, user_id, role) VALUES ('org-acme', 'usr-carol', 'member')",
      )
      .run();
    expect((await readTender()).status).toBe(200);
  });

  it('refuses on the very next request a plan without API access, then scopes without tenders:read', async () => {
    expect((await readTender()).status).toBe(200);
    other.prepare("UPDATE organisations SET plan = 'essentials' WHERE id = 'org-acme'").run();
    expectProblem(await readTender(), 403, 'plan_without_api_access');
    other.prepare("UPDATE organisations SET plan = 'enterprise' WHERE id = 'org-acme'").run();
    const scopes = other
      .prepare("SELECT scopes FROM api_keys WHERE user_id = 'usr-carol' AND organisation_id = 'org-acme'")
      .pluck()
      .get() as string;
    other
      .prepare(`UPDATE api_keys SET scopes = '["bookmarks:read"]' WHERE scopes = ? AND user_id = 'usr-carol'`)
      .run(scopes);
    expectProblem(await readTender(), 403, 'missing_scope');
    other.prepare("UPDATE api_keys SET scopes = ? WHERE user_id = 'usr-carol'").run(scopes);
    expect((await readTender()).status).toBe(200);
  });

  it('refuses a deleted key on the very next request, though its hash was remembered', async () => {
    expect((await readTender()).status).toBe(200);
    other.prepare("DELETE FROM api_keys WHERE user_id = 'usr-carol' AND organisation_id = 'org-acme'").run();
    expectProblem(await readTender(), 401, 'invalid_api_key');
    expectProblem(await readTender(), 401, 'invalid_api_key');
    // Every other check still runs: another key, unknown tender, a reference.
    expect((await sandbox.call('GET', `/v1/tenders/${TENDER_A}`, { key: KEYS.bobAdminAcme })).status).toBe(
      200,
    );
    expectProblem(
      await sandbox.call('GET', '/v1/tenders/no-such-tender', { key: KEYS.bobAdminAcme }),
      404,
      'not_found',
    );
    expect(sandbox.db.inTransaction).toBe(false);
  });
});

describe("a request's logger, made when first written to", () => {
  /** Lines a pino logger at `level` writes through a request logger and through its own child. */
  function linesAt(level: string, write: (logger: FastifyBaseLogger) => void) {
    const lines: { lazy: string[]; eager: string[] } = { lazy: [], eager: [] };
    const destination = (into: string[]) => ({ write: (line: string) => into.push(line) });
    const options = { level, timestamp: false, base: null };
    const lazyParent = pino(options, destination(lines.lazy));
    const eagerParent = pino(options, destination(lines.eager));
    const lazy = requestLoggerFactory.call(
      // The factory ignores Fastify's `this` and the raw request.
      undefined as never,
      lazyParent,
      { reqId: 'req-1' },
      {},
      undefined as never,
    );
    write(lazy);
    write(eagerParent.child({ reqId: 'req-1' }));
    return lines;
  }

  it('writes the very lines a pino child writes, at every level', () => {
    const boom = new Error('boom');
    for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']) {
      const lines = linesAt(level, (logger) => {
        logger.trace('t');
        logger.debug({ n: 1 }, 'd');
        logger.info({ req: { method: 'GET' } }, 'incoming request');
        logger.warn('w %s', 'x');
        logger.error({ err: boom }, 'request failed');
        logger.fatal('f');
      });
      expect(lines.lazy, level).toEqual(lines.eager);
    }
    const atWarn = linesAt('warn', (logger) => logger.error('e'));
    expect(atWarn.lazy).toHaveLength(1);
    expect(JSON.parse(atWarn.lazy[0] as string)).toMatchObject({ reqId: 'req-1', msg: 'e', level: 50 });
  });
});
