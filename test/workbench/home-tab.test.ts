import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, launchChromium, openChannel } from '../support/browser.ts';
import { startWorkbenchProcess, type WorkbenchProcess } from '../support/workbench.ts';

// The Home tab with its rows' buttons, in the workbench as a person uses it: each button used from
// the page, and what it did looked for where it did it.

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-home-tab-'));
let workbench: WorkbenchProcess;
let browser: Browser;
let page: Page;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

beforeAll(async () => {
  workbench = await startWorkbenchProcess(dir);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
  await page.goto(workbench.url);
  await page.locator('#channels .channel-link').first().waitFor();
}, 120_000);

afterEach(async ({ task }) => {
  if (task.result?.state !== 'fail') return;
  await shot('failed').catch(() => undefined);
  console.error(`${task.name} failed. tenderbot start said:\n${workbench.output().slice(-4000)}`);
});

afterAll(async () => {
  await browser?.close();
  await workbench?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const shot = (name: string) =>
  page.screenshot({ path: join(ARTIFACTS_DIR, `home-tab-${name}.png`), fullPage: true });

async function type(text: string) {
  await page.fill('#composer', text);
  await page.press('#composer', 'Enter');
}

/** The Home tab, drawn afresh, once its bids are listed. */
async function openHome() {
  await page.locator('#home-link').click();
  const home = page.locator('#home');
  await home.getByText('Current bids').waitFor();
  return home;
}

describe('the Home tab', () => {
  it('lists bids, bookmarks and saved searches with their buttons, and each button works', async () => {
    await page.selectOption('#user-switcher', 'U0ADMIN');
    await openChannel(page, 'C0BIDS');
    // The workbench answers with the key it was started with; a bookmark to list.
    await type('/tender search cleaning');
    const results = page.locator('.message.ephemeral', { hasText: 'Tenders matching “cleaning”' }).last();
    await results.waitFor();
    await results.getByRole('button', { name: 'Bookmark' }).first().click();
    await results.getByRole('button', { name: 'Remove bookmark' }).first().waitFor();

    const home = await openHome();
    await home.getByText('Bookmarks').first().waitFor();
    await home.getByText('Saved searches').first().waitFor();
    // Every row's buttons, and nothing a person would have to copy.
    expect(await home.getByRole('button', { name: 'Open', exact: true }).count()).toBeGreaterThanOrEqual(2);
    expect(await home.getByRole('button', { name: 'Post in channel' }).count()).toBeGreaterThanOrEqual(2);
    expect(await home.getByRole('button', { name: 'Run', exact: true }).count()).toBeGreaterThanOrEqual(1);
    expect(await home.getByRole('button', { name: 'Subscribe a channel' }).count()).toBeGreaterThanOrEqual(1);
    expect(await home.innerText()).not.toMatch(UUID);
    await shot('rows');

    // Post in channel on the first bid: "Which channel?", #bids, and its card is there.
    await home.getByRole('button', { name: 'Post in channel' }).first().click();
    const window = page.locator('#modal');
    await window.getByText('Channel').first().waitFor();
    await window.locator('[data-action-id="home/channel"]').selectOption('C0BIDS');
    await shot('which-channel');
    await window.getByRole('button', { name: 'Post', exact: true }).click();
    await page.locator('#modal-layer').waitFor({ state: 'hidden' });
    await openChannel(page, 'C0BIDS');
    const card = page
      .locator('#messages .message:not(.ephemeral)', { hasText: 'Set the bid’s status' })
      .last();
    await card.waitFor({ timeout: 15_000 });
    await shot('bid-posted');

    // Open on the first bid: its card in direct messages with Tenderbot.
    await openHome();
    await page.locator('#home').getByRole('button', { name: 'Open', exact: true }).first().click();
    await page.locator('#home').getByText('The bid’s card is in your Messages with Tenderbot').waitFor();
    await shot('opened-notice');
    await page.locator('#dm-link').click();
    await page
      .locator('#messages .message', { hasText: 'Set the bid’s status' })
      .last()
      .waitFor({ timeout: 15_000 });

    // Run on a saved search: its results in direct messages.
    await openHome();
    await page.locator('#home').getByRole('button', { name: 'Run', exact: true }).first().click();
    await page.locator('#dm-link').click();
    await page
      .locator('#messages .message', { hasText: /Tenders matching|Found no/ })
      .last()
      .waitFor({ timeout: 15_000 });
    await shot('run-in-dm');
  }, 180_000);
});
