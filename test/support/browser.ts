import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's chromium, which `.ci/run` installs; playwright-core never downloads a browser here. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Screenshots and other files a person may want to look at after a run. */
export const ARTIFACTS_DIR = resolve(import.meta.dirname, '../../test-artifacts');

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `${CHROMIUM_PATH} is missing: install Debian's chromium (apt-get install chromium), as .ci/run does`,
    );
  }
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * Opens a channel of the workbench page and waits until its messages are drawn: a click right
 * after would otherwise act on the previous channel's messages (a card shown in both looks alike).
 */
export async function openChannel(page: Page, channelId: string): Promise<void> {
  const link = page.locator(`.channel-link[data-channel="${channelId}"]`);
  // Drawn: the channel's link is the active one and its messages are shown (from the Home tab, the
  // list still carries the channel it last showed, so its attribute alone says nothing).
  const drawn = page.locator(`.channel-link.active[data-channel="${channelId}"]`);
  const shown = page.locator(`#messages[data-channel="${channelId}"]:not([hidden])`);
  await link.click();
  try {
    await drawn.waitFor({ timeout: 5_000 });
  } catch {
    // The sidebar is drawn again on every poll: a click on a link replaced under the pointer is
    // lost, as it would be for a person, who clicks again.
    await link.click();
    await drawn.waitFor({ timeout: 10_000 });
  }
  await shown.waitFor({ state: 'visible', timeout: 10_000 });
}
