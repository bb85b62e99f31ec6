import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

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
