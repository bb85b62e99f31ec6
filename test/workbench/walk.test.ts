import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_BUILDER_FIELDS } from '../../src/app/shared/ids.ts';
import { type RunningWorkbench, startWorkbench } from '../../src/cli/start-workbench.ts';
import { ARTIFACTS_DIR, launchChromium, openChannel } from '../support/browser.ts';
import { jargonIn, textsPeopleRead } from '../support/workbench.ts';

// Every command and every button, walked in the page as a member and as a guest (the admin only
// for connecting and disconnecting), with a picture of each answer in test-artifacts/walk/.
// The workbench runs in this process (what `npm start` composes) so that, at the end, every
// message, window and Home tab the fake Slack received can be read for words a bid lead would
// not understand.
const WALK_DIR = join(ARTIFACTS_DIR, 'walk');

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-walk-'));
let workbench: RunningWorkbench;
let browser: Browser;
let page: Page;
let pipelineId: string;
let tenderId = '';
const problems: string[] = [];
/** What each confirm dialog said (the browser draws them; a picture cannot show them). */
const dialogs: string[] = [];
let shotNumber = 0;

beforeAll(async () => {
  rmSync(WALK_DIR, { recursive: true, force: true });
  mkdirSync(WALK_DIR, { recursive: true });
  workbench = await startWorkbench({ dataDir: dir, port: 0, servicePort: 0, botPort: 0, demo: 400 });
  const answer = await request(`${workbench.serviceUrl}/v1/pipelines`, {
    headers: { authorization: `Bearer ${workbench.keyToConnect}` },
  });
  pipelineId = ((await answer.body.json()) as { data: { id: string }[] }).data[0]?.id as string;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.setDefaultTimeout(8_000);
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  // Confirm dialogs (Remove the bookmark?, Archive this bid?) are accepted, as a person would.
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    return dialog.accept();
  });
  // "Open original" opens the notice in a new tab: closed at once (no network here).
  page.context().on('page', (opened) => opened.close());
  await page.goto(workbench.url);
  await page.locator('#channels .channel-link').first().waitFor();
}, 60_000);

// A step that fails leaves a picture of the page behind, to see why.
afterEach(async (test) => {
  if (test.task.result?.state === 'fail')
    await page.screenshot({
      path: join(WALK_DIR, `failed-${test.task.name.slice(0, 40).replace(/\W+/g, '-')}.png`),
    });
});

