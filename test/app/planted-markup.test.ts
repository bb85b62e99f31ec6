import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNFURL_DOMAINS } from '../../src/app/features/links/notice-links.ts';
import { DirectoryIds, SavedSearchIds, SubscriptionIds } from '../../src/app/shared/ids.ts';
import { ProcurementClient } from '../../src/client/procurement-client.ts';
import type { FakeMessage } from '../../src/fake-slack/fake-slack.ts';
import { importOcdsFiles } from '../../src/service/import/ocds-importer.ts';
import { eventually, type RunningBot, startBotAsCarol, tenderCommand } from '../support/bot.ts';
import { KEYS, testFixture } from '../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.ts';
import { markupIn, mrkdwnStrings, textOf } from '../support/slack-text.ts';

/**
 * Outside text that tries every kind of markup Slack acts on: a channel-wide and a here
 * notification, a mention, a disguised link and bold. It is planted in a tender's title and its
 * buyer's and supplier's names (imported from an OCDS file), a bid's name, a comment and a saved
 * search's name, then shown through every place the app draws them.
 */
const PLANT = '<!channel> <!here> <@U123ABC> <https://evil.example|x> *bold*';
const MEMBER = 'U0MEMBER';
const CHANNEL = 'C0BIDS';
const OTHER_CHANNEL = 'C0GENERAL';
const HOSTILE_ID = 'ocds-planted-0001';
const NOTICE = 'https://www.contractsfinder.service.gov.uk/Notice/0b0e5a3c-6d2f-4c83-9d7e-2f1d5b8c4a11';
const SUPPLIER = `Supplier ${PLANT}`;

let sandbox: TestSandbox;
let bot: RunningBot;
let service: ProcurementClient;

beforeAll(async () => {
  sandbox = await startTestSandbox({
    fixture: {
      ...testFixture(),
      savedSearches: [
        { id: 'ss-planted', organisationId: 'org-acme', name: `Saved ${PLANT}`, query: { q: 'urgent' } },
      ],
    },
  });
  const file = join(sandbox.dir, 'planted.jsonl');
  const buyer = { id: 'pb', name: `Council ${PLANT}`, roles: ['buyer'] };
  const supplier = { id: 'ps', name: SUPPLIER, roles: ['supplier'] };
  writeFileSync(
    file,
    `${JSON.stringify({
      ocid: HOSTILE_ID,
      id: 'r1',
      date: '2030-01-01T00:00:00Z',
      tag: ['tender', 'award'],
      initiationType: 'tender',
      buyer: { id: buyer.id, name: buyer.name },
      parties: [buyer, supplier],
      tender: {
        id: 'P-1',
        title: `Cleaning ${PLANT} urgent`,
        description: `Scope ${PLANT}`,
        status: 'active',
        documents: [{ id: 'd1', documentType: 'tenderNotice', url: NOTICE }],
      },
      awards: [{ id: 'a1', status: 'active', suppliers: [{ id: supplier.id, name: supplier.name }] }],
    })}\n`,
  );
  await importOcdsFiles(sandbox.db, [file]);
  bot = await startBotAsCarol(sandbox);
  bot.slack.unfurlDomains = [...UNFURL_DOMAINS];
  service = new ProcurementClient({ baseUrl: sandbox.baseUrl, apiKey: KEYS.carolMemberAcme });
});

afterAll(async () => {
  await bot?.stop();
  await service?.close();
  await sandbox?.stop();
});

const command = (text: string, channel = CHANNEL) => tenderCommand(bot, MEMBER, channel, text);

/** The first message after `before` in `channel` that `match` accepts (the app answers after its ack). */
const nextIn = (channel: string, before: number, match: (message: FakeMessage) => boolean, what: string) =>
  eventually(() => bot.slack.messagesIn(channel, MEMBER).slice(before).find(match), what, 20_000);

