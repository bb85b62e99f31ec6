import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, launchChromium } from '../support/browser.ts';
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
let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
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
    // A key per workspace, each of its own organisation: two workspaces never share bookmarks by accident.
    const keys = [
      ...workbench
        .output()
        .matchAll(/paste into \/tender connect: (pis_\S+) \(in ([^;]+); organisation ([^)]+)\)/g),
    ];
    expect(keys.map((match) => [match[2], match[3]])).toEqual([
      ['Tenderbot Fake', 'Demo Bids Ltd'],
      ['Second Bid Team', 'Second Bids Ltd'],
    ]);
    expect(new Set(keys.map((match) => match[1])).size).toBe(2);
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

  it('installs Tenderbot from the second workspace’s page: Slack offers that workspace, the app leads back', async () => {
    const [, secondKey] = /connect: (pis_\S+) \(in Second Bid Team/.exec(workbench.output()) ?? [];
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const shot = (name: string) =>
      page.screenshot({ path: join(ARTIFACTS_DIR, `many-workspaces-${name}.png`) });
    const type = async (text: string) => {
      await page.fill('#composer', text);
      await page.press('#composer', 'Enter');
    };
    await page.goto(`${workbench.url}?team=T0SECOND`);
    await page.locator('#not-installed', { hasText: 'Tenderbot is not in Second Bid Team yet' }).waitFor();
    expect(await page.locator('#workspace-choice').isVisible()).toBe(true);
    // Not installed is a normal state: guidance, never a failure with a warning sign and a reference.
    await type('/tender help');
    const guidance = page.locator('.message.ephemeral', { hasText: 'not installed in this workspace yet' });
    await guidance.waitFor();
    expect(await guidance.innerText()).not.toMatch(/⚠|reference/i);
    await shot('1-second-not-installed');

    await page.click('#install-link');
    await page.click('#add-to-slack');
    // Slack's page starts on the workspace clicked from, not on the one that has the app already.
    await page.locator('button.allow').waitFor();
    expect(await page.locator('input[value="team:T0SECOND"]').isChecked()).toBe(true);
    expect(await page.locator('input[value="team:T0TENDER"]').isChecked()).toBe(false);
    await shot('2-slack-asks');
    await page.click('button.allow');
    await page.locator('h1', { hasText: 'Tenderbot is installed' }).waitFor();
    expect(await page.locator('main').innerText()).toContain('Second Bid Team');
    await shot('3-installed');

    // The way back: Slack's link into the workspace, which the workbench answers.
    await page.click('#open-slack');
    await page.waitForURL(/\?team=T0SECOND$/);
    await page.locator('#workspace-name', { hasText: 'Second Bid Team' }).waitFor();
    await expect.poll(() => page.locator('#not-installed').isVisible()).toBe(false);
    expect(await page.locator('#install-link').isVisible()).toBe(false);
    // Tenderbot is invited to #general once installed, as its installer would: its welcome is there.
    await page.locator('#messages .message', { hasText: 'Three things to try' }).waitFor();

    // No key yet is a normal state too: what to do, with no warning sign and no reference.
    await type('/tender search cleaning');
    const noKey = page.locator('.message.ephemeral', { hasText: 'no API key yet' });
    await noKey.waitFor();
    expect(await noKey.innerText()).not.toMatch(/⚠|reference/i);
    await type('/tender connect');
    const modal = page.locator('#modal');
    await modal.getByRole('heading', { name: 'Connect Tenderbot' }).waitFor();
    await modal.locator('[data-action-id="connect/key"]').fill(secondKey ?? '');
    await modal.getByRole('button', { name: 'Connect' }).click();
    await page.locator('#modal-layer').waitFor({ state: 'hidden' });
    await page.locator('.message.ephemeral', { hasText: 'Connected.' }).last().waitFor();
    await shot('4-second-connected');
  }, 90_000);
});
