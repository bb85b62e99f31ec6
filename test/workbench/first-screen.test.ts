import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, launchChromium, openChannel } from '../support/browser.ts';
import { startWorkbenchProcess, type WorkbenchProcess } from '../support/workbench.ts';

/**
 * What a newcomer meets after `npm start`: Tenderbot's welcome in #general, no workspace controls
 * with one workspace, `/invite @Tenderbot` and `/remove` as in Slack, new cards brought into view,
 * an old `?team=` address still working, and a restart that says hello again.
 */
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-first-screen-'));
const data = join(dir, 'data');
let workbench: WorkbenchProcess;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  workbench = await startWorkbenchProcess(data, ['--demo', '300']);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await workbench?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS_DIR, `first-screen-${name}.png`) });
const welcome = () => page.locator('#messages .message', { hasText: 'Three things to try' });

/** Elements the page hid (the `hidden` attribute) that are drawn all the same: none, whatever CSS says. */
function hiddenButShown(): Promise<string[]> {
  // Run in the page (a string: the tests are compiled without the browser's types).
  return page.evaluate<string[]>(`[...document.querySelectorAll('[hidden]')]
    .filter((element) => element.getClientRects().length > 0 || getComputedStyle(element).display !== 'none')
    .map((element) => element.id || element.className || element.tagName)`);
}

async function type(text: string): Promise<void> {
  await page.fill('#composer', text);
  await page.press('#composer', 'Enter');
}

