import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNFURL_DOMAINS } from '../../../../src/app/features/links/notice-links.ts';
import {
  ReachIds,
  SEARCH_BUILDER_FIELDS,
  TENDER_PICKER,
  UNFURL_IDS,
} from '../../../../src/app/shared/ids.ts';
import { blockKitProblems, viewProblems } from '../../../../src/app/shared/views/block-kit-limits.ts';
import type { FakeMessage, FakeView } from '../../../../src/fake-slack/fake-slack.ts';
import { eventually, type RunningBot, startBotAsCarol, tenderCommand } from '../../../support/bot.ts';
import { KEYS, testFixture } from '../../../support/fixture.ts';
import { OCDS_DIR } from '../../../support/ocds-data.ts';
import { startTestSandbox, type TestSandbox } from '../../../support/sandbox.ts';
import { withoutShare } from '../tenders/tender-answers.ts';

// The real OCDS files: a Contracts Finder notice whose documents include its Find a Tender notice,
// and a Public Contracts Scotland notice whose API link holds its ocid.
const NHS_TENDER = 'ocds-b5fd17-2c0cffc3-8ce5-4dcf-b9ee-478aa5a4572c';
const NHS_TITLE = 'Pressure Area Care and Patient Handling';
const CF_LINK = 'https://www.contractsfinder.service.gov.uk/Notice/5a115892-5c5e-4646-8a8f-150c9708a9dc';
const FTS_LINK = 'https://www.find-tender.service.gov.uk/Notice/004824-2025';
const PCS_TENDER = 'ocds-r6ebe6-0000581860';
const PCS_TITLE = 'Five Year Electrical Inspection Contract';
const PCS_LINK = `https://api.publiccontractsscotland.gov.uk/v1/Notice?id=${PCS_TENDER}`;

const MEMBER = 'U0MEMBER';
const ADMIN = 'U0ADMIN';
const CHANNEL = 'C0BIDS';

/** The parts of a view's block these tests read. */
interface ViewBlock {
  block_id?: string;
  element?: { initial_value?: string };
}

let sandbox: TestSandbox;
let bot: RunningBot;

beforeAll(async () => {
  sandbox = await startTestSandbox({
    // The fixture's bookmarks name demo tenders, which a database of real ones does not have.
    fixture: { ...testFixture(), bookmarks: [] },
    imports: [join(OCDS_DIR, 'uk-notices.releases.jsonl.gz')],
  });
  bot = await startBotAsCarol(sandbox);
  bot.slack.unfurlDomains = [...UNFURL_DOMAINS];
}, 60_000);

afterAll(async () => {
  await bot?.stop();
  await sandbox?.stop();
});

function text(value: unknown): string {
  return JSON.stringify(value);
}

function unfurlCalls() {
  return bot.slack.callsOf('chat.unfurl');
}

