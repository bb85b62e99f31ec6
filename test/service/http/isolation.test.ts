import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, TENDER_A } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.stop());

describe('organisation A sees nothing of organisation B', () => {
  it('comments: B’s thread is empty for A, and A cannot delete B’s comment (404)', async () => {
    const byBeta = await sandbox.call('POST', '/v1/comments', {
      key: KEYS.daveBeta,
      body: { entityType: 'tender', entityId: TENDER_A, body: 'Beta only', idempotencyKey: randomUUID() },
    });
    expect(byBeta.status).toBe(201);
    const byAcme = await sandbox.call('POST', '/v1/comments', {
      key: KEYS.aliceAcme,
      body: { entityType: 'tender', entityId: TENDER_A, body: 'Acme only', idempotencyKey: randomUUID() },
    });
    expect(byAcme.status).toBe(201);
    const fromAcme = await sandbox.call(
      'GET',
      `/v1/comments?entityType=tender&entityId=${TENDER_A}&limit=100`,
      {
        key: KEYS.aliceAcme,
      },
    );
    // A's own comment is there, so the thread is not empty for some other reason.
    const bodies = fromAcme.body.data.map((comment: { body: string }) => comment.body);
    expect(bodies).toContain('Acme only');
    expect(bodies).not.toContain('Beta only');
    const deleteFromAcme = await sandbox.call('DELETE', `/v1/comments/${byBeta.body.data.id}`, {
      key: KEYS.aliceAcme,
    });
    expect(deleteFromAcme.status).toBe(404);
    const replyFromAcme = await sandbox.call('POST', '/v1/comments', {
      key: KEYS.aliceAcme,
      body: {
        entityType: 'tender',
        entityId: TENDER_A,
        body: 'x',
        parentId: byBeta.body.data.id,
        idempotencyKey: randomUUID(),
      },
    });
    expect(replyFromAcme.status).toBe(400);
  });

  it('pipelines: A’s keys get 404 on B’s pipeline even for its own user (Alice, who is in both)', async () => {
    for (const key of [KEYS.aliceAcme, KEYS.bobAdminAcme]) {
      expect((await sandbox.call('GET', '/v1/pipelines/pl-beta', { key })).status).toBe(404);
      expect(
        (await sandbox.call('PATCH', '/v1/pipelines/pl-beta', { key, body: { name: 'x' } })).status,
      ).toBe(404);
      expect(
        (await sandbox.call('POST', '/v1/pipelines/pl-beta/archive', { key, body: { archived: true } }))
          .status,
      ).toBe(404);
    }
    const betaOwn = await sandbox.call('POST', '/v1/pipelines', {
      key: KEYS.aliceBeta,
      body: { name: 'Alice’s Beta bid', idempotencyKey: randomUUID() },
    });
    expect(betaOwn.status).toBe(201);
    const aliceInBeta = await sandbox.call('GET', '/v1/pipelines?archived=all&limit=100', {
      key: KEYS.aliceBeta,
    });
    const ids = aliceInBeta.body.data.map((pipeline: { id: string }) => pipeline.id);
    expect(ids).toContain(betaOwn.body.data.id);
    expect(ids).not.toContain('pl-bob');
  });

  it('keys stay bound to their organisation: Alice’s Beta key creates in Beta', async () => {
    const created = await sandbox.call('POST', '/v1/pipelines', {
      key: KEYS.aliceBeta,
      body: { name: 'Alice in Beta', idempotencyKey: randomUUID() },
    });
    expect(created.status).toBe(201);
    expect(
      (await sandbox.call('GET', `/v1/pipelines/${created.body.data.id}`, { key: KEYS.aliceAcme })).status,
    ).toBe(404);
    expect(
      (await sandbox.call('GET', `/v1/pipelines/${created.body.data.id}`, { key: KEYS.aliceBeta })).status,
    ).toBe(200);
  });

  it('idempotency keys are per organisation: the same key in A and B makes two records', async () => {
    const idempotencyKey = randomUUID();
    const body = { entityType: 'tender', entityId: TENDER_A, body: 'Same key twice', idempotencyKey };
    expect((await sandbox.call('POST', '/v1/comments', { key: KEYS.aliceAcme, body })).status).toBe(201);
    expect((await sandbox.call('POST', '/v1/comments', { key: KEYS.aliceBeta, body })).status).toBe(201);
  });
});
