import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page, Route } from 'playwright-core';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, launchChromium } from '../support/browser.ts';
import { startWorkbenchProcess, type WorkbenchProcess } from '../support/workbench.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-workbench-'));
let workbench: WorkbenchProcess;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  // As a person runs it: `tenderbot start` (what `npm start` runs) with no Slack credentials.
  workbench = await startWorkbenchProcess(dir);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  await page.goto(workbench.url);
  await page.locator('#channels .channel-link').first().waitFor();
  expect(problems).toEqual([]);
});

// A failed step says what the page showed and what the processes said, not only that it waited.
afterEach(async ({ task }) => {
  if (task.result?.state !== 'fail') return;
  const shown = await page
    .locator('#messages .message')
    .allInnerTexts()
    .catch((error: unknown) => [`(page unreadable: ${String(error)})`]);
  console.error(
    `${task.name} failed. The page showed:\n${shown.slice(-8).join('\n---\n')}\n\nThe last output of tenderbot start:\n${workbench.output().slice(-4000)}`,
  );
});

afterAll(async () => {
  await browser?.close();
  await workbench?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Switches person and opens #bids, then waits until the page shows #bids as that person. */
async function actAs(userId: string) {
  await page.selectOption('#user-switcher', userId);
  await page.locator('.channel-link[data-channel="C0BIDS"]').click();
  await page
    .locator(`#messages[data-channel="C0BIDS"][data-user="${userId}"]`)
    .waitFor({ state: 'attached' });
}

async function type(text: string) {
  await page.fill('#composer', text);
  await page.press('#composer', 'Enter');
}

/** The newest message only this person sees, once it contains `text`. */
function latestEphemeral(text: string) {
  return page.locator('.message.ephemeral', { hasText: text }).last();
}

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS_DIR, `workbench-${name}.png`) });

describe('the channel list', () => {
  it('keeps its links between polls and across a person switch, so a click on one is never lost', async () => {
    await actAs('U0ADMIN');
    const link = await page.locator('.channel-link[data-channel="C0GENERAL"]').elementHandle();
    if (!link) throw new Error('no link to #general');
    // The page asks for the state twice a second: a few polls, then a person switch.
    await page.waitForTimeout(1_600);
    await page.selectOption('#user-switcher', 'U0MEMBER');
    await page.locator('#messages[data-user="U0MEMBER"]').waitFor({ state: 'attached' });
    await page.waitForTimeout(1_100);
    expect(await link.evaluate((node) => node.isConnected)).toBe(true);
    // The same link, clicked now, opens its channel.
    await link.click();
    await page
      .locator('#messages[data-channel="C0GENERAL"][data-user="U0MEMBER"]')
      .waitFor({ state: 'attached' });
    await expect(page.locator('.channel-link.active').innerText()).resolves.toBe('# general');
    await page.selectOption('#user-switcher', 'U0ADMIN');
  });

  it('shows the person switched to, when an answer asked as the person before lands after the switch', async () => {
    await actAs('U0MEMBER');
    // The admin's answers come late, the member's soon: a poll sent as the member before the
    // switch lands first. Both see the same messages in #bids, so only whose view it is differs.
    const delayed = async (route: Route) => {
      const asAdmin = new URL(route.request().url()).searchParams.get('user') === 'U0ADMIN';
      await new Promise((resolve) => setTimeout(resolve, asAdmin ? 900 : 300));
      await route.continue().catch(() => undefined);
    };
    await page.route('**/workbench/state?*', delayed);
    try {
      await page.waitForTimeout(400);
      await page.selectOption('#user-switcher', 'U0ADMIN');
      await page.locator('#messages[data-user="U0ADMIN"]').waitFor({ state: 'attached', timeout: 10_000 });
      // Later polls keep it so.
      await page.waitForTimeout(1_500);
      await expect(page.locator('#messages').getAttribute('data-user')).resolves.toBe('U0ADMIN');
    } finally {
      await page.unroute('**/workbench/state?*', delayed);
    }
  });
});

describe('messages already drawn', () => {
  it('stay the same elements when another message arrives, so a button being clicked is still there', async () => {
    await actAs('U0ADMIN');
    // In #general: the tests after this one read the newest answers in #bids.
    await page.locator('.channel-link[data-channel="C0GENERAL"]').click();
    await page.locator('#messages[data-channel="C0GENERAL"]').waitFor({ state: 'attached' });
    await type('/tender search cleaning');
    const results = latestEphemeral('Tenders matching “cleaning”');
    await results.waitFor();
    const next = await results.getByRole('button', { name: 'Next' }).elementHandle();
    if (!next) throw new Error('no Next button');
    await type('/tender help');
    await latestEphemeral('/tender search').waitFor();
    await page.waitForTimeout(1_100);
    expect(await next.evaluate((node) => node.isConnected)).toBe(true);
    await next.click();
    await page.locator('.message.ephemeral', { hasText: '6–10 of' }).waitFor();
  });
});

