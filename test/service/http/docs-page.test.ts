import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, launchChromium } from '../../support/browser.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

let sandbox: TestSandbox;
let browser: Browser;
beforeAll(async () => {
  sandbox = await startTestSandbox({ demo: 700 });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await sandbox?.stop();
});

describe('/docs in a browser', () => {
  it('shows every endpoint from local files only, and keeps a screenshot', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 2400 } });
    const outside: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(sandbox.baseUrl) && !request.url().startsWith('data:'))
        outside.push(request.url());
    });
    await page.goto(`${sandbox.baseUrl}/docs`);
    await page.waitForSelector('.opblock', { timeout: 15_000 });
    const operations = await page.$$eval('.opblock-summary-path', (nodes) =>
      nodes.map((node) => (node.getAttribute('data-path') ?? node.textContent ?? '').replace(/\u200b/g, '')),
    );
    for (const path of [
      '/v1/tenders',
      '/v1/tenders/{id}',
      '/v1/buyers/{id}',
      '/v1/suppliers',
      '/v1/frameworks/{id}',
      '/v1/bookmarks/{id}',
      '/v1/saved-searches',
      '/v1/comments/{id}',
      '/v1/pipelines/{id}/stages/{stageId}',
      '/v1/pipelines/{id}/archive',
    ]) {
      expect(operations).toContain(path);
    }
    expect(await page.textContent('.title')).toContain('Procurement Intelligence Service API');
    const screenshot = join(ARTIFACTS_DIR, 'docs-page.png');
    await page.screenshot({ path: screenshot, fullPage: false });
    expect(existsSync(screenshot)).toBe(true);
    expect(outside).toEqual([]);
  });
});
