import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, launchChromium, openChannel } from '../support/browser.ts';
import { startWorkbenchProcess, type WorkbenchProcess } from '../support/workbench.ts';

// The README's picture: a tender card and a bid card in the workbench, as `npm start` shows them.
// Every run draws it into test-artifacts/; `UPDATE_README_IMAGE=1` draws the committed one in
// docs/images/ (its ids and times change each run, so a plain test run leaves the checkout clean).
const IMAGE_PATH = process.env.UPDATE_README_IMAGE
  ? resolve(import.meta.dirname, '../../docs/images/workbench-cards.png')
  : join(ARTIFACTS_DIR, 'readme-workbench-cards.png');

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-readme-screenshot-'));
let workbench: WorkbenchProcess;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  workbench = await startWorkbenchProcess(dir);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 980 } });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  await page.goto(workbench.url);
  await page.locator('#channels .channel-link').first().waitFor();
  await page.selectOption('#user-switcher', 'U0MEMBER');
  await openChannel(page, 'C0BIDS');
});

afterAll(async () => {
  await browser?.close();
  await workbench?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function type(text: string) {
  await page.fill('#composer', text);
  await page.press('#composer', 'Enter');
}

describe('the README screenshot', () => {
  it('shows a tender card from a search and the card of a bid started from it', async () => {
    // Open tenders: a bid is started on one still open, and its form takes the tender's deadline.
    await type('/tender search software status:open');
    const results = page.locator('.message.ephemeral', { hasText: 'Tenders matching “software”' }).last();
    await results.waitFor();
    // The page's last card: the bid is started from it, so the picture shows that tender above its bid.
    const ids = (await results.locator('code').allTextContents()).filter((id) => id.startsWith('ocds-'));
    expect(ids).toHaveLength(5);
    const tenderId = ids[4] ?? '';
    for (const button of ['Bookmark', 'Comment', 'Start a bid', 'Share in channel']) {
      await expect(
        results.getByRole('button', { name: button, exact: true }).first().isVisible(),
      ).resolves.toBe(true);
    }

    await results.getByRole('button', { name: 'Start a bid' }).last().click();
    const modal = page.locator('#modal');
    await modal.getByRole('heading', { name: 'Start a bid' }).waitFor();
    const nameBox = modal.locator('[data-action-id="pipeline/name"]');
    await nameBox.waitFor();
    // The form names the bid after the tender ("Bid for <title>"); the picture's bid gets a name of its own.
    const prefilled = await nameBox.inputValue();
    expect(prefilled).toMatch(/^Bid for ./);
    const tenderTitle = prefilled.slice('Bid for '.length);
    const bidName = 'Council software renewal';
    await nameBox.fill(bidName);
    await modal.locator('[data-action-id="pipeline/summary"]').fill('Led by Max; pricing with finance.');
    // Three stages rather than the default template's six, so the whole card fits beside the tender's;
    // within the days left before it closes, so the form takes them without asking whether they are meant.
    const closes = /The tender closes (\d{1,2} \w+ \d{4})/.exec((await modal.textContent()) ?? '')?.[1];
    const left = Math.floor(
      (Date.parse(`${closes} UTC`) - Date.parse(new Date().toISOString().slice(0, 10))) / 86_400_000,
    );
    expect(left).toBeGreaterThanOrEqual(3);
    await modal
      .locator('[data-action-id="pipeline/stages"]')
      .fill(`Bid / no-bid decision | 1\nDraft response | ${Math.min(5, left - 2)}\nReview and sign-off | 1`);
    await modal.getByRole('button', { name: 'Start the bid' }).click();
    await page.locator('#modal-layer').waitFor({ state: 'hidden' });

    const bidCard = page.locator('.message:not(.ephemeral)', { hasText: bidName }).last();
    await bidCard.waitFor();
    const bidText = (await bidCard.textContent()) ?? '';
    // The tender by its title, beside its id; when it closes.
    expect(bidText).toMatch(new RegExp(`tender “[^”]+” ${tenderId}`));
    expect(bidText).toContain('Tender closes');
    expect(bidText).toMatch(/0\/\d+ done/);
    expect(bidText).toContain('Led by Max; pricing with finance.');
    expect(bidText).toContain('Draft response');

    // The bid card at the bottom of the list, the search's last cards above it: both in the picture.
    await page.locator('#messages').evaluate((list: { scrollTop: number; scrollHeight: number }) => {
      list.scrollTop = list.scrollHeight;
    });
    const shownWhole = [
      results.locator('.bk-text', { hasText: tenderTitle.slice(0, 40) }).last(),
      results.locator('code', { hasText: tenderId }),
      results.getByRole('button', { name: 'Start a bid' }).last(),
      bidCard.getByRole('heading', { name: bidName }),
      bidCard.locator('select[data-action-id="pipeline/stage_status/3"]'),
      bidCard.getByRole('button', { name: 'Archive' }),
    ];
    for (const shown of shownWhole) await expect(inPictureWhole(shown)).resolves.toBe(true);

    mkdirSync(resolve(IMAGE_PATH, '..'), { recursive: true });
    await page.screenshot({ path: IMAGE_PATH });
    expect(statSync(IMAGE_PATH).size).toBeGreaterThan(10_000);
    expect(problems).toEqual([]);
  }, 90_000);
});

/** Whether the element is drawn within the message list as it is scrolled, so the picture shows it whole. */
async function inPictureWhole(locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  const list = await page.locator('#messages').boundingBox();
  if (!box || !list) return false;
  return box.y >= list.y && box.y + box.height <= list.y + list.height && box.x >= list.x;
}
