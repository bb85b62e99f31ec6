import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWorkbenchProcess, type WorkbenchProcess } from '../support/workbench.ts';
import { callTool } from './tool-suite.ts';

let dir: string;
let workbench: WorkbenchProcess;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tenderbot-mcp-workbench-'));
  workbench = await startWorkbenchProcess(dir, ['--demo', '200']);
});
afterAll(async () => {
  await workbench.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('npm start prints the MCP address with the demo key, and an SDK client searches with them', async () => {
  const printed =
    /MCP: +(http:\/\/\S+\/mcp) for assistants, with the header "Authorization: Bearer (pis_\S+)"/.exec(
      workbench.output(),
    );
  expect(printed, workbench.output()).not.toBeNull();
  const [, url = '', key = ''] = printed ?? [];
  expect(key).toBe(workbench.keyToConnect);
  const client = new Client({ name: 'workbench-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  try {
    const found = await callTool(client, 'search_tenders', { limit: 3 });
    expect(found.isError, found.text).toBe(false);
    expect(found.data.items).toHaveLength(3);
    expect(found.data.total).toBe(200);
  } finally {
    await client.close();
  }
});
