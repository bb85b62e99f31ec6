import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import { addWorkbenchRoutes } from '../../src/workbench/workbench-routes.ts';
import { SECOND_WORKSPACE } from '../../src/workbench/workspaces.ts';
import { type InstallStack, type OAuthApp, startInstallStack } from '../app/features/install/oauth-app.ts';
import { ARTIFACTS_DIR, launchChromium } from '../support/browser.ts';

let stack: InstallStack;
let slack: FakeSlack;
let app: OAuthApp;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  // The workbench's fake Slack with its second workspace, and the app in its many-workspaces mode,
  // installed in neither workspace yet.
  stack = await startInstallStack({
    prepare: (fake) => {
      fake.addWorkspace(SECOND_WORKSPACE);
      addWorkbenchRoutes(fake);
    },
  });
  ({ slack, app } = stack);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS_DIR, `install-${name}.png`) });

/** Opens the workbench on one workspace and waits until it is drawn. */
async function openWorkspace(teamId: string): Promise<void> {
  await page.goto(`${slack.baseUrl}/?team=${teamId}`);
  await page.locator('#channels .channel-link').first().waitFor();
}

/** From the workbench: "Add Tenderbot", the app's page, Slack's page (pick the workspace, Allow). */
async function installThroughPages(teamId: string, teamName: string, step: string): Promise<void> {
  await openWorkspace(teamId);
  await expect.poll(() => page.locator('#not-installed').isVisible()).toBe(true);
  await shot(`${step}-not-installed`);
  await page.click('#install-link');
  await page.locator('#add-to-slack').waitFor();
  if (step === '1') await shot('2-add-to-slack');
  await page.click('#add-to-slack');
  // Slack's page starts on the workspace whose page the person came from.
  await page.locator('button.allow').waitFor();
  expect(await page.locator(`input[value="team:${teamId}"]`).isChecked()).toBe(true);
  expect(await page.locator('main').innerText()).toContain(teamName);
  await shot(`${step}-slack-asks`);
  await page.click('button.allow');
  await page.locator('h1', { hasText: 'Tenderbot is installed' }).waitFor();
  expect(await page.locator('main').innerText()).toContain(teamName);
  await shot(`${step}-installed`);
}

/** Types a command in the shown channel and waits for the answer only this person sees. */
async function type(text: string, answer: string): Promise<void> {
  await page.fill('#composer', text);
  await page.press('#composer', 'Enter');
  await page.locator('.message.ephemeral', { hasText: answer }).last().waitFor();
}

describe('installing Tenderbot into two workspaces from the workbench', () => {
  it('installs through the pages into each workspace, then answers a command in each', async () => {
    await installThroughPages('T0TENDER', 'Tenderbot Fake', '1');
    await installThroughPages('T0SECOND', 'Second Bid Team', '3');
    expect((await app.store.listInstallations()).map((installation) => installation.teamId).sort()).toEqual([
      'T0SECOND',
      'T0TENDER',
    ]);

    await openWorkspace('T0SECOND');
    expect(await page.locator('#workspace-name').innerText()).toBe('Second Bid Team');
    expect(await page.locator('#not-installed').isVisible()).toBe(false);
    // The person remembered from the first workspace is not here: the page acts as this one's first.
    expect(await page.locator('#user-switcher').inputValue()).toBe('U1ADMIN');
    await type('/tender help', '/tender search');
    // An admin's /tender connect opens its window with this workspace's token.
    await page.fill('#composer', '/tender connect');
    await page.press('#composer', 'Enter');
    await page.locator('#modal', { hasText: 'Connect Tenderbot' }).waitFor();
    await shot('5-second-workspace-answers');
    const second = slack.team('T0SECOND');
    expect(second.callsOf('views.open').at(-1)?.token).toBe(second.botTokens.at(-1));
    await page.keyboard.press('Escape');

    await page.selectOption('#workspace-switcher', 'T0TENDER');
    await page.waitForURL(/team=T0TENDER/);
    await page.locator('#channels .channel-link').first().waitFor();
    expect(await page.locator('#workspace-name').innerText()).toBe('Tenderbot Fake');
    await type('/tender help', '/tender search');
    await shot('6-first-workspace-answers');
    expect(problems).toEqual([]);
  }, 90_000);
});
