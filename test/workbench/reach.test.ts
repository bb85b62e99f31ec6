import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_BUILDER_FIELDS } from '../../src/app/shared/ids.ts';
import { ARTIFACTS_DIR, launchChromium, openChannel } from '../support/browser.ts';
import { OCDS_DIR } from '../support/ocds-data.ts';
import { startWorkbenchProcess, type WorkbenchProcess } from '../support/workbench.ts';

// `npm start -- --real-data` on the UK notices alone (a folder holding only that file, so the
// import takes a moment): a Contracts Finder link pasted in the page becomes its card.
const CF_LINK = 'https://www.contractsfinder.service.gov.uk/Notice/5a115892-5c5e-4646-8a8f-150c9708a9dc';
const NHS_TITLE = 'Pressure Area Care and Patient Handling';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-reach-'));
let workbench: WorkbenchProcess;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  const ocds = join(dir, 'ocds');
  mkdirSync(ocds);
  symlinkSync(join(OCDS_DIR, 'uk-notices.releases.jsonl.gz'), join(ocds, 'uk-notices.releases.jsonl.gz'));
  workbench = await startWorkbenchProcess(join(dir, 'data'), ['--real-data', '--ocds', ocds]);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  // Each step waits at most this long, well inside the test's own time.
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  await page.goto(workbench.url);
  await page.locator('#channels .channel-link').first().waitFor();
  await page.selectOption('#user-switcher', 'U0MEMBER');
  await openChannel(page, 'C0BIDS');
}, 60_000);

// A step that fails leaves a picture of the page behind, to see why.
afterEach(async (test) => {
  if (test.task.result?.state === 'fail')
    await shot(`failed-${test.task.name.slice(0, 30).replace(/\W+/g, '-')}`);
});

afterAll(async () => {
  await browser?.close();
  await workbench?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS_DIR, `reach-${name}.png`) });

async function type(text: string) {
  await page.fill('#composer', text);
  await page.press('#composer', 'Enter');
}

