import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serveCli } from '../support/cli.ts';
import { KEYS, TENDER_A, testFixture } from '../support/fixture.ts';
import { callApi } from '../support/sandbox.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-serve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tenderbot sandbox serve', () => {
  it('fills an empty database with demo data and prints demo keys that work', async () => {
    const server = await serveCli(['--db', join(dir, 'demo.db'), '--port', '0', '--demo', '300']);
    try {
      const keys = [...server.output.matchAll(/(pis_[A-Za-z0-9_-]{43})/g)].map((match) => match[1] as string);
      expect(keys).toHaveLength(4);
      expect(server.output).toContain('Olivia Owner (owner)');
      const tenders = await callApi(server.baseUrl, 'GET', '/v1/tenders?limit=1', { key: keys[0] });
      expect(tenders.status).toBe(200);
      expect(tenders.body.pagination.total).toBe(300);
      const saved = await callApi(server.baseUrl, 'GET', '/v1/saved-searches', { key: keys[0] });
      expect(saved.body.data.length).toBeGreaterThan(0);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('loses nothing across a restart on the same database', async () => {
    const db = join(dir, 'restart.db');
    const fixture = join(dir, 'fixture.json');
    writeFileSync(fixture, JSON.stringify(testFixture()));
    const args = ['--db', db, '--port', '0', '--demo', '700', '--fixture', fixture];
    const key = KEYS.carolMemberAcme;

    const first = await serveCli(args);
    let pipelineId: string;
    let commentId: string;
    try {
      const pipeline = await callApi(first.baseUrl, 'POST', '/v1/pipelines', {
        key,
        body: { name: 'Survives restarts', idempotencyKey: randomUUID(), stages: [{ name: 'One' }] },
      });
      pipelineId = pipeline.body.data.id;
      await callApi(
        first.baseUrl,
        'PATCH',
        `/v1/pipelines/${pipelineId}/stages/${pipeline.body.data.stages[0].id}`,
        {
          key,
          body: { status: 'blocked', notes: 'Waiting for references' },
        },
      );
      await callApi(first.baseUrl, 'POST', `/v1/pipelines/${pipelineId}/archive`, {
        key,
        body: { archived: true },
      });
      const comment = await callApi(first.baseUrl, 'POST', '/v1/comments', {
        key,
        body: { entityType: 'tender', entityId: TENDER_A, body: 'Remember me', idempotencyKey: randomUUID() },
      });
      commentId = comment.body.data.id;
      await callApi(first.baseUrl, 'DELETE', `/v1/comments/${commentId}`, { key });
      await callApi(first.baseUrl, 'POST', `/v1/bookmarks/${TENDER_A}`, { key: KEYS.aliceAcme });
      await callApi(first.baseUrl, 'PATCH', '/v1/pipelines/pl-bob', {
        key,
        body: { name: 'Renamed by Carol' },
      });
    } finally {
      expect(await first.stop()).toBe(0);
    }

    const second = await serveCli(args);
    try {
      const pipeline = await callApi(second.baseUrl, 'GET', `/v1/pipelines/${pipelineId}`, { key });
      expect(pipeline.body.data).toMatchObject({ name: 'Survives restarts', archived: true });
      expect(pipeline.body.data.stages[0]).toMatchObject({
        status: 'blocked',
        notes: 'Waiting for references',
      });
      const thread = await callApi(
        second.baseUrl,
        'GET',
        `/v1/comments?entityType=tender&entityId=${TENDER_A}`,
        { key },
      );
      expect(thread.body.data.find((comment: { id: string }) => comment.id === commentId)).toMatchObject({
        body: null,
      });
      const bookmarks = await callApi(second.baseUrl, 'GET', '/v1/bookmarks', { key: KEYS.aliceAcme });
      expect(bookmarks.body.data.map((bookmark: { tenderId: string }) => bookmark.tenderId)).toEqual([
        TENDER_A,
      ]);
      // The fixture is loaded again, but does not overwrite what changed through the API.
      const fixturePipeline = await callApi(second.baseUrl, 'GET', '/v1/pipelines/pl-bob', { key });
      expect(fixturePipeline.body.data.name).toBe('Renamed by Carol');
      const tenders = await callApi(second.baseUrl, 'GET', '/v1/tenders?limit=1', { key });
      expect(tenders.body.pagination.total).toBe(700);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });

  it('refuses a malformed fixture with a sentence naming the problem', async () => {
    const fixture = join(dir, 'bad-fixture.json');
    writeFileSync(fixture, JSON.stringify({ organisations: [{ id: 'x', name: 'X', plan: 'gold' }] }));
    await expect(
      serveCli(['--db', join(dir, 'bad.db'), '--port', '0', '--demo', '50', '--fixture', fixture]),
    ).rejects.toThrow(/organisations\.0\.plan/);
  });
});
