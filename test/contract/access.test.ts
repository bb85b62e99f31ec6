import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, TENDER_A } from '../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.ts';
import { expectProblem } from './contract.ts';

// Access checks that must fail closed, checked against the SQLite file itself through a second
// connection: what the service answers and what it stored must both be right.

let sandbox: TestSandbox;
let file: Database.Database;
beforeAll(async () => {
  sandbox = await startTestSandbox();
  file = new Database(sandbox.dbPath);
  file.pragma('busy_timeout = 5000');
});
afterAll(async () => {
  file.close();
  await sandbox.stop();
});

const stageIdsOf = (pipelineId: string): string[] =>
  file
    .prepare('SELECT id FROM stages WHERE pipeline_id = ? ORDER BY position')
    .all(pipelineId)
    .map((row) => (row as { id: string }).id);
const allStages = () => file.prepare('SELECT * FROM stages ORDER BY seq').all();
const allPipelines = () => file.prepare('SELECT * FROM pipelines ORDER BY id').all();

describe('a stage of another pipeline cannot be written through yours', () => {
  it('answers 404 and changes nothing, for a stage of a shared, a private and a foreign pipeline', async () => {
    // Carol owns pl-carol-private and may also edit pl-bob; Alice's pipeline is not shared with her.
    const alices = await sandbox.call('POST', '/v1/pipelines', {
      key: KEYS.aliceAcme,
      body: { name: 'Alice’s own', idempotencyKey: randomUUID(), stages: [{ name: 'Hers' }] },
    });
    const betas = await sandbox.call('POST', '/v1/pipelines', {
      key: KEYS.daveBeta,
      body: { name: 'Beta’s own', idempotencyKey: randomUUID(), stages: [{ name: 'Theirs' }] },
    });
    expect([alices.status, betas.status]).toEqual([201, 201]);
    const foreignStages = [
      ...stageIdsOf('pl-bob'),
      ...stageIdsOf(alices.body.data.id),
      ...stageIdsOf(betas.body.data.id),
    ];
    expect(foreignStages.length).toBe(4);
    const ownStages = stageIdsOf('pl-carol-private');
    expect(ownStages.length).toBeGreaterThan(0);

    const stagesBefore = allStages();
    const pipelinesBefore = allPipelines();
    expect(stagesBefore.length).toBeGreaterThan(0);
    for (const stageId of foreignStages) {
      const answer = await sandbox.call('PATCH', `/v1/pipelines/pl-carol-private/stages/${stageId}`, {
        key: KEYS.carolMemberAcme,
        body: { status: 'blocked', name: 'Overwritten', notes: 'not yours' },
      });
      expectProblem(answer, 404, 'not_found');
    }
    expect(allStages()).toEqual(stagesBefore);
    expect(allPipelines()).toEqual(pipelinesBefore);

    // The same request on her own stage is accepted, so the 404s above were about the stage.
    const own = await sandbox.call('PATCH', `/v1/pipelines/pl-carol-private/stages/${ownStages[0]}`, {
      key: KEYS.carolMemberAcme,
      body: { notes: 'mine' },
    });
    expect(own.status).toBe(200);
    expect(file.prepare('SELECT notes FROM stages WHERE id = ?').get(ownStages[0])).toEqual({
      notes: 'mine',
    });
  });
});

describe('a membership changed while the service runs takes effect on the next request', () => {
  it('answers 401 disabled_api_key once the creator is removed, and serves again once restored', async () => {
    const read = () => sandbox.call('GET', '/v1/tenders?limit=1', { key: KEYS.carolMemberAcme });
    expect((await read()).status).toBe(200);
    const removed = file
      .prepare("DELETE FROM memberships WHERE organisation_id = 'org-acme' AND user_id = 'usr-carol'")
      .run();
    expect(removed.changes).toBe(1);
    expectProblem(await read(), 401, 'disabled_api_key');
    file
      .prepare(
        "INSERT INTO memberships (organisation_id, user_id, role) VALUES ('org-acme', 'usr-carol', 'member')",
      )
      .run();
    expect((await read()).status).toBe(200);
  });

  it('answers 403 forbidden to an admin demoted to viewer, on a comment and a pipeline write, storing nothing', async () => {
    const comment = (body: string) =>
      sandbox.call('POST', '/v1/comments', {
        key: KEYS.bobAdminAcme,
        body: { entityType: 'tender', entityId: TENDER_A, body, idempotencyKey: randomUUID() },
      });
    const bobsComments = () =>
      (file.prepare("SELECT count(*) AS n FROM comments WHERE author_id = 'usr-bob'").get() as { n: number })
        .n;
    const first = await comment('Before the change');
    expect(first.status).toBe(201);
    const countBefore = bobsComments();
    const pipelineBefore = file.prepare("SELECT * FROM pipelines WHERE id = 'pl-bob'").get();

    const demoted = file
      .prepare(
        "UPDATE memberships SET role = 'viewer' WHERE organisation_id = 'org-acme' AND user_id = 'usr-bob'",
      )
      .run();
    expect(demoted.changes).toBe(1);
    expectProblem(await comment('After the change'), 403, 'forbidden');
    expectProblem(
      await sandbox.call('DELETE', `/v1/comments/${first.body.data.id}`, { key: KEYS.bobAdminAcme }),
      403,
      'forbidden',
    );
    expectProblem(
      await sandbox.call('PATCH', '/v1/pipelines/pl-bob', {
        key: KEYS.bobAdminAcme,
        body: { name: 'Renamed' },
      }),
      403,
      'forbidden',
    );
    expect(bobsComments()).toBe(countBefore);
    expect(file.prepare('SELECT deleted_at FROM comments WHERE id = ?').get(first.body.data.id)).toEqual({
      deleted_at: null,
    });
    expect(file.prepare("SELECT * FROM pipelines WHERE id = 'pl-bob'").get()).toEqual(pipelineBefore);

    file
      .prepare(
        "UPDATE memberships SET role = 'admin' WHERE organisation_id = 'org-acme' AND user_id = 'usr-bob'",
      )
      .run();
    expect((await comment('Admin again')).status).toBe(201);
  });
});
