import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkbenchProcess, type WorkbenchProcess } from '../support/workbench.ts';

/**
 * `npm start -- --many-workspaces`: the workbench with the app in its "Add to Slack" mode, two
 * workspaces, the first installed at start and the second waiting to be added from the page
 * (that flow in the browser: install.test.ts). Read through the page's own routes.
 */
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-many-'));
let workbench: WorkbenchProcess;

beforeAll(async () => {
  workbench = await startWorkbenchProcess(join(dir, 'data'), ['--demo', '300', '--many-workspaces']);
}, 90_000);
afterAll(async () => {
  await workbench?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface State {
  team: { id: string };
  workspaces: { id: string; name: string }[];
  installUrl: string | null;
  installed: boolean;
  channel: string;
  messages: { text?: string; blocks?: unknown }[];
}

async function state(team: string): Promise<State> {
  const answer = await request(`${workbench.url}workbench/state?team=${team}`);
  return (await answer.body.json()) as State;
}

describe('the workbench with many workspaces', () => {
  it('says so at start, and offers two workspaces: the first with Tenderbot, the second to add it to', async () => {
    expect(workbench.output()).toContain('two workspaces; Tenderbot is installed in the first');
    const first = await state('T0TENDER');
    expect(first.workspaces.map((workspace) => workspace.id)).toEqual(['T0TENDER', 'T0SECOND']);
    expect(first.installUrl).toMatch(/\/slack\/install$/);
    expect(first.installed).toBe(true);
    expect((await state('T0SECOND')).installed).toBe(false);
  });

  it('answers a command in the installed workspace', async () => {
    const first = await state('T0TENDER');
    const origin = workbench.url.replace(/\/$/, '');
    const answer = await request(`${workbench.url}workbench/command`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({
        team: 'T0TENDER',
        user: 'U0ADMIN',
        channel: first.channel,
        text: '/tender help',
      }),
    });
    expect(((await answer.body.json()) as { status: number }).status).toBe(200);
    let seen = '';
    for (let tries = 0; tries < 100 && !seen.includes('/tender search'); tries++) {
      seen = JSON.stringify((await state('T0TENDER')).messages);
      if (!seen.includes('/tender search')) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(seen).toContain('/tender search');
  });
});