describe('link unfurls (real OCDS data)', () => {
  it('turns a pasted Contracts Finder link of an imported tender into its card', async () => {
    const { message, answers } = await bot.slack.sendAsUser(MEMBER, CHANNEL, `Worth a bid? <${CF_LINK}>`);
    expect(answers.map((answer) => answer.status)).toEqual([200]);
    const unfurled = await eventually(() => message.unfurls?.[CF_LINK], 'the unfurl');
    expect(text(unfurled)).toContain(NHS_TITLE);
    expect(text(unfurled)).toContain(NHS_TENDER);
    // The card's buttons that work under someone else's message.
    expect(text(unfurled)).toContain('Start a bid');
    expect(text(unfurled)).toContain('Comment');
    expect(text(unfurled)).not.toContain('Share in channel');
  });

  it('bookmarks from the preview for the workspace, draws the preview again, and refuses a guest', async () => {
    const message = bot.slack
      .messagesIn(CHANNEL)
      .find((candidate) => candidate.unfurls?.[CF_LINK]) as FakeMessage;
    const guest = await bot.slack.clickInMessage('U0GUEST', message, UNFURL_IDS.bookmark);
    expect(guest.status).toBe(200);
    await eventually(
      () =>
        bot.slack
          .messagesIn(CHANNEL, 'U0GUEST')
          .find((reply) => reply.text.includes('Guests can read tenders')),
      'the refusal',
    );
    expect(text(message.unfurls?.[CF_LINK])).toContain(UNFURL_IDS.bookmark);

    await bot.slack.clickInMessage(MEMBER, message, UNFURL_IDS.bookmark);
    await eventually(
      () => text(message.unfurls?.[CF_LINK]).includes(UNFURL_IDS.removeBookmark),
      'the redrawn preview',
    );
    const bookmarks = await sandbox.call('GET', '/v1/bookmarks', { key: KEYS.carolMemberAcme });
    expect(bookmarks.body.data.map((bookmark: { tenderId: string }) => bookmark.tenderId)).toContain(
      NHS_TENDER,
    );
    await eventually(
      () => bot.slack.messagesIn(CHANNEL, MEMBER).find((reply) => reply.text.startsWith('Bookmarked')),
      'the sentence',
    );

    // A new preview of the same tender shows it bookmarked.
    const again = await bot.slack.sendAsUser(MEMBER, CHANNEL, `Same one: <${FTS_LINK}>`);
    const preview = await eventually(() => again.message.unfurls?.[FTS_LINK], 'the second preview');
    expect(text(preview)).toContain(UNFURL_IDS.removeBookmark);

    // And back, leaving the workspace's list as it was.
    await bot.slack.clickInMessage(MEMBER, message, UNFURL_IDS.removeBookmark);
    await eventually(
      () => text(message.unfurls?.[CF_LINK]).includes(`"${UNFURL_IDS.bookmark}"`),
      'the preview again',
    );
    const after = await sandbox.call('GET', '/v1/bookmarks', { key: KEYS.carolMemberAcme });
    expect(after.body.data.map((bookmark: { tenderId: string }) => bookmark.tenderId)).not.toContain(
      NHS_TENDER,
    );
  });

  it('turns a Find a Tender link (a document of the same notice) into the same card', async () => {
    const { message } = await bot.slack.sendAsUser(MEMBER, CHANNEL, `FTS version: ${FTS_LINK}`);
    const unfurled = await eventually(() => message.unfurls?.[FTS_LINK], 'the unfurl');
    expect(text(unfurled)).toContain(NHS_TITLE);
  });

  it('unfurls a Scottish API link by the ocid it holds, and only the known link of a message with two', async () => {
    const other = 'https://www.publiccontractsscotland.gov.uk/search/Search_MainPage.aspx';
    const { message } = await bot.slack.sendAsUser(MEMBER, CHANNEL, `<${PCS_LINK}> and <${other}>`);
    const unfurled = await eventually(() => message.unfurls?.[PCS_LINK], 'the unfurl');
    expect(text(unfurled)).toContain(PCS_TITLE);
    expect(Object.keys(message.unfurls ?? {})).toEqual([PCS_LINK]);
  });

  it('leaves an unknown link and a known source’s unknown notices alone (no unfurl call), and tells the poster why', async () => {
    const before = unfurlCalls().length;
    const unknownNotice =
      'https://www.contractsfinder.service.gov.uk/Notice/00000000-0000-4000-8000-000000000000';
    const unknownFts = 'https://www.find-tender.service.gov.uk/Notice/999999-2025';
    const first = await bot.slack.sendAsUser(MEMBER, CHANNEL, 'see https://example.com/Notice/123');
    // Not on an unfurl domain: Slack sends nothing.
    expect(first.answers).toEqual([]);
    const second = await bot.slack.sendAsUser(MEMBER, CHANNEL, `<${unknownNotice}> <${unknownFts}>`);
    // Slack asks; the app answers the event and leaves both links alone.
    expect(second.answers.map((answer) => answer.status)).toEqual([200]);
    // The look-ups run after the acknowledgement: give them the time a found link takes.
    const control = await bot.slack.sendAsUser(MEMBER, CHANNEL, `<${PCS_LINK}>`);
    await eventually(() => control.message.unfurls?.[PCS_LINK], 'the control unfurl');
    expect(second.message.unfurls).toBeUndefined();
    expect(first.message.unfurls).toBeUndefined();
    expect(unfurlCalls().length).toBe(before + 1);
    // The person who posted them is told, alone, why no card came; nobody else sees it.
    const toldWhy = (userId: string) =>
      bot.slack
        .messagesIn(CHANNEL, userId)
        .filter((message) => message.ephemeralTo === userId && message.text.includes('No card'));
    const told = await eventually(() => toldWhy(MEMBER)[0], 'the sentence to the poster');
    expect(told.text).toBe(
      'No cards for 2 of those notice links: the Procurement Intelligence Service does not hold them (they may be newer than the service’s last import, or withdrawn). Try `/tender search` with words from their titles.',
    );
    expect(toldWhy(MEMBER)).toHaveLength(1);
    expect(toldWhy(ADMIN)).toHaveLength(0);
  });
});

