import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServiceApp } from '../../../src/service/http/app.ts';
import { type RunningSandbox, startSandbox } from '../../../src/service/sandbox.ts';
import { openDatabase } from '../../../src/service/store/database.ts';
import { SLOW_CLIENT_LIMITS } from '../../../src/shared/slow-clients.ts';
import { KEYS, TENDER_A, testFixture } from '../../support/fixture.ts';
import { callApi } from '../../support/sandbox.ts';
import {
  realRequestsWhileSlow,
  startSlowClients,
  TEST_SLOW_CLIENT_LIMITS,
  tricklingBody,
  tricklingHeaders,
} from '../../support/slow-clients.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-slow-clients-'));
let sandbox: RunningSandbox;
let port: number;

beforeAll(async () => {
  const fixture = join(dir, 'fixture.json');
  writeFileSync(fixture, JSON.stringify(testFixture()));
  sandbox = await startSandbox({
    db: join(dir, 'service.db'),
    port: 0,
    fixture,
    demo: 300,
    slowClientLimits: TEST_SLOW_CLIENT_LIMITS,
  });
  port = Number(new URL(sandbox.baseUrl).port);
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

const KEY = KEYS.aliceAcme;

describe('the service with clients that send a byte at a time', () => {
  it('closes 200 such connections, headers or body trickling, while real requests are answered', async () => {
    const slow = startSlowClients(
      port,
      [
        ...Array.from({ length: 100 }, () => tricklingHeaders('/v1/tenders')),
        // Past the key check, so that the body is read: a trickle the route would wait for.
        ...Array.from({ length: 100 }, () =>
          tricklingBody('/v1/comments', { Authorization: `Bearer ${KEY}` }),
        ),
      ],
      // Far more ticks than the limits let through: a connection still open after them outlasted.
      { tickMs: 200, maxTicks: 50 },
    );
    const { run, real } = await realRequestsWhileSlow(slow, [
      async () => (await callApi(sandbox.baseUrl, 'GET', '/v1/tenders?limit=1', { key: KEY })).status,
      async () =>
        (
          await callApi(sandbox.baseUrl, 'POST', '/v1/comments', {
            key: KEY,
            body: { entityType: 'tender', entityId: TENDER_A, body: 'on time', idempotencyKey: randomUUID() },
          })
        ).status,
    ]);

    expect({
      closedByServer: run.closedByServer,
      outlasted: run.outlasted,
      neverConnected: run.neverConnected,
    }).toEqual({
      closedByServer: 200,
      outlasted: 0,
      neverConnected: 0,
    });
    // Each was told why, as a problem answer, before its connection was closed.
    const told = run.answers.filter((answer) => answer.includes('must arrive in full within the server'));
    expect(told.length).toBe(200);
    // Real requests were answered all along, including ones sent while all 200 slow connections were held.
    expect(real.length).toBeGreaterThan(0);
    expect(real.filter((answer) => answer.status !== 200 && answer.status !== 201)).toEqual([]);
    expect(real.some((answer) => answer.slowOpen === 200)).toBe(true);
    const after = await callApi(sandbox.baseUrl, 'GET', '/v1/tenders?limit=1', { key: KEY });
    expect(after.status).toBe(200);
  });

  it('has the limits without being told them: Fastify alone would never cut a request', async () => {
    const db = openDatabase(':memory:');
    const app = await buildServiceApp({ db });
    try {
      expect({ headers: app.server.headersTimeout, request: app.server.requestTimeout }).toEqual({
        headers: SLOW_CLIENT_LIMITS.headersMs,
        request: SLOW_CLIENT_LIMITS.requestMs,
      });
    } finally {
      await app.close();
      db.close();
    }
  });
});