afterAll(async () => {
  // A page to look through the pictures in order: test-artifacts/walk/index.html.
  const figures = readdirSync(WALK_DIR)
    .filter((name) => name.endsWith('.png'))
    .sort()
    .map(
      (name) =>
        `<figure><figcaption>${name.replace(/\.png$/, '')}</figcaption><img src="${name}" width="900"></figure>`,
    );
  writeFileSync(join(WALK_DIR, 'dialogs.txt'), `${dialogs.join('\n\n---\n\n')}\n`);
  writeFileSync(
    join(WALK_DIR, 'index.html'),
    `<!doctype html><meta charset="utf-8"><title>Tenderbot walk</title><h1>Every command and button, as a member and as a guest</h1>${figures.join('\n')}\n`,
  );
  await browser?.close();
  await workbench?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Whatever the fake Slack holds that could change what the person sees. */
function slackSignature(): string {
  const { slack } = workbench;
  const last = slack.messages.at(-1);
  return `${slack.calls.length}|${slack.messages.length}|${last?.ts}|${last?.text.length}|${slack.views.size}`;
}

/** What the fake Slack held when the last picture was taken: the next one waits for news. */
let seen = '';

/**
 * Waits until the app has answered (something new at the fake Slack since the last picture, then
 * nothing new for a moment) and the page has drawn that state, then shows the newest messages.
 */
async function settled(): Promise<void> {
  // A click the app answers with nothing (Open original) changes nothing: wait a little only.
  const deadline = Date.now() + 2_500;
  let signature = slackSignature();
  while (signature === seen && Date.now() < deadline) {
    await new Promise((tick) => setTimeout(tick, 25));
    signature = slackSignature();
  }
  let quietSince = Date.now();
  const quietDeadline = quietSince + 5_000;
  while (Date.now() - quietSince < 150 && Date.now() < quietDeadline) {
    await new Promise((tick) => setTimeout(tick, 25));
    const now = slackSignature();
    if (now !== signature) {
      signature = now;
      quietSince = Date.now();
    }
  }
  seen = signature;
  // A string, so that it runs in the page as written (the page's refresh, not a Node function).
  await page.evaluate('window.workbench.refresh()');
  await page.locator('#messages').evaluate((list) => {
    list.scrollTop = list.scrollHeight;
    // An answer taller than the list is shown from its top, where it says what it is.
    const newest = list.lastElementChild as unknown as {
      offsetHeight: number;
      scrollIntoView(top: boolean): void;
    };
    if (newest && newest.offsetHeight > list.clientHeight) newest.scrollIntoView(true);
  });
}

/** A picture of the answer: test-artifacts/walk/<nn>-<who>-<what>.png; `focus` is scrolled into view. */
async function shot(who: string, what: string, focus?: Locator): Promise<void> {
  await settled();
  // The page draws everything the app sent: no block or element it does not know.
  await expect(page.locator('.bk-unknown').allTextContents()).resolves.toEqual([]);
  if (focus) await focus.scrollIntoViewIfNeeded();
  shotNumber++;
  await page.screenshot({
    path: join(WALK_DIR, `${String(shotNumber).padStart(2, '0')}-${who}-${what}.png`),
  });
}

async function actAs(userId: string): Promise<void> {
  await page.selectOption('#user-switcher', userId);
  await openChannel(page, 'C0BIDS');
  await page.locator('#main-title', { hasText: '# bids' }).waitFor();
}

async function type(text: string): Promise<void> {
  await page.fill('#composer', text);
  await page.press('#composer', 'Enter');
}

/** The newest message shown that contains `text`. */
function newest(text: string | RegExp): Locator {
  return page.locator('.message', { hasText: text }).last();
}

/** Waits for a sentence anywhere the person looks: messages, the Home tab or a modal. */
async function shown(text: string | RegExp): Promise<void> {
  await page
    .locator('#messages:visible, #home:visible, #modal-layer:visible #modal')
    .getByText(text)
    .first()
    .waitFor();
}

async function click(message: Locator, name: string): Promise<void> {
  await message.getByRole('button', { name, exact: true }).first().click();
}

/** Closes the open modal with its close button; nothing of it may stay on the page. */
async function closeModal(): Promise<void> {
  await page.locator('#modal .modal-buttons button').first().click();
  await page.locator('#modal-layer').waitFor({ state: 'hidden' });
  await expect(page.locator('#modal').innerHTML()).resolves.toBe('');
}

async function openModalNamed(title: string): Promise<void> {
  await page.locator('#modal').getByRole('heading', { name: title }).waitFor();
}

const PEOPLE = [
  { id: 'U0MEMBER', who: 'member', guest: false },
  { id: 'U0GUEST', who: 'guest', guest: true },
] as const;

describe('the browser walk: every command and button, as a member and as a guest', () => {
  for (const person of PEOPLE) {
    const { who, guest } = person;

    it(`${who}: help, search and every button of a search card`, async () => {
      await actAs(person.id);
      await type('/tender help');
      await shown('/tender search');
      await shot(who, 'help');
      // Each message shows its time, and its whole date on hover, as Slack does.
      const time = newest('finds public tenders').locator('time.time');
      await expect(time.textContent()).resolves.toMatch(/\d{1,2}:\d{2}/);
      await expect(time.getAttribute('title')).resolves.toMatch(/\d{4}/);

      // Slack itself refuses a command no app has; a capital letter still reaches Tenderbot.
      const answered = workbench.slack.callsOf('response_url').length;
      await type('/tendr search cleaning');
      const refusal = page.locator('.message.ephemeral', { hasText: 'is not a valid command' }).last();
      await refusal.waitFor();
      await expect(refusal.locator('.author').textContent()).resolves.toBe('Slackbot');
      expect(workbench.slack.callsOf('response_url').length).toBe(answered);
      await shot(who, 'unknown-command');
      const helpCards = page.locator('.message', { hasText: 'finds public tenders' });
      const before = await helpCards.count();
      await type('/Tender help');
      await expect.poll(() => helpCards.count()).toBe(before + 1);
      await shot(who, 'capital-command');

      await type('/tender search cleaning');
      const results = newest('Tenders matching “cleaning”');
      await results.waitFor();
      tenderId = (await results.locator('code').first().textContent()) ?? '';
      expect(tenderId).toMatch(/^ocds-/);
      await shot(who, 'search');

      await click(results, 'Next');
      await newest('“cleaning” · 6–10 of').waitFor();
      await shot(who, 'search-next');
      await click(newest('“cleaning” · 6–10 of'), 'Previous');
      await newest('“cleaning” · 1–5 of').waitFor();
      await shot(who, 'search-previous');

      const cards = newest('“cleaning” · 1–5 of');
      if (guest) {
        // A guest's own results carry no button a guest may not use.
        for (const name of ['Bookmark', 'Share in channel', 'Start a bid'])
          expect(await cards.getByRole('button', { name, exact: true }).count(), name).toBe(0);
        await shot(who, 'no-refused-buttons');
      } else {
        await click(cards, 'Bookmark');
        const removable = cards.getByRole('button', { name: 'Remove bookmark' }).first();
        await removable.waitFor();
        await shot(who, 'bookmark', removable);
        await click(cards, 'Remove bookmark');
        await expect.poll(() => cards.getByRole('button', { name: 'Remove bookmark' }).count()).toBe(0);
        await shot(who, 'remove-bookmark');
        await click(cards, 'Share in channel');
        await page.locator('.message:not(.ephemeral)', { hasText: 'Shared by' }).last().waitFor();
        await shot(who, 'share');
      }

      // The card shared in the channel: the member bookmarks it there, then the guest clicks the
      // same button. Each click has its own response_url, so the refusal reaches the guest alone.
      const sharedCard = page.locator('.message:not(.ephemeral)', { hasText: 'Shared by' }).last();
      if (guest) {
        // The member's bookmark shows on the card for everyone: the guest tries to remove it.
        await click(sharedCard, 'Remove bookmark');
        await newest('Guests can read tenders but cannot').waitFor();
        const refused = (text: string) => text.includes('Guests can read tenders but cannot');
        const refusals = workbench.slack.messages.filter(
          (message) => message.channel === 'C0BIDS' && refused(message.text),
        );
        expect(refusals.length).toBeGreaterThan(0);
        expect(refusals.every((message) => message.ephemeralTo === 'U0GUEST')).toBe(true);
        const carried = workbench.slack
          .callsOf('response_url')
          .filter((call) => refused(String(call.args.text ?? '')));
        expect(carried.length).toBeGreaterThan(0);
        expect(carried.map((call) => call.args.user)).toEqual(carried.map(() => 'U0GUEST'));
        expect(workbench.slack.messagesIn('C0BIDS', 'U0MEMBER').filter((m) => refused(m.text))).toEqual([]);
      } else {
        await click(sharedCard, 'Bookmark');
        await sharedCard.getByRole('button', { name: 'Remove bookmark' }).waitFor();
      }
      // The member's picture shows the card's new state; the guest's, the refusal below it.
      if (guest) await shot(who, 'channel-card-bookmark-refused');
      else await shot(who, 'channel-card-bookmark', sharedCard);

      const original = cards.getByRole('button', { name: 'Open original', exact: true });
      if ((await original.count()) > 0) {
        await original.first().click();
        await shot(who, 'open-original');
      }

      // What the person's own cards offer (a guest's carry fewer buttons).
      if ((await cards.getByRole('button', { name: 'Comment', exact: true }).count()) > 0) {
        await click(cards, 'Comment');
        await page.locator('#modal-layer:visible, .message.ephemeral').last().waitFor();
        await shot(who, 'comment');
        if (await page.locator('#modal-layer').isVisible()) await closeModal();
      }

      if (!guest) {
        await click(cards, 'Start a bid');
        await shot(who, 'start-a-bid');
        if (await page.locator('#modal-layer').isVisible()) await closeModal();
      }
      await expect(page.locator('#modal-layer').isHidden()).resolves.toBe(true);
    });

    it(`${who}: show, bookmarks, directories, saved searches and comments`, async () => {
      await type(`/tender show ${tenderId}`);
      await shown(tenderId);
      await shot(who, 'show');

      await type('/tender bookmarks');
      await shown(/bookmark/i);
      await shot(who, 'bookmarks');

      await type('/tender buyers council');
      const buyers = newest(/buyers/i);
      await buyers.waitFor();
      await shot(who, 'buyers');
      await click(buyers, 'Details');
      await shot(who, 'buyer-details');

      await type('/tender suppliers');
      await newest(/suppliers/i).waitFor();
      await shot(who, 'suppliers');

      await type('/tender frameworks');
      const frameworks = newest(/frameworks/i);
      await frameworks.waitFor();
      await shot(who, 'frameworks');
      if ((await frameworks.getByRole('button', { name: 'Details' }).count()) > 0) {
        await click(frameworks, 'Details');
        await shot(who, 'framework-details');
      }

      await type('/tender saved');
      await shown(/saved search/i);
      await shot(who, 'saved');
      const saved = newest(/saved search/i);
      if ((await saved.getByRole('button', { name: 'Run' }).count()) > 0) {
        await click(saved, 'Run');
        await shot(who, 'saved-run');
      }

      await type(`/tender comments ${tenderId}`);
      await shown(/comment/i);
      await shot(who, 'comments');
    });

    it(`${who}: bids, their stage menu, status, connect and disconnect refused`, async () => {
      await type('/tender pipelines');
      await shown(/bid/i);
      await shot(who, 'pipelines');

      await type(`/tender pipeline ${pipelineId}`);
      const card = page.locator('.message', { has: page.locator('select') }).last();
      await card.waitFor();
      await shot(who, 'pipeline');
      const stageMenu = card.locator('select.static_select').nth(1);
      if ((await stageMenu.count()) > 0) {
        const options = await stageMenu
          .locator('option')
          .evaluateAll((items) =>
            items.map((item) => (item as unknown as { value: string }).value).filter(Boolean),
          );
        await stageMenu.selectOption(options.at(-1) as string);
        await shot(who, 'pipeline-stage-menu');
      }

      await type('/tender status');
      await shown(/./);
      await shot(who, 'status');

      await type('/tender connect');
      await newest('Only a workspace owner or admin').waitFor();
      await shot(who, 'connect-refused');

      await type('/tender disconnect');
      await shot(who, 'disconnect-refused');
    });

    it(`${who}: subscriptions, shortcuts, a pasted link, a direct message and the Home tab`, async () => {
      await type(`/tender subscribe pipeline ${pipelineId} daily 09:00`);
      if (guest) await newest(/Guests/).waitFor();
      else await newest('subscribed this channel').waitFor();
      await shot(who, 'subscribe');
      await type('/tender subscriptions');
      await newest(/subscriptions/i).waitFor();
      await shot(who, 'subscriptions');

      await page.locator('#shortcuts summary').click();
      await page.locator('#shortcuts-menu').getByRole('button', { name: 'Search tenders' }).click();
      await page.locator('#modal-layer').waitFor();
      await shot(who, 'shortcut-search-tenders');
      if (guest) {
        // Escape closes a modal, as in Slack, and leaves nothing of it.
        await page.keyboard.press('Escape');
        await page.locator('#modal-layer').waitFor({ state: 'hidden' });
        await expect(page.locator('#modal').innerHTML()).resolves.toBe('');
      } else {
        // The member fills the form; the answer comes in the Messages tab, with the command it wrote.
        const words = page.locator(`#modal [data-action-id="${SEARCH_BUILDER_FIELDS.words.action}"]`);
        await words.fill('cleaning');
        await page.locator('#modal').getByRole('button', { name: 'Search', exact: true }).click();
        await page.locator('#modal-layer').waitFor({ state: 'hidden' });
        await page.locator('#dm-link').click();
        await newest('Your search, as a command').waitFor();
        await newest('Tenders matching “cleaning”').waitFor();
        await shot(who, 'shortcut-search-answer', newest('Your search, as a command'));
        await openChannel(page, 'C0BIDS');
        await page.locator('#main-title', { hasText: '# bids' }).waitFor();
      }

      // A Contracts Finder notice the demo data does not hold is left alone; a Public Contracts
      // Scotland link that carries the tender's id becomes its card.
      await type(
        `Worth a look, ${who}? https://www.contractsfinder.service.gov.uk/Notice/5a115892-5c5e-4646-8a8f-150c9708a9dc ` +
          `https://api.publiccontractsscotland.gov.uk/v1/Notice?id=${tenderId}`,
      );
      const preview = newest(`Worth a look, ${who}?`).locator('.unfurl');
      await preview.waitFor();
      await expect(preview.count()).resolves.toBe(1);
      await shot(who, 'pasted-link', preview);

      const message = newest(`Worth a look, ${who}?`);
      await message.hover();
      await message.locator('.message-more').click();
      await message.getByRole('button', { name: 'Comment on a tender' }).click();
      await shot(who, 'message-shortcut');
      if (await page.locator('#modal-layer').isVisible()) await closeModal();

      await page.locator('#dm-link').click();
      await page.locator('#main-title', { hasText: 'Messages' }).waitFor();
      await type('cleaning');
      await shot(who, 'direct-message');

      await page.locator('#home-link').click();
      await page.locator('#home').getByText('/tender search').first().waitFor();
      await shot(who, 'home');
    });
  }

  it('admin: connects a key in the modal and is asked before disconnecting', async () => {
    await actAs('U0ADMIN');
    await type('/tender connect');
    await openModalNamed('Connect Tenderbot');
    await shot('admin', 'connect');
    // Closed, then opened again: the new window starts empty, nothing kept from the first.
    await page.locator('[data-action-id="connect/key"]').fill('half a key typed');
    await closeModal();
    await type('/tender connect');
    await openModalNamed('Connect Tenderbot');
    await expect(page.locator('[data-action-id="connect/key"]').inputValue()).resolves.toBe('');
    await page.locator('[data-action-id="connect/key"]').fill(workbench.keyToConnect);
    await page.locator('#modal').getByRole('button', { name: 'Connect' }).click();
    await page.locator('#modal-layer').waitFor({ state: 'hidden' });
    // Closed by the app's answer: nothing of the form stays either (the key least of all).
    await expect(page.locator('#modal').innerHTML()).resolves.toBe('');
    await newest('Connected').waitFor();
    await shot('admin', 'connected');

    await type('/tender disconnect');
    const asked = newest(/Disconnect/);
    await asked.getByRole('button', { name: 'Keep it' }).waitFor();
    await shot('admin', 'disconnect-asks');
    await click(asked, 'Keep it');
    await shot('admin', 'disconnect-kept');
  });
});

describe('the page in a phone-sized window (480 px wide)', () => {
  const overflow = () => page.evaluate('document.documentElement.scrollWidth') as Promise<number>;

  it('types and sends from the composer, and nothing is wider than the window', async () => {
    await page.setViewportSize({ width: 480, height: 860 });
    await actAs('U0MEMBER');
    const composer = page.locator('#composer');
    const box = await composer.boundingBox();
    expect(box?.width).toBeGreaterThan(200);
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(480);
    await type('/tender search software');
    await newest('Tenders matching “software”').waitFor();
    await expect(composer.inputValue()).resolves.toBe('');
    expect(await overflow()).toBeLessThanOrEqual(480);
    await shot('member', 'narrow-search');

    await click(newest('Tenders matching “software”'), 'Start a bid');
    await openModalNamed('Start a bid');
    expect(await overflow()).toBeLessThanOrEqual(480);
    await shot('member', 'narrow-modal');
    await closeModal();

    await page.locator('#home-link').click();
    await page.locator('#home').getByText('/tender search').first().waitFor();
    expect(await overflow()).toBeLessThanOrEqual(480);
    await shot('member', 'narrow-home');
    await page.setViewportSize({ width: 1280, height: 1000 });
  });
});

describe('what the walk showed', () => {
  it('raised no error in the page', () => {
    expect(problems).toEqual([]);
  });

  it('says nothing a bid lead would not understand: no scope, error class or field name', () => {
    const texts = textsPeopleRead(workbench.slack);
    // The walk read a good many messages, windows and Home tabs.
    expect(texts.length).toBeGreaterThan(100);
    // The confirm dialogs were read too (removing the card's bookmark asks first).
    expect(dialogs.some((text) => text.includes('Remove'))).toBe(true);
    // No allow-list: a finding is fixed where the sentence is written, not excused here.
    expect(jargonIn([...texts, ...dialogs])).toEqual([]);
  });
});
