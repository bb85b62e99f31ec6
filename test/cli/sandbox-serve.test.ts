import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ocdsFilesIn, openSandbox } from '../../src/service/sandbox.ts';
import { lastImport, publicRecordsSource } from '../../src/service/store/public-records-meta.ts';
import { PublicRecordsReader } from '../../src/service/store/public-records-reader.ts';
import { runCli, serveCli } from '../support/cli.ts';
import { KEYS, TENDER_A, testFixture } from '../support/fixture.ts';
import { OCDS_DIR } from '../support/ocds-data.ts';
import { TENDERBOT_BIN } from '../support/process.ts';
import { callApi } from '../support/sandbox.ts';

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((listening) => probe.listen(0, '127.0.0.1', listening));
  const { port } = probe.address() as AddressInfo;
  await new Promise((closed) => probe.close(closed));
  return port;
}

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

  it('stops cleanly on a SIGTERM sent the moment it says it is listening', async () => {
    // The signal listener exists before "listening" is printed; it used to be added just after,
    // and a signal in between killed the process (2 starts in 8 here).
    const codes: (number | null)[] = [];
    for (let start = 0; start < 5; start++) {
      const server = await serveCli(['--db', join(dir, 'quick-stop.db'), '--port', '0', '--demo', '50']);
      codes.push(await server.stop());
    }
    expect(codes).toEqual([0, 0, 0, 0, 0]);
  });

  it('goes on serving when the reader of its output has gone', async () => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [TENDERBOT_BIN, 'sandbox', 'serve', '--db', ':memory:', '--port', String(port), '--demo', '50'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    // Both readers gone before it prints its keys and its address.
    child.stdout.destroy();
    child.stderr.destroy();
    try {
      await expect
        .poll(
          async () =>
            (await callApi(`http://127.0.0.1:${port}`, 'GET', '/v1/openapi.json').catch(() => null))?.status,
          {
            timeout: 30_000,
            interval: 200,
          },
        )
        .toBe(200);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGTERM');
    }
    expect(await new Promise((exited) => child.once('exit', exited))).toBe(0);
  });

  it('refuses a malformed fixture with a sentence naming the problem', async () => {
    const fixture = join(dir, 'bad-fixture.json');
    writeFileSync(fixture, JSON.stringify({ organisations: [{ id: 'x', name: 'X', plan: 'gold' }] }));
    await expect(
      serveCli(['--db', join(dir, 'bad.db'), '--port', '0', '--demo', '50', '--fixture', fixture]),
    ).rejects.toThrow(/organisations\.0\.plan/);
  });

  it('never mixes real tenders into demo data: serve --import and sandbox import are refused with a sentence', async () => {
    const db = join(dir, 'demo-then-import.db');
    const frameworks = join(OCDS_DIR, 'uk-ccs-frameworks.releases.jsonl.gz');
    const demo = await serveCli(['--db', db, '--port', '0', '--demo', '50']);
    const key = /(pis_[A-Za-z0-9_-]{43})/.exec(demo.output)?.[1];
    expect(await demo.stop()).toBe(0);

    await expect(serveCli(['--db', db, '--port', '0', '--import', frameworks])).rejects.toThrow(
      /exited with 1:\ntenderbot: .*holds generated demo tenders; importing real files into it would mix the two\. Import into a new database/,
    );
    const imported = await runCli(['sandbox', 'import', frameworks, '--db', db]);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toMatch(/^tenderbot: .*holds generated demo tenders/);
    expect(imported.stderr).not.toMatch(/\n\s+at /);

    const again = await serveCli(['--db', db, '--port', '0']);
    try {
      const tenders = await callApi(again.baseUrl, 'GET', '/v1/tenders?limit=100', { key });
      expect(tenders.body.pagination.total).toBe(50);
      expect(tenders.body.data.length).toBeGreaterThan(0);
      for (const tender of tenders.body.data) expect(tender.source.name).toBe('Tenderbot demo data');
    } finally {
      expect(await again.stop()).toBe(0);
    }
  });

  it('serves an imported database as it is: no demo tenders are added to it', async () => {
    const db = join(dir, 'imported.db');
    const frameworks = join(OCDS_DIR, 'uk-ccs-frameworks.releases.jsonl.gz');
    expect((await runCli(['sandbox', 'import', frameworks, '--db', db])).code).toBe(0);
    const server = await serveCli(['--db', db, '--port', '0', '--demo', '50']);
    try {
      const key = /(pis_[A-Za-z0-9_-]{43})/.exec(server.output)?.[1];
      const tenders = await callApi(server.baseUrl, 'GET', '/v1/tenders?limit=100', { key });
      expect(tenders.body.pagination.total).toBe(127);
      expect(tenders.body.data.length).toBeGreaterThan(0);
      for (const tender of tenders.body.data) expect(tender.source.name).toBe('Crown Commercial Service');
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});

describe('openSandbox, for a workbench on real data', () => {
  it('imports into a fresh database once, records the files, and skips them on the next start', async () => {
    const db = join(dir, 'real-data.db');
    const files = ocdsFilesIn(OCDS_DIR).filter((file) => file.includes('uk-'));
    expect(files).toHaveLength(2);
    let progress = 0;
    const first = await openSandbox({
      db,
      imports: files,
      skipFinishedImport: true,
      onImportProgress: () => progress++,
    });
    try {
      expect(progress).toBeGreaterThan(0);
      expect(publicRecordsSource(first)).toBe('imported');
      expect(lastImport(first)).toMatchObject({ state: 'finished', files });
      expect(new PublicRecordsReader(first).counts().tenders).toBe(370 + 127);
    } finally {
      first.close();
    }
    progress = 0;
    const second = await openSandbox({
      db,
      imports: files,
      skipFinishedImport: true,
      onImportProgress: () => progress++,
    });
    try {
      expect(progress).toBe(0);
      expect(new PublicRecordsReader(second).counts().tenders).toBe(370 + 127);
    } finally {
      second.close();
    }
    // Without imports, the same database is served as it is, never topped up with demo tenders.
    const third = await openSandbox({ db, demo: 50 });
    try {
      expect(new PublicRecordsReader(third).counts().tenders).toBe(370 + 127);
    } finally {
      third.close();
    }
  });
});
