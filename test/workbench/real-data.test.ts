import { createReadStream, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGunzip } from 'node:zlib';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SOURCE_NAME } from '../../src/service/demo/demo-generator.ts';
import { lastImport } from '../../src/service/store/public-records-meta.ts';
import { startTenderbot } from '../support/process.ts';
import { sharedPath } from '../support/shared.ts';
import { startWorkbenchProcess, type WorkbenchProcess } from '../support/workbench.ts';

// The README's real-data command, as a person runs it: `npm start -- --real-data`.
const ocdsFolder = sharedPath('data', 'ocds');
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-real-data-'));
let workbench: WorkbenchProcess;

beforeAll(async () => {
  workbench = await startWorkbenchProcess(dir, ['--real-data', '--ocds', ocdsFolder]);
});

afterAll(async () => {
  await workbench?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface TenderPage {
  data: { id: string; title: string; source: { name: string } }[];
  pagination: { total: number; hasMore: boolean };
}

async function serviceGet<T>(path: string): Promise<T> {
  for (;;) {
    const response = await request(`${workbench.serviceUrl}${path}`, {
      headers: { authorization: `Bearer ${workbench.keyToConnect}` },
    });
    // The workbench's keys allow 100 requests a second; paging every tender may meet that.
    if (response.statusCode === 429) {
      await response.body.dump();
      await sleep(1000);
      continue;
    }
    expect(response.statusCode).toBe(200);
    return (await response.body.json()) as T;
  }
}

function importRecordOf(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    return lastImport(db);
  } finally {
    db.close();
  }
}

/** Counted from the files themselves, not by the importer: one tender per distinct ocid. */
async function distinctOcids(): Promise<number> {
  const ocids = new Set<string>();
  const files = readdirSync(ocdsFolder).filter((name) => name.endsWith('.jsonl.gz'));
  expect(files.length).toBeGreaterThan(0);
  for (const name of files) {
    const lines = createInterface({ input: createReadStream(join(ocdsFolder, name)).pipe(createGunzip()) });
    for await (const line of lines) if (line.trim()) ocids.add((JSON.parse(line) as { ocid: string }).ocid);
  }
  return ocids.size;
}

describe('npm start -- --real-data', () => {
  it('serves the real tenders only: every ocid of the files, and no generated tender', async () => {
    const expected = await distinctOcids();
    expect(expected).toBeGreaterThan(25_000);
    const seen = new Set<string>();
    const sources = new Set<string>();
    for (let offset = 0; ; offset += 100) {
      const page = await serviceGet<TenderPage>(`/v1/tenders?limit=100&offset=${offset}`);
      expect(page.pagination.total).toBe(expected);
      for (const tender of page.data) {
        seen.add(tender.id);
        sources.add(tender.source.name);
      }
      if (!page.pagination.hasMore) break;
    }
    expect(seen.size).toBe(expected);
    expect([...seen].filter((id) => id.startsWith('ocds-tbdemo-'))).toEqual([]);
    expect(sources.size).toBeGreaterThan(1);
    expect(sources.has(DEMO_SOURCE_NAME)).toBe(false);
  });

  it('answers /tender search in the workbench with real tenders', async () => {
    const origin = workbench.url.replace(/\/$/, '');
    const command = await request(`${origin}/workbench/command`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'U0MEMBER', channel: 'C0BIDS', text: '/tender search hospital' }),
    });
    expect(command.statusCode).toBe(200);
    await command.body.dump();
    const { data } = await serviceGet<TenderPage>('/v1/tenders?q=hospital&limit=1');
    expect(data.length).toBe(1);
    const newest = data[0]?.id ?? '';
    for (let attempt = 0; attempt < 100; attempt++) {
      const state = await request(`${origin}/workbench/state?user=U0MEMBER&channel=C0BIDS`);
      const { messages } = (await state.body.json()) as { messages: { text: string; blocks: unknown }[] };
      const answer = messages.find((message) => message.text.includes('hospital'));
      if (answer) {
        // The first card is the newest real tender matching the word.
        expect(JSON.stringify(answer.blocks)).toContain(`"block_id":"tender:${newest}"`);
        return;
      }
      await sleep(100);
    }
    throw new Error('no answer to /tender search hospital within 10 s');
  });

  it('imports once: a second start on the same folder serves the same data without importing again', async () => {
    const firstImport = importRecordOf(join(dir, 'sandbox.db'));
    expect(firstImport?.state).toBe('finished');
    await workbench.stop();
    workbench = await startWorkbenchProcess(dir, ['--real-data', '--ocds', ocdsFolder]);
    const page = await serviceGet<TenderPage>('/v1/tenders?limit=1');
    expect(page.pagination.total).toBe(await distinctOcids());
    expect(importRecordOf(join(dir, 'sandbox.db'))).toEqual(firstImport);
  });

  it('refuses to mix: real data on a folder of demo data is refused with a sentence', async () => {
    const demoDir = mkdtempSync(join(tmpdir(), 'tenderbot-demo-data-'));
    try {
      const demo = await startWorkbenchProcess(demoDir, ['--demo', '50']);
      await demo.stop();
      const mixed = startTenderbot(
        [
          'start',
          '--data',
          demoDir,
          '--real-data',
          '--ocds',
          ocdsFolder,
          '--port',
          '0',
          '--service-port',
          '0',
        ],
        () => null,
      );
      await expect(mixed).rejects.toThrow(/exited with 1[\s\S]*holds generated demo tenders[\s\S]*--data/);
    } finally {
      rmSync(demoDir, { recursive: true, force: true });
    }
  });
});