describe('the first screen', () => {
  it('is #general with Tenderbot’s welcome and three things to try, and no workspace controls', async () => {
    await page.goto(workbench.url);
    await welcome().waitFor();
    expect(await page.locator('#messages').getAttribute('data-channel')).toBe('C0GENERAL');
    expect(await page.locator('.channel-link.active').innerText()).toBe('# general');
    const text = await welcome().innerText();
    expect(text).toContain('Hello, I’m Tenderbot');
    expect(text.match(/^• /gm)?.length).toBe(3);
    expect(await welcome().locator('.author').innerText()).toBe('Tenderbot');
    // One workspace: no switch between workspaces, no "Add Tenderbot", no "not installed".
    for (const id of ['#workspace-choice', '#install-link', '#not-installed'])
      expect(await page.locator(id).isVisible(), id).toBe(false);
    expect(await hiddenButShown()).toEqual([]);
    await shot('1-welcome');
  });

  it('hides what it hides in every view: Home, Messages, a modal and its closing', async () => {
    await page.locator('#home-link').click();
    await page.locator('#home .bk-section').first().waitFor();
    expect(await page.locator('#composer-form').isVisible()).toBe(false);
    expect(await hiddenButShown()).toEqual([]);
    await page.locator('#dm-link').click();
    await page.locator('#messages[data-channel="DU0ADMIN"]').waitFor({ state: 'attached' });
    expect(await hiddenButShown()).toEqual([]);
    await openChannel(page, 'C0BIDS');
    await type('/tender connect');
    await page.locator('#modal', { hasText: 'Connect Tenderbot' }).waitFor();
    await page.keyboard.press('Escape');
    await page.locator('#modal-layer').waitFor({ state: 'hidden' });
    expect(await hiddenButShown()).toEqual([]);
    // A phone-sized window, where other display rules apply.
    await page.setViewportSize({ width: 480, height: 800 });
    expect(await page.locator('#install-link').isVisible()).toBe(false);
    expect(await hiddenButShown()).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('takes /remove @Tenderbot and /invite @Tenderbot as Slack does', async () => {
    await openChannel(page, 'C0BIDS');
    await type('/remove @Tenderbot');
    await page.locator('.message.ephemeral', { hasText: 'You removed Tenderbot from #bids' }).waitFor();
    await page.locator('#app-membership', { hasText: 'Add Tenderbot to this channel' }).waitFor();
    await type('/invite @Tenderbot');
    await page.locator('.message.ephemeral', { hasText: 'You added Tenderbot to #bids' }).waitFor();
    await page.locator('#app-membership', { hasText: 'Remove Tenderbot' }).waitFor();
    // Tenderbot joins as when it is added from the channel's menu: its welcome, once.
    await welcome().waitFor();
    expect(await page.getByText('is not a valid command').count()).toBe(0);
    await shot('2-invite');
  });

  it('brings a new card into view, wherever the person had scrolled to', async () => {
    for (let line = 1; line <= 30; line++) await type(`line ${line} of an old conversation`);
    await page.locator('.message', { hasText: 'line 30 of an old conversation' }).waitFor();
    await page.locator('#messages').evaluate((list) => {
      list.scrollTop = 0;
    });
    await page.waitForTimeout(700);
    expect(await page.locator('.message', { hasText: 'line 30 of' }).isVisible()).toBe(true);
    await type('/tender search cleaning');
    const results = page.locator('.message.ephemeral', { hasText: 'Tenders matching “cleaning”' }).last();
    await results.waitFor();
    await expect.poll(() => inView(results.locator('.bk-header, .bk-section').first())).toBe(true);
    await shot('3-new-card-in-view');
  });

  it('shows the answer to a sentence in a long direct message, not only the question', async () => {
    await page.locator('#dm-link').click();
    await page.locator('#messages[data-channel="DU0ADMIN"]').waitFor({ state: 'attached' });
    // A conversation taller than the window: each answer a search's cards.
    for (const sentence of ['cleaning', 'software', 'catering']) {
      await type(sentence);
      await page
        .locator('.message', { hasText: `Tenders matching “${sentence}”` })
        .last()
        .waitFor();
    }
    // The page is given the conversation only once the answer is in it, so the question and its
    // answer are drawn together (as when the answer comes within one of the page's polls).
    let answered = false;
    const late = async (route: Route) => {
      while (!answered) await new Promise((resolve) => setTimeout(resolve, 50));
      await route.continue().catch(() => undefined);
    };
    await page.route('**/workbench/state*', late);
    await type('roads closing 31/02/2027');
    const conversation = `${workbench.url}workbench/state?team=T0TENDER&user=U0ADMIN&channel=DU0ADMIN`;
    for (let tries = 0; !answered && tries < 200; tries++) {
      answered = (await (await fetch(conversation)).text()).includes('is not a day the calendar has');
      if (!answered) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(answered).toBe(true);
    const answer = page.locator('.message', { hasText: 'is not a day the calendar has' }).last();
    await answer.waitFor();
    await page.unroute('**/workbench/state*', late);
    await expect.poll(() => inView(answer.locator('.bk-section').last())).toBe(true);
    await shot('4-answer-in-view');
  });

  it('shows the first workspace for an address of a workspace no longer here', async () => {
    await page.goto(`${workbench.url}?team=T0GONE`);
    await welcome().waitFor();
    expect(await page.locator('#workspace-name').innerText()).toBe('Tenderbot Fake');
    await page.waitForURL(/\?team=T0TENDER$/);
    expect(problems).toEqual([]);
  });

  it('says hello again in #general after a restart: the channels are new, the app’s memory of them goes, subscriptions stay', async () => {
    await page.goto(workbench.url);
    await openChannel(page, 'C0BIDS');
    await type('/tender subscribe search cleaning daily');
    await page.locator('.message:not(.ephemeral)', { hasText: 'subscribed this channel' }).last().waitFor();
    // Nothing polls while the workbench is down (a poll failing late was counted as a problem).
    await page.goto('about:blank');
    await workbench.stop();
    workbench = await startWorkbenchProcess(data, ['--demo', '300']);
    expect(workbench.output()).toMatch(
      /a key to paste into \/tender connect: pis_\S+ \(new at every start\)/,
    );
    problems.length = 0;
    await page.goto(workbench.url);
    await welcome().waitFor();
    expect(await page.locator('#messages .message').count()).toBe(1);
    // #bids is empty again, but its subscription is still there.
    await openChannel(page, 'C0BIDS');
    expect(await page.getByText('subscribed this channel').count()).toBe(0);
    await type('/tender subscriptions');
    const list = page.locator('.message.ephemeral', { hasText: 'Subscriptions of' }).last();
    await list.waitFor();
    expect(await list.innerText()).toContain('cleaning');
    expect(problems).toEqual([]);
  }, 90_000);
});

/** Whether a part of the page is inside the visible part of the messages. */
async function inView(locator: ReturnType<Page['locator']>): Promise<boolean> {
  const box = await locator.boundingBox();
  const list = await page.locator('#messages').boundingBox();
  if (!box || !list) return false;
  return box.y >= list.y - 1 && box.y < list.y + list.height;
}
