import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, launchChromium, openChannel } from '../support/browser.ts';
import { startWorkbenchProcess, type WorkbenchProcess } from '../support/workbench.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-workbench-subscriptions-'));
let workbench: WorkbenchProcess;
let browser: Browser;
let page: Page;
let pipelineId: string;

beforeAll(async () => {
  workbench = await startWorkbenchProcess(dir);
  // The demo bid's id, as `/tender pipelines` would show it.
  const answer = await request(`${workbench.serviceUrl}/v1/pipelines`, {
    headers: { authorization: `Bearer ${workbench.keyToConnect}` },
  });
  pipelineId = ((await answer.body.json()) as { data: { id: string }[] }).data[0]?.id as string;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await page.goto(workbench.url);
  await page.locator('#channels .channel-link').first().waitFor();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await workbench?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function type(text: string) {
  await page.fill('#composer', text);
  await page.press('#composer', 'Enter');
}

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS_DIR, `subscriptions-${name}.png`) });

describe('channel subscriptions in the workbench', () => {
  it('subscribes a channel by command, then Send now posts the summary into it', async () => {
    await page.selectOption('#user-switcher', 'U0MEMBER');
    await openChannel(page, 'C0BIDS');
    await type(`/tender subscribe pipeline ${pipelineId} daily 09:00`);
    const confirmation = page
      .locator('.message:not(.ephemeral)', { hasText: 'subscribed this channel' })
      .last();
    await confirmation.waitFor();
    await expect(confirmation.textContent()).resolves.toContain('Example bid: facilities cleaning');
    await expect(confirmation.textContent()).resolves.toContain('daily at 09:00');
    await shot('subscribed');

    await type('/tender subscriptions');
    const list = page.locator('.message.ephemeral', { hasText: 'Subscriptions of' }).last();
    await list.waitFor();
    await expect(list.textContent()).resolves.toContain('Next post');
    await list.getByRole('button', { name: 'Send now' }).first().click();
    await page.locator('.message.ephemeral', { hasText: 'Posting summaries of the bid' }).last().waitFor();
    // The scheduler in the app posts it, on its own timer.
    const summary = page
      .locator('.message:not(.ephemeral)', { hasText: 'Changes since the last summary' })
      .last();
    await summary.waitFor({ timeout: 15_000 });
    const text = (await summary.textContent()) ?? '';
    expect(text).toContain('Example bid: facilities cleaning');
    expect(text).toContain('This is the first summary');
    expect(text).toContain('Progress');
    await summary.scrollIntoViewIfNeeded();
    await shot('send-now');
  });
});