describe('Slack-native reach in the workbench page (real OCDS notices)', () => {
  it('unfurls a pasted Contracts Finder link into the tender’s card', async () => {
    await type(`Worth a bid? ${CF_LINK}`);
    const card = page.locator(`.unfurl[data-url="${CF_LINK}"]`);
    await card.waitFor();
    await card.getByText(NHS_TITLE).waitFor();
    await expect(card.getByRole('button', { name: 'Start a bid' }).count()).resolves.toBe(1);
    await expect(card.getByRole('button', { name: 'Comment' }).count()).resolves.toBe(1);
    await shot('unfurl');
    // Bookmarked from the preview, for the workspace: the preview is drawn again with the new state.
    await card.getByRole('button', { name: 'Bookmark', exact: true }).click();
    await card.getByRole('button', { name: 'Remove bookmark' }).waitFor();
    await shot('unfurl-bookmarked');
  });

  it('builds a search in the form from the ⚡ menu, and answers with the command and its cards', async () => {
    await page.locator('#shortcuts summary').click();
    await page.locator('#shortcuts-menu').getByRole('button', { name: 'Search tenders' }).click();
    const modal = page.locator('#modal');
    await modal.locator(`[data-action-id="${SEARCH_BUILDER_FIELDS.words.action}"]`).waitFor();
    await modal.locator(`[data-action-id="${SEARCH_BUILDER_FIELDS.words.action}"]`).fill('pressure care');
    const buyer = modal.locator(`[data-block-id="${SEARCH_BUILDER_FIELDS.buyer.block}"]`);
    await buyer.locator('.bk-external-search').fill('nhs supply');
    const select = buyer.locator(`select[data-action-id="${SEARCH_BUILDER_FIELDS.buyer.action}"]`);
    await select.locator('option', { hasText: 'NHS Supply Chain' }).first().waitFor({ state: 'attached' });
    const value = await select
      .locator('option', { hasText: 'NHS Supply Chain' })
      .first()
      .getAttribute('value');
    await select.selectOption(value as string);
    // "Any region" is the region's first choice and its placeholder: shown once in the list, as Slack does.
    const region = modal.locator(`select[data-action-id="${SEARCH_BUILDER_FIELDS.region.action}"]`);
    const offered = await region.locator('option').evaluateAll((options) =>
      options
        .map((option) => option as unknown as { hidden: boolean; text: string })
        .filter((option) => !option.hidden)
        .map((option) => option.text),
    );
    expect(offered.filter((label) => label === 'Any region')).toHaveLength(1);
    expect(offered.length).toBeGreaterThan(1);
    await shot('search-builder');
    await modal.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('#modal-layer').waitFor({ state: 'hidden' });

    await page.locator('#dm-link').click();
    const hint = page.locator('.message', { hasText: 'Your search, as a command' }).last();
    await hint.waitFor();
    await expect(hint.textContent()).resolves.toContain(
      '/tender search pressure care buyer:"NHS Supply Chain"',
    );
    expect(value).toMatch(/^[0-9a-f-]{36}$/);
    const results = page.locator('.message', { hasText: 'Tenders matching “pressure care”' }).last();
    await results.waitFor();
    await results.getByText(NHS_TITLE).first().waitFor();
    await shot('search-builder-answer');
  });

  it('starts a comment on a tender from a message, with the message quoted', async () => {
    await openChannel(page, 'C0BIDS');
    const message = page.locator('.message', { hasText: 'Worth a bid?' }).last();
    await message.waitFor();
    await message.hover();
    await message.locator('.message-more').click();
    await message.getByRole('button', { name: 'Comment on a tender' }).click();
    const modal = page.locator('#modal');
    const box = modal.locator('[data-action-id="comment/text"]');
    await box.waitFor();
    await expect(modal.textContent()).resolves.toContain(NHS_TITLE);
    await expect(box.inputValue()).resolves.toBe(`> Worth a bid? ${CF_LINK}\n\n`);
    await box.fill(`${await box.inputValue()}Site visit is on Tuesday; who can go?`);
    await shot('comment-from-message');
    await modal.getByRole('button', { name: 'Post comment' }).click();
    await page.locator('#modal-layer').waitFor({ state: 'hidden' });
    // Posted: the tender's thread shows it, under the person who wrote it.
    await type('/tender comments ocds-b5fd17-2c0cffc3-8ce5-4dcf-b9ee-478aa5a4572c');
    const thread = page.locator('.message', { hasText: 'Site visit is on Tuesday; who can go?' }).last();
    await thread.waitFor();
    await expect(thread.textContent()).resolves.toContain('Worth a bid?');
    await shot('comment-posted');
    expect(problems).toEqual([]);
  });

  it('greets a channel once when Tenderbot is added, and not again after it is removed and added back', async () => {
    await openChannel(page, 'C0GENERAL');
    await page.getByRole('button', { name: 'Remove Tenderbot' }).click();
    await page.getByRole('button', { name: 'Add Tenderbot to this channel' }).click();
    const welcome = page.locator('.message', { hasText: 'Hello, I’m Tenderbot' });
    await welcome.waitFor();
    await welcome.getByText('Three things to try').waitFor();
    await expect(welcome.getByRole('button', { name: 'Search tenders' }).count()).resolves.toBe(1);
    await shot('welcome');
    await page.getByRole('button', { name: 'Remove Tenderbot' }).click();
    await page.getByRole('button', { name: 'Add Tenderbot to this channel' }).click();
    await page.getByRole('button', { name: 'Remove Tenderbot' }).waitFor();
    // The app has answered the event once the page shows it back in; a second welcome would be there by now.
    await type('/tender help');
    await page.locator('.message.ephemeral', { hasText: 'Tenderbot' }).last().waitFor();
    await expect(welcome.count()).resolves.toBe(1);
    expect(problems).toEqual([]);
  });
});
