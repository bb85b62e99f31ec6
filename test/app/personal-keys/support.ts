import { expect } from 'vitest';
import { ProcurementClient } from '../../../src/client/procurement-client.ts';
import type { FakeMessage, FakeSlack, FakeView } from '../../../src/fake-slack/fake-slack.ts';
import { eventually, type RunningBot } from '../../support/bot.ts';
import { KEYS } from '../../support/fixture.ts';
import type { TestSandbox } from '../../support/sandbox.ts';

// What the personal-key tests (and the comment tests) share: the service as two people of one
// organisation, polling the service, a command's answer among late messages, and the comment window.

import { textOf } from '../../support/slack-text.ts';

export { textOf };

/** The fake Slack's people and channel these tests use. */
export const ADMIN = 'U0ADMIN';
export const MEMBER = 'U0MEMBER';
export const GUEST = 'U0GUEST';
export const CHANNEL = 'C0BIDS';

/** The service as Carol (whose key the test apps use for the workspace) and as Alice (a member's own key). */
export function serviceAsCarolAndAlice(sandbox: TestSandbox) {
  const asCarol = new ProcurementClient({ baseUrl: sandbox.baseUrl, apiKey: KEYS.carolMemberAcme });
  const asAlice = new ProcurementClient({ baseUrl: sandbox.baseUrl, apiKey: KEYS.aliceAcme });
  return { asCarol, asAlice, close: () => Promise.all([asCarol.close(), asAlice.close()]) };
}

/** Asks the service until `check` resolves with something (the app writes after its ack). */
export async function until<T>(check: () => Promise<T | undefined | null | false>, what: string): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() - started > 8000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The tender ids in the key's creator's bookmark list. */
export async function bookmarkIds(client: ProcurementClient): Promise<string[]> {
  return (await client.bookmarks.list({ limit: 100 })).data.map((bookmark) => bookmark.tenderId);
}

/** `/tender TEXT` as `user` in `channel`: the first new message carrying `expected` (a late confirmation may come between). */
export async function answerWith(
  bot: RunningBot,
  user: string,
  channel: string,
  text: string,
  expected: string,
): Promise<FakeMessage> {
  const before = bot.slack.messagesIn(channel, user).length;
  expect((await bot.slack.slashCommand(user, channel, '/tender', text)).status).toBe(200);
  return eventually(
    () =>
      bot.slack
        .messagesIn(channel, user)
        .slice(before)
        .find((message) => textOf(message.blocks).includes(expected) || message.text.includes(expected)),
    `an answer to /tender ${text}`,
  );
}

/** The comment window `user` has open, once filled with its thread (not one of `openBefore`). */
export function filledCommentModal(slack: FakeSlack, user: string, openBefore: ReadonlySet<string>) {
  return eventually(
    () =>
      slack
        .openModals(user)
        .find(
          (view) =>
            !openBefore.has(view.id) &&
            view.view.callback_id === 'comment/submit' &&
            !textOf(view.view).includes('Loading'),
        ),
    'the filled comment modal',
  );
}

/** Clicks "Comment" on `message` as `user`; resolves with the filled comment window. */
export async function openCommentModal(
  bot: RunningBot,
  user: string,
  message: FakeMessage,
): Promise<FakeView> {
  const before = new Set(bot.slack.openModals(user).map((view) => view.id));
  expect((await bot.slack.clickInMessage(user, message, 'comment/open')).status).toBe(200);
  return filledCommentModal(bot.slack, user, before);
}

/** Links `key` as `user`'s own, from the Home tab's "Link your own key" (the window opened there). */
export async function linkFromHome(bot: RunningBot, user: string, key: string): Promise<FakeView> {
  await bot.slack.openHome(user);
  const home = await eventually(() => bot.slack.homeOf(user), 'the Home tab');
  expect(textOf(home.view)).toContain('Link your own key');
  await bot.slack.clickInView(user, home.id, 'home/connect');
  const modal = await eventually(() => bot.slack.openModals(user)[0], 'the personal connect modal');
  expect(modal.view.title.text).toBe('Link your own key');
  if (key) await bot.slack.submitView(user, modal.id, { 'connect/key': key });
  return modal;
}
