import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, launchChromium } from '../support/browser.ts';
import { startWorkbenchProcess, type WorkbenchProcess } from '../support/workbench.ts';

// The workbench's Workflows page, in a browser, against `tenderbot start` as a newcomer runs it:
// a step is picked, its inputs filled, run through the real app, and its outputs read.
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-workflows-'));
let workbench: WorkbenchProcess;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  workbench = await startWorkbenchProcess(dir);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
}, 90_000);

afterEach(async ({ task }) => {
  if (task.result?.state !== 'fail') return;
  const shown = await page
    .locator('#main')
    .innerText()
    .catch((error: unknown) => `(page unreadable: ${String(error)})`);
  console.error(
    `${task.name} failed. The page showed:\n${shown}\n\nOutput:\n${workbench.output().slice(-3000)}`,
  );
});

afterAll(async () => {
  await browser?.close();
  await workbench?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS_DIR, `workflows-${name}.png`) });

/** Runs the chosen step with its form as filled, and waits for the result of this run. */
async function runStep(button = 'Run step'): Promise<void> {
  const before = (await page.locator('#result').getAttribute('data-run')) ?? '0';
  await page.getByRole('button', { name: button }).click();
  await page.locator(`#result[data-run="${Number(before) + 1}"]`).waitFor();
}

const output = (title: string) => page.locator('#outputs tr', { hasText: title }).locator('td');

describe('the Workflows page', () => {
  it('lists the app’s steps with a form built from each one’s inputs', async () => {
    await page.goto(new URL('/workflows', workbench.url).toString());
    await page.locator('.step-link').first().waitFor();
    await expect(page.locator('.step-link').allInnerTexts()).resolves.toEqual([
      'Find new tenders',
      'Start a bid from a tender',
      "Move a bid's stage",
      "Post a bid's summary to a channel",
      'Ask someone to qualify a tender',
    ]);
    await expect(page.locator('#step-title').textContent()).resolves.toBe('Find new tenders');
    // People are picked from the workspace, as Workflow Builder offers them.
    await expect(page.locator('#input-user_context option').allInnerTexts()).resolves.toContain(
      'Ada Admin (U0ADMIN)',
    );
    expect(problems).toEqual([]);
  });

  it('fails a step with a sentence the workflow’s author can act on', async () => {
    await page.fill('#input-words', 'cleaning');
    await page.fill('#input-published_within_days', '3650');
    await runStep();
    await expect(page.locator('#result-heading').textContent()).resolves.toBe('Failed');
    await expect(page.locator('#result-sentence').textContent()).resolves.toBe(
      '“Published within days” must be a whole number from 1 to 365.',
    );
    await shot('failed');
  });

  it('finds new tenders and shows the outputs the next step gets', async () => {
    await page.fill('#input-published_within_days', '365');
    await page.selectOption('#input-user_context', 'U0MEMBER');
    await runStep();
    await expect(page.locator('#result-heading').textContent()).resolves.toBe('Completed');
    const count = Number(await output('How many').textContent());
    expect(count).toBeGreaterThan(0);
    await expect(output('Tenders').textContent()).resolves.toMatch(/^• /);
    await shot('find-new-tenders');
  });

  it('starts one bid from a tender, however often the step is run again', async () => {
    const tenderId = (await output('First tender').textContent()) ?? '';
    expect(tenderId).not.toBe('');
    await page.locator('.step-link', { hasText: 'Start a bid from a tender' }).click();
    const name = `Workbench bid ${Date.now()}`;
    await page.fill('#input-tender', tenderId);
    await page.fill('#input-name', name);
    await page.selectOption('#input-user_context', 'U0MEMBER');
    await runStep();
    await expect(page.locator('#result-heading').textContent()).resolves.toBe('Completed');
    const reference = (await output('Bid reference').textContent()) ?? '';
    // People read the bid's printed reference; the next step may chain on its id.
    expect(reference).toMatch(/^BID-\d+$/);
    const bidId = (await output('Bid id').textContent()) ?? '';
    expect(bidId).toMatch(/^[0-9a-f-]{36}$/);
    await expect(output('Bid link').textContent()).resolves.toContain(`/v1/pipelines/${bidId}`);
    const execution = await page.locator('#result-execution').textContent();

    // Slack runs the same execution again: the page shows the same bid, and the app made no other.
    await runStep('Run it again, as Slack does when it hears no answer');
    await expect(page.locator('#result-heading').textContent()).resolves.toBe('Completed');
    await expect(page.locator('#result-execution').textContent()).resolves.toBe(execution);
    await expect(output('Bid reference').textContent()).resolves.toBe(reference);
    await shot('start-bid');
    expect(problems).toEqual([]);
  });
});