describe('the workbench page, as an admin', () => {
  it('searches, pages, shares and bookmarks', async () => {
    await actAs('U0ADMIN');
    await type('/tender search cleaning');
    const results = latestEphemeral('Tenders matching “cleaning”');
    await results.waitFor();
    await expect(results.locator('.ephemeral-note').textContent()).resolves.toBe('Only visible to you');
    await expect(results.locator('.bk-text').first().textContent()).resolves.toMatch(/1–5 of \d+/);

    await results.getByRole('button', { name: 'Next' }).click();
    await page.locator('.message.ephemeral', { hasText: '6–10 of' }).waitFor();

    const paged = latestEphemeral('6–10 of');
    await paged.getByRole('button', { name: 'Share in channel' }).first().click();
    const shared = page.locator('.message:not(.ephemeral)', { hasText: 'Shared by @Ada Admin' }).last();
    await shared.waitFor();
    await expect(shared.getByRole('button', { name: 'Share in channel' }).count()).resolves.toBe(0);

    await paged.getByRole('button', { name: 'Bookmark', exact: true }).first().click();
    await paged.getByRole('button', { name: 'Remove bookmark' }).first().waitFor();
    await shot('admin-search');
  });

  it('connects a key in the modal: a wrong one is refused on the field, the right one is saved', async () => {
    // A bookmark made before connecting stays in sight: the printed key is the same person's as
    // the one the workbench used until then (bookmarks and bids are seen per key's maker).
    // This search's own answer: the earlier test's answers carry the same heading.
    const answers = page.locator('.message.ephemeral', { hasText: 'Tenders matching “cleaning”' });
    const before = await answers.count();
    await type('/tender search cleaning');
    const found = answers.nth(before);
    await found.waitFor();
    await found.getByRole('button', { name: 'Bookmark', exact: true }).first().click();
    await found.getByRole('button', { name: 'Remove bookmark' }).first().waitFor();
    await type('/tender connect');
    const modal = page.locator('#modal');
    await modal.getByRole('heading', { name: 'Connect Tenderbot' }).waitFor();
    await modal
      .locator('[data-action-id="connect/key"]')
      .fill('pis_wrong_0123456789abcdefghijklmnopqrstuvwx');
    await modal.getByRole('button', { name: 'Connect' }).click();
    await modal.locator('.bk-error', { hasText: 'does not recognise this key' }).waitFor();
    await shot('connect-wrong-key');

    await modal.locator('[data-action-id="connect/key"]').fill(workbench.keyToConnect);
    await modal.getByRole('button', { name: 'Connect' }).click();
    await page.locator('#modal-layer').waitFor({ state: 'hidden' });
    await latestEphemeral('Connected.').waitFor();
    expect(await latestEphemeral('Connected.').textContent()).not.toMatch(
      /bookmark list has changed|not seen/,
    );
    await shot('connected');
  });

  it('shows the App Home tab with the connection and the commands', async () => {
    await page.locator('#home-link').click();
    const home = page.locator('#home');
    await home.getByText('Connected with this workspace’s own key').waitFor();
    await expect(home.textContent()).resolves.toContain('/tender search');
    await expect(home.getByRole('button', { name: 'Connect an API key' }).count()).resolves.toBe(1);
    await shot('home-admin');
  });
});

describe('the workbench page, as a member', () => {
  it('searches, pages, shares and bookmarks', async () => {
    await actAs('U0MEMBER');
    await type('/tender search software');
    const results = latestEphemeral('Tenders matching “software”');
    await results.waitFor();
    await results.getByRole('button', { name: 'Next' }).click();
    const paged = page.locator('.message.ephemeral', { hasText: '“software” · 6–10 of' }).last();
    await paged.waitFor();
    await paged.getByRole('button', { name: 'Share in channel' }).first().click();
    await page.locator('.message:not(.ephemeral)', { hasText: 'Shared by @Max Member' }).last().waitFor();
    await paged.getByRole('button', { name: 'Bookmark', exact: true }).first().click();
    await paged.getByRole('button', { name: 'Remove bookmark' }).first().waitFor();
    await shot('member-search');
  });

  it('is refused /tender connect, and the Home tab offers no connect button', async () => {
    await type('/tender connect');
    await latestEphemeral('Only a workspace owner or admin').waitFor();
    await page.locator('#home-link').click();
    await page.locator('#home').getByText('Connected with this workspace’s own key').waitFor();
    await expect(
      page.locator('#home').getByRole('button', { name: 'Connect an API key' }).count(),
    ).resolves.toBe(0);
    await shot('home-member');
  });
});

