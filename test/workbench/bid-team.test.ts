import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, launchChromium, openChannel } from '../support/browser.ts';
import { startWorkbenchProcess, type WorkbenchProcess } from '../support/workbench.ts';

// A bid team's day in the workbench page, as people click it: comment, start a bid, move a stage.
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-bid-team-'));
let workbench: WorkbenchProcess;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  workbench = await startWorkbenchProcess(dir);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('dialog', (dialog) => dialog.accept());
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

/** Shows the newest messages (the list is redrawn as messages change, so its items come and go). */
const scrollToNewest = () =>
  page.locator('#messages').evaluate((list: { scrollTop: number; scrollHeight: number }) => {
    list.scrollTop = list.scrollHeight;
  });

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS_DIR, `bid-team-${name}.png`) });

/** The first card of a fresh search, and the tender id it shows first (the one /tender show takes). */
async function firstSearchCard(words: string): Promise<{ results: Locator; tenderId: string }> {
  await type(`/tender search ${words}`);
  const results = page.locator('.message.ephemeral', { hasText: `Tenders matching “${words}”` }).last();
  await results.waitFor();
  const tenderId = (await results.locator('code').first().textContent()) ?? '';
  expect(tenderId).toMatch(/^ocds-/);
  return { results, tenderId };
}

/** The newest message everyone in the channel sees that contains `text`. */
const channelMessage = (text: string) => page.locator('.message:not(.ephemeral)', { hasText: text }).last();

describe('a bid team in the workbench page', () => {
  it('writes a comment in the modal, and the thread shows it under the person who wrote it', async () => {
    const { results, tenderId } = await firstSearchCard('cleaning');
    await results.getByRole('button', { name: 'Comment', exact: true }).first().click();
    const modal = page.locator('#modal');
    await modal.getByRole('heading', { name: 'Comment' }).waitFor();
    const box = modal.locator('[data-action-id="comment/text"]');
    await box.waitFor();
    await expect(modal.textContent()).resolves.toContain('Colleagues who bookmarked this tender');
    const words = 'Our Leeds team covers this area: worth a bid. <b>not bold</b> *really*';
    await box.fill(words);
    await shot('comment-modal');
    await modal.getByRole('button', { name: 'Post comment' }).click();
    await page.locator('#modal-layer').waitFor({ state: 'hidden' });
    await page.locator('.message.ephemeral', { hasText: 'is posted' }).last().waitFor();

    await type(`/tender comments ${tenderId}`);
    const thread = channelMessage('Our Leeds team covers this area');
    await thread.waitFor();
    const shown = (await thread.textContent()) ?? '';
    expect(shown).toContain('@Max Member');
    // Markup typed into a comment is shown as text, never as the page's own HTML.
    expect(shown).toContain('<b>not bold</b>');
    await scrollToNewest();
    await shot('comment-thread');
  });

  it('starts a bid from a tender card, shows its card in two channels, and moves a stage on both', async () => {
    const { results, tenderId } = await firstSearchCard('software');
    await results.getByRole('button', { name: 'Start a bid' }).first().click();
    const modal = page.locator('#modal');
    await modal.getByRole('heading', { name: 'Start a bid' }).waitFor();
    const name = modal.locator('[data-action-id="pipeline/name"]');
    await name.waitFor();
    // A name of its own each run, so a retried run never finds the first run's cards.
    const bidName = `Bid for ${tenderId} (${randomUUID().slice(0, 6)})`;
    await name.fill(bidName);
    await modal.locator('[data-action-id="pipeline/summary"]').fill('Led by Max; pricing with finance.');
    await expect(modal.locator('[data-action-id="pipeline/stages"]').inputValue()).resolves.not.toBe('');
    await shot('start-bid-modal');
    await modal.getByRole('button', { name: 'Start the bid' }).click();
    await page.locator('#modal-layer').waitFor({ state: 'hidden' });

    const bidsCard = channelMessage(bidName);
    await bidsCard.waitFor();
    const card = (await bidsCard.textContent()) ?? '';
    // The tender by its title, beside its id; when it closes.
    expect(card).toMatch(new RegExp(`tender “[^”]+” ${tenderId}`));
    expect(card).toContain('Tender closes');
    expect(card).toMatch(/0\/\d+ done/);
    // The card's first id is the pipeline's; the second, its tender's.
    const pipelineId = (await bidsCard.locator('code').first().textContent()) ?? '';
    expect(pipelineId).not.toBe('');
    expect(pipelineId).not.toBe(tenderId);
    await shot('bid-started');
    // "Open the tender" shows it in full to the one who pressed, with its own buttons.
    await bidsCard.getByRole('button', { name: 'Open the tender' }).click();
    const tenderShown = page.locator('.message.ephemeral', { hasText: tenderId }).last();
    await tenderShown.waitFor();
    await tenderShown
      .getByRole('button', { name: /Bookmark|Remove bookmark/ })
      .first()
      .waitFor();

    // The same pipeline's card in a second channel.
    await openChannel(page, 'C0GENERAL');
    await type(`/tender pipeline ${pipelineId}`);
    await channelMessage(bidName).waitFor();

    // Move the first stage in #bids with its select: both cards follow, and the thread says who.
    await openChannel(page, 'C0BIDS');
    await channelMessage(bidName)
      .locator('select[data-action-id="pipeline/stage_status/1"]')
      .selectOption({ label: 'Completed' });
    await page
      .locator('.message:not(.ephemeral)', { hasText: bidName })
      .filter({ hasText: /1\/\d+ done/ })
      .waitFor();
    await page.locator('.thread .message', { hasText: 'moved' }).last().waitFor();
    const line = (await page.locator('.thread .message', { hasText: 'moved' }).last().textContent()) ?? '';
    expect(line).toContain('@Max Member');
    expect(line).toContain(`moved stage 1, Qualify the opportunity, of ${bidName} to Completed`);
    await shot('stage-moved-bids');

    await openChannel(page, 'C0GENERAL');
    const generalCard = page
      .locator('.message:not(.ephemeral)', { hasText: bidName })
      .filter({ hasText: /1\/\d+ done/ });
    await generalCard.waitFor();
    await scrollToNewest();
    const chosen = await generalCard
      .locator('select[data-action-id="pipeline/stage_status/1"] option:checked')
      .textContent();
    expect(chosen).toBe('Completed');
    await shot('stage-moved-general');

    // A guest's choice is refused: the menu shows the card's own status again, not the refused one.
    await page.selectOption('#user-switcher', 'U0GUEST');
    await openChannel(page, 'C0GENERAL');
    const menu = generalCard.locator('select[data-action-id="pipeline/stage_status/1"]');
    await menu.selectOption({ label: 'Blocked' });
    await page.locator('.message.ephemeral', { hasText: 'Guests can read tenders' }).last().waitFor();
    await expect
      .poll(() => menu.locator('option:checked').textContent(), { timeout: 10_000 })
      .toBe('Completed');
    await shot('stage-refused-guest');
    expect(problems).toEqual([]);
    // Many steps in a browser beside the rest of the suite on two cores: more than the default 30 s.
  }, 90_000);
});
