import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ARTIFACTS_DIR, launchChromium, openChannel } from '../support/browser.ts';
import { startWorkbenchProcess, type WorkbenchProcess } from '../support/workbench.ts';

// A bid's history in the workbench page: a change told once under the card in each channel, and
// a card that keeps every stage's menu after three notes of 3,000 characters.
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-bid-history-'));
let workbench: WorkbenchProcess;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  workbench = await startWorkbenchProcess(dir);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
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

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS_DIR, `bid-history-${name}.png`) });

/** The card (not a thread line) of the bid. */
const cardOf = (bidName: string): Locator =>
  page.locator('.message:not(.ephemeral)', { hasText: bidName }).filter({ hasText: 'done' }).last();

describe('a bid’s history in the workbench page', () => {
  let bidName = '';
  let pipelineId = '';

  it('a stage moved on the #general card is told once under the #general card and once under the #bids card', async () => {
    await type('/tender search software');
    const results = page.locator('.message.ephemeral', { hasText: 'Tenders matching “software”' }).last();
    await results.waitFor();
    await results.getByRole('button', { name: 'Start a bid' }).first().click();
    const modal = page.locator('#modal');
    await modal.getByRole('heading', { name: 'Start a bid' }).waitFor();
    const name = modal.locator('[data-action-id="pipeline/name"]');
    await name.waitFor();
    bidName = `History bid (${randomUUID().slice(0, 6)})`;
    await name.fill(bidName);
    await modal.getByRole('button', { name: 'Start the bid' }).click();
    await page.locator('#modal-layer').waitFor({ state: 'hidden' });
    const bidsCard = cardOf(bidName);
    await bidsCard.waitFor();
    expect(await bidsCard.textContent()).toContain('started by @Max Member');
    pipelineId = (await bidsCard.locator('code').first().textContent()) ?? '';
    expect(pipelineId).not.toBe('');

    await openChannel(page, 'C0GENERAL');
    await type(`/tender pipeline ${pipelineId}`);
    await cardOf(bidName).waitFor();
    await cardOf(bidName)
      .locator('select[data-action-id="pipeline/stage_status/1"]')
      .selectOption({ label: 'In progress' });
    const line = page.locator('.thread .message', { hasText: 'moved stage 1' });
    await line.first().waitFor();
    // Time for a second (wrong) line to arrive before counting.
    await page.waitForTimeout(600);
    expect(await line.count()).toBe(1);
    expect(await line.first().textContent()).toContain(
      `@Max Member moved stage 1, Qualify the opportunity, of ${bidName} to In progress`,
    );
    await cardOf(bidName).scrollIntoViewIfNeeded();
    await shot('general-thread');

    await openChannel(page, 'C0BIDS');
    const bidsLine = page.locator('.thread .message', { hasText: 'moved stage 1' });
    await bidsLine.first().waitFor();
    expect(await bidsLine.count()).toBe(1);
    expect(await bidsLine.first().textContent()).toContain('@Max Member');
    await cardOf(bidName).scrollIntoViewIfNeeded();
    await shot('bids-thread');
    expect(problems).toEqual([]);
  }, 90_000);

  it('three notes of 3,000 characters leave every stage its menu, the notes cut with what is left', async () => {
    const notes = `${'Method statement and social value. '.repeat(90).slice(0, 2996)}END.`;
    expect(notes.length).toBe(3000);
    for (const stage of [1, 2, 3]) {
      await cardOf(bidName).locator(`[data-action-id="pipeline/stage_notes/${stage}"]`).click();
      const modal = page.locator('#modal');
      await modal.getByRole('heading', { name: 'Notes and due date' }).waitFor();
      const box = modal.locator('[data-action-id="pipeline/notes"]');
      await box.waitFor();
      await box.fill(notes);
      await modal.getByRole('button', { name: 'Save' }).click();
      await page.locator('#modal-layer').waitFor({ state: 'hidden' });
      await page
        .locator('.message:not(.ephemeral)', { hasText: bidName })
        .filter({ hasText: 'done' })
        .filter({ hasText: new RegExp(`(more characters in Notes and due date[\\s\\S]*){${stage}}`) })
        .last()
        .waitFor();
    }
    const card = cardOf(bidName);
    expect(await card.locator('select[data-action-id^="pipeline/stage_status/"]').count()).toBe(6);
    expect(await card.locator('[data-action-id^="pipeline/stage_notes/"]').count()).toBe(6);
    expect(await card.textContent()).toMatch(/… 2,\d{3} more characters in Notes and due date/);
    expect(await card.textContent()).not.toContain('Change these with');
    // The form shows the notes whole.
    await card.locator('[data-action-id="pipeline/stage_notes/2"]').click();
    const box = page.locator('#modal [data-action-id="pipeline/notes"]');
    await box.waitFor();
    await expect(box.inputValue()).resolves.toBe(notes);
    await page.locator('#modal').getByRole('button', { name: 'Cancel' }).click();
    await page.locator('#modal-layer').waitFor({ state: 'hidden' });
    // The page may draw the card again meanwhile (a poll): the picture is taken of where it is, since
    // an element screenshot fails when its element is replaced while it waits for it to be stable.
    // Between two draws the card is briefly not there (no box), and scrolling to it fails the same
    // way (CI met "not attached to the DOM" once): both asked again until it is.
    const where = await vi.waitFor(
      async () => {
        await card.scrollIntoViewIfNeeded({ timeout: 2000 });
        const box = await card.boundingBox();
        if (!box) throw new Error('the card is being drawn again');
        return box;
      },
      { timeout: 10_000, interval: 100 },
    );
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'bid-history-long-notes-card.png'), clip: where });
    await shot('long-notes');
    expect(problems).toEqual([]);
  }, 120_000);
  it('Edit details saves from the page: one stage renamed, the others kept as they were', async () => {
    await cardOf(bidName).locator('[data-action-id="pipeline/edit"]').click();
    const modal = page.locator('#modal');
    await modal.getByRole('heading', { name: 'Edit the bid' }).waitFor();
    // Six stages, one input each: the same action id in six blocks, told apart by block.
    const stages = modal.locator('[data-action-id="pipeline/edit_stage_name"]');
    await stages.first().waitFor();
    expect(await stages.count()).toBe(6);
    const before = await stages.evaluateAll((inputs) =>
      inputs.map((input) => (input as unknown as { value: string }).value),
    );
    await stages.nth(3).fill('Pricing and risk');
    await shot('edit-details');
    await modal.getByRole('button', { name: 'Save' }).click();
    await page.locator('#modal-layer').waitFor({ state: 'hidden' });
    const line = page.locator('.thread .message', { hasText: 'renamed stage 4' });
    await line.first().waitFor();
    expect(await line.first().textContent()).toContain(
      `@Max Member edited ${bidName}: renamed stage 4 from “${before[3]}” to “Pricing and risk”`,
    );
    const card = await cardOf(bidName).textContent();
    for (const [index, name] of before.entries())
      expect(card).toContain(`${index + 1}. ${index === 3 ? 'Pricing and risk' : name}`);
    expect(problems).toEqual([]);
  }, 90_000);
});