describe('the workbench page, as a guest', () => {
  it('reads search results, which carry no button a guest may not use', async () => {
    await actAs('U0GUEST');
    await type('/tender search cleaning');
    const results = latestEphemeral('Tenders matching “cleaning”');
    await results.waitFor();
    for (const name of ['Bookmark', 'Share in channel', 'Start a bid'])
      expect(await results.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    await results.getByRole('button', { name: 'Next' }).click();
    await page.locator('.message.ephemeral', { hasText: '“cleaning” · 6–10 of' }).last().waitFor();
    await shot('guest-refused');
  });

  it('cannot open the connect modal, and sees the Home tab without a connect button', async () => {
    await page.locator('.channel-link[data-channel="C0BIDS"]').click();
    await type('/tender connect');
    await latestEphemeral('Only a workspace owner or admin').waitFor();
    await expect(page.locator('#modal-layer').isHidden()).resolves.toBe(true);
    await page.locator('#home-link').click();
    await page.locator('#home').getByText('/tender search').first().waitFor();
    await expect(
      page.locator('#home').getByRole('button', { name: 'Connect an API key' }).count(),
    ).resolves.toBe(0);
    await shot('home-guest');
  });
});

describe('the page renders Slack mrkdwn', () => {
  it('formats text, mentions and links, and shows escaped control characters as text', async () => {
    // A string, so that the test runner does not rewrite the page's own dynamic import.
    const html = await page.evaluate(`import('/block-kit.js').then(({ renderMrkdwn }) => renderMrkdwn(
      '*bold* _italic_ ~gone~ \`code\` <@U0ADMIN> <#C0BIDS> <https://example.org|a link> &lt;!channel&gt; <script> :white_check_mark: :no_such_emoji: 12:00:00',
      { names: { U0ADMIN: 'Ada Admin' }, channelNames: { C0BIDS: 'bids' } }))`);
    expect(html).toContain('<b>bold</b>');
    expect(html).toContain('<i>italic</i>');
    expect(html).toContain('<s>gone</s>');
    expect(html).toContain('<code>code</code>');
    expect(html).toContain('<span class="mention">@Ada Admin</span>');
    expect(html).toContain('<span class="mention">#bids</span>');
    expect(html).toContain(
      '<a href="https://example.org" target="_blank" rel="noopener noreferrer">a link</a>',
    );
    expect(html).toContain('&lt;!channel&gt;');
    expect(html).not.toContain('<script>');
    expect(html).toContain('✅ :no_such_emoji: 12:00:00');
  });
});

describe('the workbench answers its own page only', () => {
  it('ignores a form that another site posts to it as the admin', async () => {
    const marker = `forged-${Date.now()}`;
    // enctype="text/plain" sends `name=value`: this name and value make the body read as JSON.
    const field = JSON.stringify({ user: 'U0ADMIN', channel: 'C0BIDS', text: marker, x: '' }).slice(0, -2);
    const attackerSite = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        `<form id="f" method="post" enctype="text/plain" action="${workbench.url}workbench/command">` +
          `<input name='${field}' value='"}'></form><script>document.getElementById('f').submit()</script>`,
      );
    });
    await new Promise<void>((listening) => attackerSite.listen(0, '127.0.0.1', listening));
    const { port } = attackerSite.address() as AddressInfo;
    const attacker = await browser.newPage();
    try {
      // localhost and 127.0.0.1 are different sites to the browser, as evil.example would be.
      const answered = attacker.waitForResponse((response) => response.url().endsWith('/workbench/command'));
      await attacker.goto(`http://localhost:${port}/`);
      const answer = await answered;
      expect(answer.status()).toBe(403);
      await attacker.screenshot({ path: join(ARTIFACTS_DIR, 'workbench-cross-site-refused.png') });
    } finally {
      await attacker.close();
      attackerSite.close();
    }
    const state = await request(`${workbench.url}workbench/state?user=U0ADMIN&channel=C0BIDS`);
    const { messages } = (await state.body.json()) as { messages: { text: string }[] };
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.filter((message) => message.text === marker)).toEqual([]);
  });
});