function modalOf(userId: string, callbackId: string): FakeView | undefined {
  return bot.slack.openModals(userId).find((view) => view.view.callback_id === callbackId);
}

describe('the search builder', () => {
  it('opens from the global shortcut with regions from the data and buyers suggested as one types', async () => {
    const answer = await bot.slack.globalShortcut(MEMBER, ReachIds.searchShortcut);
    expect(answer.status).toBe(200);
    const modal = await eventually(
      () =>
        modalOf(MEMBER, ReachIds.searchBuilderCallback)?.view.blocks?.some(
          (block: ViewBlock) => block.block_id === SEARCH_BUILDER_FIELDS.buyer.block,
        )
          ? modalOf(MEMBER, ReachIds.searchBuilderCallback)
          : undefined,
      'the search form',
    );
    const region = modal.view.blocks?.find(
      (block: ViewBlock) => block.block_id === SEARCH_BUILDER_FIELDS.region.block,
    );
    expect(text(region)).toContain('Scotland');

    const suggested = await bot.slack.suggestOptions(
      MEMBER,
      modal.id,
      SEARCH_BUILDER_FIELDS.buyer.action,
      'nhs sup',
    );
    expect(suggested.status).toBe(200);
    const options = (suggested.json?.options ?? []) as { text: { text: string }; value: string }[];
    expect(options.map((option) => option.text.text)).toContainEqual(
      expect.stringContaining('NHS Supply Chain'),
    );
    const none = await bot.slack.suggestOptions(
      MEMBER,
      modal.id,
      SEARCH_BUILDER_FIELDS.buyer.action,
      'zzzqqq',
    );
    expect(none.json?.options).toEqual([]);
  });

  it('answers a submission with the command it stands for and exactly that command’s cards', async () => {
    await bot.slack.globalShortcut(MEMBER, ReachIds.searchShortcut);
    const modal = await eventually(
      () =>
        bot.slack
          .openModals(MEMBER)
          .find((view) =>
            view.view.blocks?.some(
              (block: ViewBlock) => block.block_id === SEARCH_BUILDER_FIELDS.words.block,
            ),
          ),
      'the search form',
    );
    const suggested = await bot.slack.suggestOptions(
      MEMBER,
      modal.id,
      SEARCH_BUILDER_FIELDS.buyer.action,
      'nhs supply',
    );
    const buyer = ((suggested.json?.options ?? []) as { value: string }[])[0]?.value as string;
    const dm = bot.slack.dmOf(MEMBER);
    const before = bot.slack.messagesIn(dm).length;
    const submitted = await bot.slack.submitView(MEMBER, modal.id, {
      [SEARCH_BUILDER_FIELDS.words.action]: 'pressure care',
      [SEARCH_BUILDER_FIELDS.valueMin.action]: '1k',
      [SEARCH_BUILDER_FIELDS.buyer.action]: buyer,
    });
    expect(submitted.status).toBe(200);
    expect(submitted.json?.response_action).toBeUndefined();
    const [hint, results] = await eventually(() => {
      const posted = bot.slack.messagesIn(dm).slice(before);
      return posted.length >= 2 ? posted : undefined;
    }, 'the hint and the results');
    const command = /`\/tender (search [^`]*)`/.exec(hint?.text ?? '')?.[1]?.replace(/&gt;/g, '>');
    // The chosen buyer by name: the name alone finds the same buyer, so the command reads as typed.
    expect(command).toBe('search pressure care value>=1k buyer:"NHS Supply Chain"');
    expect(buyer).toMatch(/^[0-9a-f-]{36}$/);
    expect(results?.text).toContain('Tenders matching');
    const typed = await tenderCommand(bot, MEMBER, CHANNEL, command as string);
    // The same answer as the command typed in a channel (where a card also offers Share in channel).
    expect(results?.blocks).toEqual(withoutShare(typed.blocks));
    expect(text(results?.blocks)).toContain(NHS_TITLE);
  });

  it('keeps the form open with a sentence on a field that cannot be used', async () => {
    await bot.slack.globalShortcut(MEMBER, ReachIds.searchShortcut);
    const modal = await eventually(
      () =>
        bot.slack
          .openModals(MEMBER)
          .find((view) =>
            view.view.blocks?.some((block: ViewBlock) => block.block_id === SEARCH_BUILDER_FIELDS.cpv.block),
          ),
      'the search form',
    );
    const answer = await bot.slack.submitView(MEMBER, modal.id, {
      [SEARCH_BUILDER_FIELDS.cpv.action]: 'IT',
      [SEARCH_BUILDER_FIELDS.valueMin.action]: 'lots',
    });
    expect(answer.json?.response_action).toBe('errors');
    expect(Object.keys(answer.json?.errors ?? {}).sort()).toEqual(
      [SEARCH_BUILDER_FIELDS.cpv.block, SEARCH_BUILDER_FIELDS.valueMin.block].sort(),
    );
    await bot.slack.closeView(MEMBER, modal.id);
  });
});

function commentModal(userId: string): FakeView | undefined {
  return bot.slack
    .openModals(userId)
    .find((view) => view.view.blocks?.some((block: ViewBlock) => block.block_id === 'comment/text_block'));
}

describe('the search builder’s buttons', () => {
  it('opens the form from the help card and from the Home tab', async () => {
    for (const view of bot.slack.openModals(MEMBER)) await bot.slack.closeView(MEMBER, view.id);
    const help = await tenderCommand(bot, MEMBER, CHANNEL, 'help');
    const clicked = await bot.slack.clickInMessage(MEMBER, help, ReachIds.openSearchBuilder);
    expect(clicked.status).toBe(200);
    const fromHelp = await eventually(() => modalOf(MEMBER, ReachIds.searchBuilderCallback), 'the form');
    await bot.slack.closeView(MEMBER, fromHelp.id);

    await bot.slack.openHome(MEMBER);
    const home = await eventually(
      () =>
        (text(bot.slack.homeOf(MEMBER)?.view.blocks) ?? '').includes(ReachIds.openSearchBuilder)
          ? bot.slack.homeOf(MEMBER)
          : undefined,
      'the Home tab',
    );
    expect((await bot.slack.clickInView(MEMBER, home.id, ReachIds.openSearchBuilder)).status).toBe(200);
    const fromHome = await eventually(() => modalOf(MEMBER, ReachIds.searchBuilderCallback), 'the form');
    await bot.slack.closeView(MEMBER, fromHome.id);
  });
});

describe('comment on a message', () => {
  it('opens the comment window of the tender the message links to, with the message quoted', async () => {
    const message = bot.slack.postAsUser(
      MEMBER,
      CHANNEL,
      `Can we do this one? <${PCS_LINK}|the Glasgow notice>`,
    );
    await bot.slack.settle();
    const answer = await bot.slack.messageShortcut(MEMBER, message, ReachIds.commentShortcut);
    expect(answer.status).toBe(200);
    const modal = await eventually(() => commentModal(MEMBER), 'the comment window');
    expect(text(modal.view.blocks)).toContain(PCS_TITLE);
    const input = modal.view.blocks?.find((block: ViewBlock) => block.block_id === 'comment/text_block');
    expect(input?.element?.initial_value).toBe(`> Can we do this one? the Glasgow notice (${PCS_LINK})\n\n`);
    await bot.slack.closeView(MEMBER, modal.id);
  });

  it('finds the tender on a card Tenderbot shared (its id is in the card), quoting the card’s text', async () => {
    const shared = await tenderCommand(bot, MEMBER, CHANNEL, `show ${PCS_TENDER}`);
    await bot.slack.clickInMessage(MEMBER, shared, 'tender/share');
    const card = await eventually(
      () =>
        bot.slack
          .messagesIn(CHANNEL)
          .find((message) => message.ephemeralTo === null && message.text.includes('Tender shared by')),
      'the shared card',
    );
    await bot.slack.messageShortcut(MEMBER, card, ReachIds.commentShortcut);
    const modal = await eventually(() => commentModal(MEMBER), 'the comment window');
    expect(text(modal.view.blocks)).toContain(PCS_TITLE);
    const input = modal.view.blocks?.find((block: ViewBlock) => block.block_id === 'comment/text_block');
    // The mention is named as Slack names the person, never left as an id.
    expect(input?.element?.initial_value).toMatch(
      new RegExp(
        `^> Tender shared by @(max|Max Member): ${PCS_TITLE}, Various Addresses, North Glasgow\n\n$`,
      ),
    );
    await bot.slack.closeView(MEMBER, modal.id);
  });

  it('asks which tender when the message names none, then opens that tender’s comment window', async () => {
    const message = bot.slack.postAsUser(MEMBER, CHANNEL, 'The buyer called: site visit on Tuesday.');
    await bot.slack.messageShortcut(MEMBER, message, ReachIds.commentShortcut);
    const picker = await eventually(
      () =>
        bot.slack
          .openModals(MEMBER)
          .find((view) =>
            view.view.blocks?.some((block: ViewBlock) => block.block_id === TENDER_PICKER.block),
          ),
      'the tender picker',
    );
    expect(text(picker.view.blocks)).toContain('site visit on Tuesday');
    const suggested = await bot.slack.suggestOptions(
      MEMBER,
      picker.id,
      TENDER_PICKER.action,
      'electrical inspection glasgow',
    );
    const option = ((suggested.json?.options ?? []) as { value: string }[]).find(
      (candidate) => candidate.value === PCS_TENDER,
    );
    expect(option).toBeDefined();
    const submitted = await bot.slack.submitView(MEMBER, picker.id, { [TENDER_PICKER.action]: PCS_TENDER });
    expect(submitted.json?.response_action).toBe('update');
    const modal = await eventually(() => commentModal(MEMBER), 'the comment window');
    expect(modal.id).toBe(picker.id);
    expect(text(modal.view.blocks)).toContain(PCS_TITLE);
    const input = modal.view.blocks?.find((block: ViewBlock) => block.block_id === 'comment/text_block');
    expect(input?.element?.initial_value).toBe('> The buyer called: site visit on Tuesday.\n\n');
    await bot.slack.closeView(MEMBER, modal.id);
  });
});

describe('direct messages', () => {
  it('searches the words sent and answers with cards; help works there too', async () => {
    const dm = bot.slack.dmOf(MEMBER);
    const before = bot.slack.messagesIn(dm).length;
    const { answers } = await bot.slack.sendAsUser(MEMBER, dm, 'electrical inspection');
    expect(answers.map((answer) => answer.status)).toEqual([200]);
    const reply = await eventually(
      () =>
        bot.slack
          .messagesIn(dm)
          .slice(before)
          .find((message: FakeMessage) => message.authorId !== MEMBER),
      'the answer',
    );
    expect(reply.text).toContain('Tenders matching “electrical inspection”');
    expect(text(reply.blocks)).toContain(PCS_TITLE);
    // There is no channel to share a card into from a direct message.
    expect(text(reply.blocks)).not.toContain('tender/share');

    const count = bot.slack.messagesIn(dm).length;
    await bot.slack.sendAsUser(MEMBER, dm, 'help');
    const help = await eventually(
      () =>
        bot.slack
          .messagesIn(dm)
          .slice(count)
          .find((message: FakeMessage) => message.authorId !== MEMBER),
      'the help',
    );
    expect(text(help.blocks)).toContain('/tender search');
    expect(text(help.blocks)).toContain(ReachIds.openSearchBuilder);
  });

  it('runs the read-only commands as typed: `bookmarks`, `buyers <words>`, `status`', async () => {
    const dm = bot.slack.dmOf(MEMBER);
    for (const [typed, expected] of [
      ['bookmarks', /Bookmarks|No bookmarks yet/],
      ['buyers council', /Buyers matching “council”|No buyers match/],
      ['/tender status', /\*Key\*/],
      ['show ocds-b5fd17-2c0cffc3-8ce5-4dcf-b9ee-478aa5a4572c', /Pressure Area Care/],
    ] as const) {
      const count = bot.slack.messagesIn(dm).length;
      await bot.slack.sendAsUser(MEMBER, dm, typed);
      const answer = await eventually(
        () =>
          bot.slack
            .messagesIn(dm)
            .slice(count)
            .find((message: FakeMessage) => message.authorId !== MEMBER),
        `the answer to ${typed}`,
      );
      expect(`${answer.text} ${text(answer.blocks)}`, typed).toMatch(expected);
      expect(answer.text, typed).not.toContain('Tenders matching');
      expect(text(answer.blocks), typed).not.toContain('tender/share');
    }
  });
});

describe('direct messages naming a tender', () => {
  it('shows the tender a pasted link names, and says so plainly when the service does not hold it', async () => {
    const dm = bot.slack.dmOf(MEMBER);
    const before = bot.slack.messagesIn(dm).length;
    await bot.slack.sendAsUser(MEMBER, dm, `what about <${FTS_LINK}>`);
    const shown = await eventually(
      () =>
        bot.slack
          .messagesIn(dm)
          .slice(before)
          .find((message: FakeMessage) => message.authorId !== MEMBER),
      'the tender',
    );
    expect(shown.text).toBe(NHS_TITLE);
    const count = bot.slack.messagesIn(dm).length;
    await bot.slack.sendAsUser(MEMBER, dm, 'and ocds-b5fd17-00000000-0000-4000-8000-000000000000?');
    const missing = await eventually(
      () =>
        bot.slack
          .messagesIn(dm)
          .slice(count)
          .find((message: FakeMessage) => message.authorId !== MEMBER),
      'the answer',
    );
    expect(missing.text).toContain('does not hold the tender');
  });
});

describe('the welcome', () => {
  it('is posted once when Tenderbot is added to a channel, also after it is removed and added again', async () => {
    const channel = 'C0GENERAL';
    const welcomes = () =>
      bot.slack.messagesIn(channel).filter((message) => message.text.startsWith('Hello, I’m Tenderbot'));
    await bot.slack.removeApp(channel);
    const added = await bot.slack.addApp(channel);
    expect(added?.status).toBe(200);
    const [welcome] = await eventually(() => (welcomes().length > 0 ? welcomes() : undefined), 'the welcome');
    expect(text(welcome?.blocks)).toContain('Three things to try');
    // Carol's key is the one the app was started with: the welcome says so.
    expect(text(welcome?.blocks)).toContain('the key Tenderbot was set up with');
    await bot.slack.removeApp(channel);
    await bot.slack.addApp(channel);
    // A person joining is not Tenderbot joining.
    await bot.slack.sendEvent({ type: 'member_joined_channel', user: MEMBER, channel, channel_type: 'C' });
    // Whatever the app does runs after its acknowledgement: a later message shows it has finished.
    const dm = bot.slack.dmOf(MEMBER);
    const before = bot.slack.messagesIn(dm).length;
    await bot.slack.sendAsUser(MEMBER, dm, 'help');
    await eventually(() => bot.slack.messagesIn(dm).length > before + 1, 'a later answer');
    expect(welcomes()).toHaveLength(1);
  });
});

describe('the Home tab', () => {
  it('shows getting started on a person’s first visit only', async () => {
    const admin = 'U0ADMIN';
    const homeText = () => text(bot.slack.homeOf(admin)?.view.blocks) ?? '';
    await bot.slack.openHome(admin);
    await eventually(() => homeText().includes('Getting started'), 'the first Home');
    const first = bot.slack.homeOf(admin)?.view;
    await bot.slack.openHome(admin);
    // Drawn again (a fresh publish), now without the getting-started section.
    await eventually(
      () => bot.slack.homeOf(admin)?.view !== first && !homeText().includes('Getting started'),
      'the next Home',
    );
    expect(homeText()).toContain(ReachIds.openSearchBuilder);
  });
});

describe('what reached Slack', () => {
  it('every message, unfurl and window the app sent is within Slack’s limits', () => {
    const problems: string[] = [];
    const kinds = new Set<string>();
    for (const call of bot.slack.calls) {
      if (call.args.blocks) {
        kinds.add(call.method);
        problems.push(
          ...blockKitProblems(call.args.blocks, 'message').map((problem) => `${call.method}: ${problem}`),
        );
      }
      if (call.args.view) {
        kinds.add(call.method);
        problems.push(...viewProblems(call.args.view).map((problem) => `${call.method}: ${problem}`));
      }
      for (const [url, unfurl] of Object.entries(
        (call.args.unfurls ?? {}) as Record<string, { blocks: [] }>,
      )) {
        kinds.add(call.method);
        problems.push(
          ...blockKitProblems(unfurl.blocks, 'message').map((problem) => `unfurl of ${url}: ${problem}`),
        );
      }
    }
    expect([...kinds].sort()).toEqual([
      'chat.postEphemeral',
      'chat.postMessage',
      'chat.unfurl',
      'response_url',
      'views.open',
      'views.publish',
      'views.update',
    ]);
    expect(problems).toEqual([]);
  });

  it('the bot logged no failure of its own', () => {
    // The channel subscriptions' scheduler runs in the same process and logs as its own part.
    const failures = bot
      .logs()
      .split('\n')
      .filter((line) => /"level":(50|60)/.test(line) && !line.includes('"part":"scheduler"'));
    expect(failures).toEqual([]);
  });
});
