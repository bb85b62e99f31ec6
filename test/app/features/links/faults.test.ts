import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPTIONS_BUDGET_MS } from '../../../../src/app/features/links/search-builder.ts';
import { ReachIds, SEARCH_BUILDER_FIELDS } from '../../../../src/app/shared/ids.ts';
import { eventually, type RunningBot, startBotAsCarol } from '../../../support/bot.ts';
import { startTestSandbox, type TestSandbox } from '../../../support/sandbox.ts';
import { type ServiceProxy, startServiceProxy } from '../../../support/service-proxy.ts';

// Slack shows nothing if a select's options take more than 3 s: with a slow service the app
// answers in time with no options, rather than not at all.
let sandbox: TestSandbox;
let proxy: ServiceProxy;
let bot: RunningBot;
/** When set, the form's own reading of the regions (buyers without words) is picked too. */
let pickRegions = false;
/** When set, tender searches are picked too. */
let pickTenderSearches = false;
const MEMBER = 'U0MEMBER';

beforeAll(async () => {
  sandbox = await startTestSandbox();
  // Only the buyer searches of the select (`q=`); the form's regions pass untouched.
  proxy = await startServiceProxy(
    sandbox.baseUrl,
    (method, url) =>
      method === 'GET' &&
      ((/^\/v1\/buyers\?/.test(url) && (url.includes('q=') || pickRegions)) ||
        (pickTenderSearches && /^\/v1\/tenders\?/.test(url))),
  );
  bot = await startBotAsCarol(sandbox, proxy.url);
}, 60_000);

afterAll(async () => {
  await bot?.stop();
  await proxy?.stop();
  await sandbox?.stop();
});

async function openForm(): Promise<string> {
  // One form at a time (a second identical request in the same second would be a replay).
  for (const view of bot.slack.openModals(MEMBER)) await bot.slack.closeView(MEMBER, view.id);
  await bot.slack.globalShortcut(MEMBER, ReachIds.searchShortcut);
  const modal = await eventually(
    () =>
      bot.slack
        .openModals(MEMBER)
        .find((view) =>
          view.view.blocks?.some(
            (block: { block_id?: string }) => block.block_id === SEARCH_BUILDER_FIELDS.buyer.block,
          ),
        ),
    'the search form',
  );
  return modal.id;
}

// First: the form's regions are kept for 10 minutes once read, so a later failure would not show.
describe('the search form when the service fails', () => {
  it('says so in the window instead of a form that cannot work', async () => {
    for (const view of bot.slack.openModals(MEMBER)) await bot.slack.closeView(MEMBER, view.id);
    pickRegions = true;
    proxy.fail = true;
    try {
      await bot.slack.globalShortcut(MEMBER, ReachIds.searchShortcut);
      const modal = await eventually(
        () =>
          bot.slack.openModals(MEMBER).find((view) => JSON.stringify(view.view.blocks).includes(':warning:')),
        'the sentence',
      );
      expect(modal.view.submit).toBeUndefined();
      // The status as a number on its own: ids in the blocks may hold the digits 503.
      expect(JSON.stringify(modal.view.blocks)).not.toMatch(/\b503\b|unavailable|Error/);
    } finally {
      pickRegions = false;
      proxy.fail = false;
    }
  });
});

describe('buyer options within Slack’s time for options', () => {
  it('answers with the matching buyers from a quick service', async () => {
    const viewId = await openForm();
    const answer = await bot.slack.suggestOptions(
      MEMBER,
      viewId,
      SEARCH_BUILDER_FIELDS.buyer.action,
      'council',
    );
    expect(answer.status).toBe(200);
    const options = answer.json?.options as { text: { text: string }; value: string }[];
    expect(options.length).toBeGreaterThan(0);
    for (const option of options) {
      expect(option.text.text.toLowerCase()).toContain('council');
      expect(option.value).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('answers in time with no options when the service is slower than the budget', async () => {
    const viewId = await openForm();
    proxy.delayMs = OPTIONS_BUDGET_MS + 3000;
    try {
      const seen = proxy.seen;
      const answer = await bot.slack.suggestOptions(
        MEMBER,
        viewId,
        SEARCH_BUILDER_FIELDS.buyer.action,
        'council',
      );
      // Not the receiver's "no answer within 3 s" (404): the app's own answer, empty.
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ options: [] });
      expect(proxy.seen).toBe(seen + 1);
    } finally {
      proxy.delayMs = 0;
    }
  });
});

describe('a direct message while the service is slow', () => {
  it('says it is still trying, then puts the answer in that message’s place', async () => {
    const dm = bot.slack.dmOf(MEMBER);
    const before = bot.slack.messagesIn(dm).length;
    const updates = bot.slack.callsOf('chat.update').length;
    pickTenderSearches = true;
    // Longer than the notice's 2.5 s, shorter than the client's 10 s.
    proxy.delayMs = 4000;
    try {
      await bot.slack.sendAsUser(MEMBER, dm, 'cleaning');
      const answer = await eventually(
        () => {
          const mine = bot.slack
            .messagesIn(dm)
            .slice(before)
            .filter((message) => message.authorId !== MEMBER);
          return mine.length === 1 && mine[0]?.text.startsWith('Tenders matching') ? mine[0] : undefined;
        },
        'the answer in place of the notice',
        12_000,
      );
      expect(answer.text).toContain('“cleaning”');
      expect(bot.slack.callsOf('chat.update').length).toBe(updates + 1);
    } finally {
      proxy.delayMs = 0;
      pickTenderSearches = false;
    }
  }, 20_000);
});
