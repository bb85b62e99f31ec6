import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNFURL_DOMAINS } from '../../../src/app/features/links/notice-links.ts';
import { PERSONAL_KEY_REQUIRED_SENTENCE } from '../../../src/app/shared/failure-sentences.ts';
import { UNFURL_IDS } from '../../../src/app/shared/ids.ts';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
import type { ProcurementClient } from '../../../src/client/procurement-client.ts';
import { eventually, type RunningBot, startBot } from '../../support/bot.ts';
import { KEYS, testFixture } from '../../support/fixture.ts';
import { OCDS_DIR } from '../../support/ocds-data.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';
import {
  ADMIN,
  bookmarkIds,
  CHANNEL,
  linkFromHome,
  MEMBER,
  serviceAsCarolAndAlice,
  textOf,
  until,
} from './support.ts';

// Bookmark on a link preview with a person's own key: their own list changes, the preview (which
// everyone sees) keeps showing the workspace's list, and the workspace's setting is obeyed.

const NHS_TENDER = 'ocds-b5fd17-2c0cffc3-8ce5-4dcf-b9ee-478aa5a4572c';
const CF_LINK = 'https://www.contractsfinder.service.gov.uk/Notice/5a115892-5c5e-4646-8a8f-150c9708a9dc';

let sandbox: TestSandbox;
let bot: RunningBot;
let store: BotStore;
let asCarol: ProcurementClient;
let asAlice: ProcurementClient;
let service: ReturnType<typeof serviceAsCarolAndAlice>;

beforeAll(async () => {
  sandbox = await startTestSandbox({
    fixture: { ...testFixture(), bookmarks: [] },
    imports: [join(OCDS_DIR, 'uk-notices.releases.jsonl.gz')],
  });
  const databasePath = join(mkdtempSync(join(sandbox.dir, 'bot-')), 'bot.db');
  bot = await startBot({ serviceUrl: sandbox.baseUrl, defaultKey: KEYS.carolMemberAcme, databasePath });
  store = openBotStore(`sqlite:${databasePath}`);
  bot.slack.unfurlDomains = [...UNFURL_DOMAINS];
  service = serviceAsCarolAndAlice(sandbox);
  ({ asCarol, asAlice } = service);
}, 60_000);

afterAll(async () => {
  await store?.close();
  await bot?.stop();
  await service?.close();
  await sandbox?.stop();
});

describe('Bookmark on a link preview with a person’s own key', () => {
  it('changes their own list and tells them so; the preview keeps the workspace’s list', async () => {
    await linkFromHome(bot, MEMBER, KEYS.aliceAcme);
    expect(await store.getPersonalKey(bot.slack.teamId, MEMBER)).not.toBeNull();

    const { message } = await bot.slack.sendAsUser(MEMBER, CHANNEL, `Worth a bid? <${CF_LINK}>`);
    await eventually(() => message.unfurls?.[CF_LINK], 'the preview');
    await bot.slack.clickInMessage(MEMBER, message, UNFURL_IDS.bookmark);
    const said = await eventually(
      () => bot.slack.messagesIn(CHANNEL, MEMBER).find((reply) => reply.text.includes('in your own list')),
      'the sentence',
    );
    expect(said.text).toContain('The preview shows the workspace’s shared list.');
    await until(() => bookmarkIds(asAlice).then((ids) => ids.includes(NHS_TENDER)), 'Alice’s bookmark');
    expect(await bookmarkIds(asCarol)).not.toContain(NHS_TENDER);
    // Not redrawn as bookmarked for everyone: the workspace's list does not hold it.
    expect(textOf(message.unfurls?.[CF_LINK])).toContain(`"${UNFURL_IDS.bookmark}"`);

    await store.saveWorkspaceSettings({ teamId: bot.slack.teamId, personalKeysForWrites: true });
    const seen = bot.slack.messagesIn(CHANNEL, ADMIN).length;
    await bot.slack.clickInMessage(ADMIN, message, UNFURL_IDS.bookmark);
    const refusal = await eventually(() => bot.slack.messagesIn(CHANNEL, ADMIN)[seen], 'the refusal');
    expect(refusal.text).toBe(PERSONAL_KEY_REQUIRED_SENTENCE);
    expect(await bookmarkIds(asCarol)).not.toContain(NHS_TENDER);
  });
});