describe('outside text planted with markup', () => {
  it('never reaches Slack as markup: in any message’s text, block or preview, anywhere it is shown', async () => {
    const bid = await service.pipelines.create({ name: `Bid ${PLANT}`, tenderId: HOSTILE_ID });
    await service.comments.create({ entityType: 'tender', entityId: HOSTILE_ID, body: `Look ${PLANT}` });

    // Search, show, comments.
    const results = await command('search urgent');
    expect(textOf(results)).toContain('Cleaning');
    const shown = await command(`show ${HOSTILE_ID}`);
    expect(textOf(shown)).toContain('Council');
    const thread = await command(`comments ${HOSTILE_ID}`);
    expect(textOf(thread)).toContain('Look');

    // Directories: the lists and each one's details.
    const buyers = await command('buyers Council');
    expect(textOf(buyers)).toContain('Council');
    let before = bot.slack.messagesIn(CHANNEL, MEMBER).length;
    await bot.slack.clickInMessage(MEMBER, buyers, DirectoryIds.showBuyer);
    await nextIn(
      CHANNEL,
      before,
      (message) => textOf(message).includes('Latest notices'),
      'the buyer’s details',
    );
    const suppliers = await command('suppliers Supplier');
    expect(textOf(suppliers)).toContain('Supplier');
    before = bot.slack.messagesIn(CHANNEL, MEMBER).length;
    await bot.slack.clickInMessage(MEMBER, suppliers, DirectoryIds.showSupplier);
    await nextIn(
      CHANNEL,
      before,
      (message) => textOf(message).includes('Supplier ·'),
      'the supplier’s details',
    );
    const frameworks = await command('frameworks');
    before = bot.slack.messagesIn(CHANNEL, MEMBER).length;
    await bot.slack.clickInMessage(MEMBER, frameworks, DirectoryIds.showFramework);
    await nextIn(CHANNEL, before, (message) => textOf(message).includes('*Status*'), 'a framework’s details');

    // The saved search, listed and run.
    const saved = await command('saved');
    expect(textOf(saved)).toContain('Saved');
    before = bot.slack.messagesIn(CHANNEL, MEMBER).length;
    await bot.slack.clickInMessage(MEMBER, saved, SavedSearchIds.run);
    await nextIn(
      CHANNEL,
      before,
      (message) => textOf(message).includes('saved search'),
      'the saved search’s run',
    );

    // The bid's card, posted in two channels.
    for (const channel of [CHANNEL, OTHER_CHANNEL]) {
      const cards = () =>
        // A bid card's notification text: its name, status, then its stages (this bid has none).
        bot.slack
          .messagesIn(channel)
          .filter((message) => /, (no stages|\d+\/\d+ stages done)$/.test(message.text));
      const had = cards().length;
      await command(`pipeline ${bid.id}`, channel);
      await eventually(() => cards().length > had, `the bid’s card in ${channel}`, 20_000);
    }

    // A subscription's Send now: the summary posted by the scheduler.
    await command(`subscribe pipeline ${bid.id}`);
    const list = await command('subscriptions');
    const summaries = () =>
      bot.slack.messagesIn(CHANNEL).filter((message) => message.text.startsWith('Summary of'));
    await bot.slack.clickInMessage(MEMBER, list, SubscriptionIds.sendNow);
    await eventually(() => summaries().length > 0, 'the summary Send now posts', 30_000);

    // A link to the tender's notice: its preview.
    const { message: linkMessage } = await bot.slack.sendAsUser(MEMBER, CHANNEL, `Worth a bid? <${NOTICE}>`);
    await eventually(() => linkMessage.unfurls?.[NOTICE], 'the preview', 20_000);

    // A direct message: a search there.
    const dm = bot.slack.dmOf(MEMBER);
    const dmBefore = bot.slack.messagesIn(dm, MEMBER).length;
    await bot.slack.sendAsUser(MEMBER, dm, 'urgent cleaning');
    await nextIn(
      dm,
      dmBefore,
      (message) => textOf(message).includes('Cleaning'),
      'the search in a direct message',
    );

    // Every string Slack parses as mrkdwn, in everything the app posted or drew.
    const checked = [
      ...bot.slack.messages.flatMap((message, index) =>
        message.authorId === MEMBER
          ? mrkdwnStrings({ unfurls: message.unfurls ?? {} }, `messages[${index}]`)
          : mrkdwnStrings(message, `messages[${index}]`),
      ),
      ...[...bot.slack.views.values()].flatMap((view, index) => mrkdwnStrings(view, `views[${index}]`)),
    ];
    // The planted text was shown (escaped) in each kind of place, so the check below saw it.
    const shownEscaped = checked.filter((found) => found.text.includes('&lt;!channel&gt;'));
    expect(shownEscaped.length).toBeGreaterThan(20);
    expect(checked.some((found) => found.at.endsWith('.text') && found.text.includes('Summary of Bid'))).toBe(
      true,
    );
    const problems = checked.flatMap((found) =>
      markupIn(found.text, {
        allowedUsers: [MEMBER, 'U0ADMIN', 'U0GUEST'],
        allowedLinkPrefixes: ['https://www.contractsfinder.service.gov.uk/'],
        planted: 'bold',
      }).map((problem) => `${found.at}: ${problem} in ${JSON.stringify(found.text.slice(0, 200))}`),
    );
    expect(problems).toEqual([]);
  });
});
