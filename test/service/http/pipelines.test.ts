import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pipeline, PipelineListItem } from '../../../src/contract/schemas.ts';
import { nonEmpty } from '../../contract/contract.ts';
import { KEYS, TENDER_A } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.stop());

const call = (method: string, path: string, key: string, body?: unknown) =>
  sandbox.call(method, path, { key, body });

async function createPipeline(key: string, extra: Record<string, unknown> = {}) {
  const answer = await call('POST', '/v1/pipelines', key, {
    name: 'Pipeline',
    idempotencyKey: randomUUID(),
    ...extra,
  });
  expect(answer.status).toBe(201);
  return answer.body.data as { id: string; stages: { id: string }[] };
}

describe('creating pipelines', () => {
  it('creates a draft owned by the key creator with pending stages in order', async () => {
    const body = {
      name: 'Hospital cleaning',
      idempotencyKey: randomUUID(),
      tenderId: TENDER_A,
      summary: 'Go for it',
      targetSubmissionDate: '2026-12-01',
      stages: [{ name: 'Qualify', description: 'Check fit', expectedDurationDays: 3 }, { name: 'Write' }],
    };
    const created = await call('POST', '/v1/pipelines', KEYS.carolMemberAcme, body);
    expect(created.status).toBe(201);
    const pipeline = Pipeline.parse(created.body.data);
    expect(pipeline).toMatchObject({
      name: 'Hospital cleaning',
      status: 'draft',
      tenderId: TENDER_A,
      summary: 'Go for it',
      targetSubmissionDate: '2026-12-01',
      owner: { id: 'usr-carol', name: 'Carol Member' },
      archived: false,
    });
    expect(pipeline.stages.map((stage) => [stage.position, stage.name, stage.status])).toEqual([
      [1, 'Qualify', 'pending'],
      [2, 'Write', 'pending'],
    ]);
    expect(pipeline.stages[0]).toMatchObject({
      description: 'Check fit',
      expectedDurationDays: 3,
      notes: null,
      dueDate: null,
    });

    const retried = await call('POST', '/v1/pipelines', KEYS.carolMemberAcme, body);
    expect(retried.status).toBe(200);
    expect(retried.body.data.id).toBe(pipeline.id);
    const conflict = await call('POST', '/v1/pipelines', KEYS.carolMemberAcme, { ...body, name: 'Other' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('idempotency_conflict');
  });

  it('refuses an unknown tenderId with 400 naming it, and creates nothing', async () => {
    const idempotencyKey = randomUUID();
    const answer = await call('POST', '/v1/pipelines', KEYS.carolMemberAcme, {
      name: 'X',
      idempotencyKey,
      tenderId: 'nope',
    });
    expect(answer.status).toBe(400);
    expect(answer.body.errors).toEqual([{ field: 'tenderId', message: expect.any(String) }]);
    // The key was not consumed: the same key with a good body creates.
    const fixed = await call('POST', '/v1/pipelines', KEYS.carolMemberAcme, { name: 'X', idempotencyKey });
    expect(fixed.status).toBe(201);
  });

  it('forbids viewers to create', async () => {
    const answer = await call('POST', '/v1/pipelines', KEYS.victorViewerAcme, {
      name: 'X',
      idempotencyKey: randomUUID(),
    });
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe('forbidden');
  });
});

describe('who sees a pipeline', () => {
  it('lists only pipelines the caller owns or shares, newest first, with stage counts', async () => {
    const mine = await createPipeline(KEYS.aliceAcme, { name: 'Alice newest', stages: [{ name: 'A' }] });
    const list = await call('GET', '/v1/pipelines?limit=100', KEYS.aliceAcme);
    const ids = list.body.data.map((pipeline: { id: string }) => pipeline.id);
    expect(ids[0]).toBe(mine.id);
    expect(ids).toContain('pl-bob');
    expect(ids).not.toContain('pl-carol-private');
    for (const item of nonEmpty(list.body.data)) expect(PipelineListItem.parse(item)).toEqual(item);
    expect(list.body.data[0].stageCounts).toEqual({ pending: 1, in_progress: 0, blocked: 0, completed: 0 });
    expect(list.body.data[0]).not.toHaveProperty('stages');
  });

  it('gives an admin no access from the role alone: 404 on a pipeline not shared with them', async () => {
    expect((await call('GET', '/v1/pipelines/pl-carol-private', KEYS.bobAdminAcme)).status).toBe(404);
    expect(
      (await call('PATCH', '/v1/pipelines/pl-carol-private', KEYS.bobAdminAcme, { name: 'Mine now' })).status,
    ).toBe(404);
    expect((await call('GET', '/v1/pipelines/pl-carol-private', KEYS.aliceAcme)).status).toBe(404);
    expect((await call('GET', '/v1/pipelines/pl-carol-private', KEYS.carolMemberAcme)).status).toBe(200);
  });

  it('filters by words, status and archive state', async () => {
    await createPipeline(KEYS.aliceAcme, { name: 'Roadworks in Kent', summary: 'resurfacing' });
    const byWord = await call('GET', '/v1/pipelines?q=resurf', KEYS.aliceAcme);
    expect(byWord.body.data.map((pipeline: { name: string }) => pipeline.name)).toEqual([
      'Roadworks in Kent',
    ]);
    const byPrefix = await call('GET', '/v1/pipelines?q=road%20ken', KEYS.aliceAcme);
    expect(byPrefix.body.pagination.total).toBe(1);
    const drafts = await call('GET', '/v1/pipelines?status=draft&limit=100', KEYS.aliceAcme);
    expect(
      nonEmpty(drafts.body.data).every((pipeline: { status: string }) => pipeline.status === 'draft'),
    ).toBe(true);
  });
});

describe('changing pipelines', () => {
  it('updates fields, clears optional ones with null, and answers the updated pipeline', async () => {
    const pipeline = await createPipeline(KEYS.carolMemberAcme, {
      summary: 'x',
      targetSubmissionDate: '2026-12-24',
    });
    const answer = await call('PATCH', `/v1/pipelines/${pipeline.id}`, KEYS.carolMemberAcme, {
      status: 'bidding',
      summary: null,
      targetSubmissionDate: null,
      name: 'Renamed',
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      status: 'bidding',
      summary: null,
      targetSubmissionDate: null,
      name: 'Renamed',
    });
    const read = await call('GET', `/v1/pipelines/${pipeline.id}`, KEYS.carolMemberAcme);
    expect(read.body.data).toEqual(answer.body.data);
  });

  it('answers 400 empty_update for a PATCH with none of its fields', async () => {
    const answer = await call('PATCH', '/v1/pipelines/pl-bob', KEYS.bobAdminAcme, {});
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('empty_update');
  });

  it('answers 409 for status submitted, whoever asks, and changes nothing', async () => {
    for (const key of [KEYS.bobAdminAcme, KEYS.aliceAcme]) {
      const answer = await call('PATCH', '/v1/pipelines/pl-bob', key, {
        status: 'submitted',
        name: 'Sneaky',
      });
      expect(answer.status).toBe(409);
      expect(answer.body.code).toBe('pipeline_submission_not_allowed');
    }
    const read = await call('GET', '/v1/pipelines/pl-bob', KEYS.bobAdminAcme);
    expect(read.body.data.status).toBe('draft');
    expect(read.body.data.name).not.toBe('Sneaky');
  });

  it('lets a user with view permission read but not write (403), and an editor write', async () => {
    expect((await call('GET', '/v1/pipelines/pl-bob', KEYS.aliceAcme)).status).toBe(200);
    const denied = await call('PATCH', '/v1/pipelines/pl-bob', KEYS.aliceAcme, { name: 'Alice was here' });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('forbidden');
    expect(
      (await call('POST', '/v1/pipelines/pl-bob/archive', KEYS.aliceAcme, { archived: true })).status,
    ).toBe(403);
    // Victor has edit permission on the pipeline but is a viewer of the organisation.
    expect(
      (await call('PATCH', '/v1/pipelines/pl-bob', KEYS.victorViewerAcme, { name: 'Victor' })).status,
    ).toBe(403);
    const edited = await call('PATCH', '/v1/pipelines/pl-bob', KEYS.carolMemberAcme, {
      summary: 'Carol edits',
    });
    expect(edited.status).toBe(200);
    expect(edited.body.data.summary).toBe('Carol edits');
  });

  it('archives and restores without touching the status, idempotently', async () => {
    const pipeline = await createPipeline(KEYS.carolMemberAcme);
    await call('PATCH', `/v1/pipelines/${pipeline.id}`, KEYS.carolMemberAcme, { status: 'qualifying' });
    for (let attempt = 0; attempt < 2; attempt++) {
      const archived = await call('POST', `/v1/pipelines/${pipeline.id}/archive`, KEYS.carolMemberAcme, {
        archived: true,
      });
      expect(archived.status).toBe(200);
      expect(archived.body.data).toMatchObject({ archived: true, status: 'qualifying' });
    }
    const active = await call('GET', '/v1/pipelines?limit=100', KEYS.carolMemberAcme);
    expect(nonEmpty(active.body.data).map((p: { id: string }) => p.id)).not.toContain(pipeline.id);
    const archivedList = await call('GET', '/v1/pipelines?archived=archived&limit=100', KEYS.carolMemberAcme);
    expect(archivedList.body.data.map((p: { id: string }) => p.id)).toEqual([pipeline.id]);
    const all = await call('GET', '/v1/pipelines?archived=all&limit=100', KEYS.carolMemberAcme);
    expect(all.body.data.map((p: { id: string }) => p.id)).toContain(pipeline.id);
    const restored = await call('POST', `/v1/pipelines/${pipeline.id}/archive`, KEYS.carolMemberAcme, {
      archived: false,
    });
    expect(restored.body.data).toMatchObject({ archived: false, status: 'qualifying' });
  });
});

describe('stages', () => {
  it('moves a stage through any status and sets notes and a due date', async () => {
    const pipeline = await createPipeline(KEYS.carolMemberAcme, { stages: [{ name: 'Qualify' }] });
    const stageId = pipeline.stages[0]?.id;
    for (const status of ['completed', 'blocked', 'pending', 'in_progress']) {
      const answer = await call(
        'PATCH',
        `/v1/pipelines/${pipeline.id}/stages/${stageId}`,
        KEYS.carolMemberAcme,
        { status },
      );
      expect(answer.status).toBe(200);
      expect(answer.body.data.status).toBe(status);
    }
    const noted = await call(
      'PATCH',
      `/v1/pipelines/${pipeline.id}/stages/${stageId}`,
      KEYS.carolMemberAcme,
      {
        notes: 'Call the buyer',
        dueDate: '2026-12-05',
        name: 'Qualify fast',
      },
    );
    expect(noted.body.data).toMatchObject({
      notes: 'Call the buyer',
      dueDate: '2026-12-05',
      name: 'Qualify fast',
      position: 1,
    });
    const list = await call('GET', '/v1/pipelines?limit=100', KEYS.carolMemberAcme);
    const item = list.body.data.find((p: { id: string }) => p.id === pipeline.id);
    expect(item.stageCounts).toEqual({ pending: 0, in_progress: 1, blocked: 0, completed: 0 });
  });

  it('answers 400 for a bad status or date, empty_update for nothing, 404 for an unknown stage', async () => {
    const pipeline = await createPipeline(KEYS.carolMemberAcme, { stages: [{ name: 'Qualify' }] });
    const path = `/v1/pipelines/${pipeline.id}/stages/${pipeline.stages[0]?.id}`;
    const badStatus = await call('PATCH', path, KEYS.carolMemberAcme, { status: 'done' });
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.errors).toEqual([expect.objectContaining({ field: 'status' })]);
    const badDate = await call('PATCH', path, KEYS.carolMemberAcme, { dueDate: '2026-02-30' });
    expect(badDate.body.errors).toEqual([expect.objectContaining({ field: 'dueDate' })]);
    expect((await call('PATCH', path, KEYS.carolMemberAcme, {})).body.code).toBe('empty_update');
    expect(
      (await call('PATCH', `/v1/pipelines/${pipeline.id}/stages/nope`, KEYS.carolMemberAcme, { notes: 'x' }))
        .status,
    ).toBe(404);
    expect((await call('PATCH', path, KEYS.aliceAcme, { notes: 'x' })).status).toBe(404);
  });
});
