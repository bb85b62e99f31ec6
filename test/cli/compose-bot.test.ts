import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockKitProblems, viewProblems } from '../../src/app/shared/views/block-kit-limits.ts';
import { ProcurementClient } from '../../src/client/procurement-client.ts';
import type { FakeMessage } from '../../src/fake-slack/fake-slack.ts';
import { importOcdsFiles } from '../../src/service/import/ocds-importer.ts';
import {
  BOT_TOKEN,
  eventually,
  type RunningBot,
  SIGNING_SECRET,
  startBotAsCarol,
  tenderCommand,
} from '../support/bot.ts';
import { KEYS, TENDER_A } from '../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.ts';
import { textOf } from '../support/slack-text.ts';

const MEMBER = 'U0MEMBER';
const GUEST = 'U0GUEST';
const CHANNEL = 'C0BIDS';
const HOSTILE_ID = 'ocds-hostile-0001';

let sandbox: TestSandbox;
let bot: RunningBot;
let service: ProcurementClient;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  // A real OCDS release whose title tries to notify a whole channel, imported as any file would be.
  const file = join(sandbox.dir, 'hostile.jsonl');
  writeFileSync(
    file,
    `${JSON.stringify({
      ocid: HOSTILE_ID,
      id: 'r1',
      date: '2030-01-01T00:00:00Z',
      tag: ['tender'],
      initiationType: 'tender',
      buyer: { id: 'b', name: 'Council <script> & Co' },
      parties: [{ id: 'b', name: 'Council <script> & Co', roles: ['buyer'] }],
      tender: { id: 'H-1', title: '<!channel> urgent <@U123> cleaning', status: 'active' },
    })}\n`,
  );
  // Two buyers whose names both hold "Wakefield", each with a tender about drainage.
  const twoBuyers = ['Wakefield Metropolitan District Council', 'Wakefield Schools Trust'].map(
    (name, index) =>
      JSON.stringify({
        ocid: `ocds-twobuyers-000${index}`,
        id: `r${index}`,
        date: '2030-01-02T00:00:00Z',
        tag: ['tender'],
        initiationType: 'tender',
        buyer: { id: `w${index}`, name },
        parties: [{ id: `w${index}`, name, roles: ['buyer'] }],
        tender: { id: `W-${index}`, title: `Drainage works ${index}`, status: 'active' },
      }),
  );
  writeFileSync(join(sandbox.dir, 'two-buyers.jsonl'), `${twoBuyers.join('\n')}\n`);
  await importOcdsFiles(sandbox.db, [file, join(sandbox.dir, 'two-buyers.jsonl')]);
  bot = await startBotAsCarol(sandbox);
  service = new ProcurementClient({ baseUrl: sandbox.baseUrl, apiKey: KEYS.carolMemberAcme });
});

afterAll(async () => {
  await bot?.stop();
  await service?.close();
  await sandbox?.stop();
});

/** Runs a slash command; resolves with the new message the caller then sees. */
const command = (user: string, text: string) => tenderCommand(bot, user, CHANNEL, text);

const buttonsOf = (message: FakeMessage) =>
  message.blocks.flatMap(
    (block: { elements?: { action_id?: string }[]; accessory?: { action_id?: string } }) =>
      [...(block.elements ?? []), block.accessory].filter(Boolean).map((element) => element?.action_id),
  );

describe('/tender help and unknown words', () => {
  it('shows the usage card for help, for nothing, and for an unknown subcommand', async () => {
    expect(textOf(await command(MEMBER, 'help'))).toContain('/tender search');
    // A word near a subcommand is answered "Did you mean" (test/app/features/tenders/search-understands.test.ts).
    const unknown = await command(MEMBER, 'xylophone cleaning');
    expect(textOf(unknown)).toContain('`xylophone` is not a `/tender` command');
    expect(unknown.ephemeralTo).toBe(MEMBER);
  });

  it('takes `bids` for `pipelines`, as the cards call them', async () => {
    const bids = textOf(await command(MEMBER, 'bids'));
    const pipelines = textOf(await command(MEMBER, 'pipelines'));
    expect(bids).not.toContain('is not a `/tender` command');
    const heading = (text: string) => text.slice(0, text.indexOf(' ['));
    expect(heading(bids)).toMatch(/^Current bids: \d+$/);
    expect(heading(bids)).toBe(heading(pipelines));
  });

  it('offers the search the words make above the usage card, and runs it in place', async () => {
    const unknown = await command(MEMBER, 'cleaning');
    expect(textOf(unknown)).toContain('`cleaning` is not a `/tender` command');
    expect(textOf(unknown)).toContain('To search tenders for these words: `/tender search cleaning`');
    expect(textOf(unknown)).toContain('/tender bookmarks');
    await bot.slack.clickInMessage(MEMBER, unknown, 'command/did_you_mean');
    await eventually(() => textOf(unknown).includes('Tenders matching “cleaning”'), 'the search in place');
    expect(bot.slack.messagesIn(CHANNEL, MEMBER).filter((message) => message === unknown)).toHaveLength(1);
  });
});

describe('/tender search', () => {
  it('answers the caller alone with five cards and Next; Next and Previous redraw the same message', async () => {
    const results = await command(MEMBER, 'search clean');
    expect(results.ephemeralTo).toBe(MEMBER);
    const cards = results.blocks.filter(
      (block: { type: string; fields?: unknown }) => block.type === 'section' && block.fields,
    );
    expect(cards).toHaveLength(5);
    const first = textOf(results);
    expect(first).toContain('1–5 of');
    expect(first).toMatch(/closes in|closed .* ago|No deadline/);
    expect(first).toMatch(/£[\d,]+/);
    expect(buttonsOf(results)).toEqual(
      expect.arrayContaining(['tender/bookmark', 'tender/share', 'search/next']),
    );

    await bot.slack.clickInMessage(MEMBER, results, 'search/next');
    await eventually(() => textOf(results).includes('6–10 of'), 'page two in place');
    expect(bot.slack.messagesIn(CHANNEL, MEMBER).filter((message) => message === results)).toHaveLength(1);
    await bot.slack.clickInMessage(MEMBER, results, 'search/previous');
    await eventually(() => textOf(results).includes('1–5 of'), 'page one again');
  });

  it('reads filters a person types, and says what to do about a bad one', async () => {
    const open = await command(MEMBER, 'search status:open cpv:909');
    expect(textOf(open)).toContain('Open');
    expect(textOf(open)).not.toContain('*Status*\\nClosed');
    const bad = await command(MEMBER, 'search value>lots');
    expect(textOf(bad)).toContain('such as `value&gt;100k`');
    // What a person typed comes back escaped too.
    const hostile = await command(MEMBER, 'search status:<!channel>');
    expect(textOf(hostile)).toContain('`status:&lt;!channel&gt;` is not a status');
    expect(JSON.stringify(hostile.blocks)).not.toContain('<!channel>');
  });

  it('says when a search’s words were more than a search takes, and where they were cut', async () => {
    const many = Array.from({ length: 60 }, (_, index) => `cleaning${index}`).join(' ');
    const cut = await command(MEMBER, `search ${many}`);
    expect(textOf(cut)).toContain('Only the first 200 characters of the words were searched');
    expect(textOf(cut)).toContain('cleaning18”');
    // Said beside results too.
    const found = await command(MEMBER, `search ${Array(30).fill('cleaning').join(' ')}`);
    expect(textOf(found)).toContain('Only the first 200 characters of the words were searched');
    expect(textOf(found)).not.toContain('Found no');
    const short = await command(MEMBER, 'search cleaning');
    expect(textOf(short)).not.toContain('Only the first');
    // The directories say it too.
    for (const kind of ['buyers', 'suppliers', 'frameworks'])
      expect(textOf(await command(MEMBER, `${kind} ${many}`)), kind).toContain(
        'Only the first 200 characters of the words were searched',
      );
    expect(textOf(await command(MEMBER, 'buyers council'))).not.toContain('Only the first');
  });

  it('says which buyer a name chose when several match, and offers the others', async () => {
    const answer = await command(MEMBER, 'search drainage buyer:wakefield');
    const chosen = textOf(answer).includes('tenders of *Wakefield Metropolitan')
      ? { title: 'Drainage works 0', other: 'Drainage works 1', otherName: 'Wakefield Schools Trust' }
      : { title: 'Drainage works 1', other: 'Drainage works 0', otherName: 'Wakefield Metropolitan' };
    expect(textOf(answer)).toContain('Several buyers match “wakefield”');
    // The heading names the buyer, not "the chosen buyer".
    expect(textOf(answer)).toMatch(/Tenders matching “drainage”, from Wakefield (Metropolitan|Schools)/);
    expect(textOf(answer)).toContain(chosen.title);
    expect(textOf(answer)).not.toContain(chosen.other);
    expect(buttonsOf(answer)).toContain('search/other_buyer/0');
    expect(textOf(answer)).toContain(chosen.otherName);
    // The other buyer's button runs the same search for that buyer, in place.
    await bot.slack.clickInMessage(MEMBER, answer, 'search/other_buyer/0');
    await eventually(() => textOf(answer).includes(chosen.other), 'the other buyer’s tenders');
    expect(textOf(answer)).toContain(`from ${chosen.otherName}`);
    expect(textOf(answer)).not.toContain(chosen.title);
    // A fuller name that only one buyer has: that buyer, without a note.
    const exact = await command(MEMBER, 'search drainage buyer:"wakefield schools trust"');
    expect(textOf(exact)).toContain('Drainage works 1');
    expect(textOf(exact)).not.toContain('Drainage works 0');
    expect(textOf(exact)).not.toContain('Several buyers');
    // One match: no note.
    const single = await command(MEMBER, 'search buyer:"Council <script> & Co"');
    expect(textOf(single)).not.toContain('Several buyers');
  });

  it('shares a card in the channel for everyone', async () => {
    const results = await command(MEMBER, 'search clean');
    const before = bot.slack.messagesIn(CHANNEL).filter((message) => message.ephemeralTo === null).length;
    await bot.slack.clickInMessage(MEMBER, results, 'tender/share');
    const shared = await eventually(
      () => bot.slack.messagesIn(CHANNEL).filter((message) => message.ephemeralTo === null)[before],
      'a shared card',
    );
    expect(textOf(shared)).toContain(`Shared by <@${MEMBER}>`);
    expect(buttonsOf(shared)).not.toContain('tender/share');
    expect(bot.slack.callsOf('chat.postMessage').at(-1)?.args.channel).toBe(CHANNEL);
    // The sharer is told, to themselves; wait for it so it is not taken for the next answer.
    await eventually(
      () =>
        bot.slack
          .messagesIn(CHANNEL, MEMBER)
          .find((message) => message.text === `Shared in <#${CHANNEL}>.` && message.ephemeralTo === MEMBER),
      'the confirmation to the sharer',
    );
    // Someone else bookmarks the shared card: it is redrawn, still saying who shared it. Who shared it
    // travels in the button's value, not read back from the card's text.
    const value = JSON.parse(
      shared.blocks
        .flatMap((block: { elements?: { action_id: string; value: string }[] }) => block.elements ?? [])
        .find((element: { action_id: string }) => element.action_id === 'tender/bookmark')?.value ?? '{}',
    );
    expect(value).toMatchObject({ c: 'shared', s: MEMBER });
    await bot.slack.clickInMessage('U0ADMIN', shared, 'tender/bookmark');
    await eventually(() => buttonsOf(shared).includes('tender/remove_bookmark'), 'the shared card redrawn');
    expect(textOf(shared)).toContain(`Shared by <@${MEMBER}>`);
    expect(textOf(shared)).not.toContain('Shared by <@U0ADMIN>');
    // The card's thread names who changed the workspace's list.
    await eventually(
      () =>
        bot.slack
          .threadOf(CHANNEL, shared.ts)
          .find((reply) => reply.text === '<@U0ADMIN> bookmarked this tender.'),
      'who bookmarked it, in the thread',
    );
    // Removing from a card in a channel asks first (Slack shows the confirm dialog before sending).
    const remove = shared.blocks
      .flatMap(
        (block: { elements?: { action_id: string; confirm?: { text: { text: string } } }[] }) =>
          block.elements ?? [],
      )
      .find((element: { action_id: string }) => element.action_id === 'tender/remove_bookmark');
    expect(remove?.confirm?.text.text).toContain('leaves it for everyone');
    await bot.slack.clickInMessage(MEMBER, shared, 'tender/remove_bookmark');
    await eventually(() => buttonsOf(shared).includes('tender/bookmark'), 'the shared card redrawn again');
    await eventually(
      () =>
        bot.slack
          .threadOf(CHANNEL, shared.ts)
          .find((reply) => reply.text === `<@${MEMBER}> removed this tender from the bookmarks.`),
      'who removed it, in the thread',
    );
    // A guest's click on the channel's card is answered to that guest alone, and changes nothing.
    const seen = bot.slack.messages.length;
    await bot.slack.clickInMessage(GUEST, shared, 'tender/bookmark');
    const refusal = await eventually(
      () =>
        bot.slack.messages.slice(seen).find((message) => message.text.startsWith('Guests can read tenders')),
      'the refusal',
    );
    expect(refusal.ephemeralTo).toBe(GUEST);
    expect(buttonsOf(shared)).toContain('tender/bookmark');
  });
});

describe('/tender show', () => {
  it('shows one tender in full, by `show <id>` or the id alone', async () => {
    const byShow = await command(MEMBER, `show ${TENDER_A}`);
    expect(textOf(byShow)).toContain(TENDER_A);
    const alone = await command(MEMBER, TENDER_A);
    expect(textOf(alone)).toContain(TENDER_A);
  });

  it('says plainly when the id is unknown', async () => {
    expect(textOf(await command(MEMBER, 'show ocds-nothing-here-1'))).toContain(
      'No tender has the id or reference `ocds-nothing-here-1`',
    );
  });

  it('escapes text from the service: a title with <!channel> and <@U123> notifies nobody', async () => {
    const message = await command(MEMBER, `show ${HOSTILE_ID}`);
    const text = textOf(message);
    expect(text).toContain('&lt;!channel&gt; urgent &lt;@U123&gt; cleaning');
    expect(text).toContain('Council &lt;script&gt; &amp; Co');
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<@U123>');
  });
});

describe('bookmarks', () => {
  it('bookmarks from a card, updates it in place, and removes it, as the service records', async () => {
    const results = await command(MEMBER, 'search clean');
    const tenderId = JSON.parse(
      results.blocks
        .flatMap((block: { elements?: { action_id: string; value: string }[] }) => block.elements ?? [])
        .find((element: { action_id: string }) => element.action_id === 'tender/bookmark')?.value ?? '{}',
    ).t as string;
    await bot.slack.clickInMessage(MEMBER, results, 'tender/bookmark');
    await eventually(
      () => buttonsOf(results).includes('tender/remove_bookmark'),
      'the card showing Remove bookmark',
    );
    expect(
      (await service.bookmarks.list({ limit: 100 })).data.map((bookmark) => bookmark.tenderId),
    ).toContain(tenderId);

    const listed = await command(MEMBER, 'bookmarks');
    // The bot runs on the app's default key here, and says whose list that is.
    expect(textOf(listed)).toContain('Bookmarks belong to whoever made the key Tenderbot was set up with');
    expect(textOf(listed)).toContain('shares this one list');
    expect(textOf(listed)).toContain(tenderId);

    await bot.slack.clickInMessage(MEMBER, results, 'tender/remove_bookmark');
    await eventually(
      () => !buttonsOf(results).includes('tender/remove_bookmark'),
      'the card showing Bookmark again',
    );
    expect(
      (await service.bookmarks.list({ limit: 100 })).data.map((bookmark) => bookmark.tenderId),
    ).not.toContain(tenderId);
  });

  it('refuses a guest’s click with a sentence, and nothing changes in the service', async () => {
    // A guest's own results carry no Bookmark; a card a member shared in the channel does.
    expect(JSON.stringify((await command(GUEST, 'search clean')).blocks)).not.toContain('tender/bookmark');
    const found = await command(MEMBER, 'search clean');
    // An earlier test shared too: wait for this share's own sentence, or the next command's answer is it.
    const toldBefore = bot.slack.messagesIn(CHANNEL, MEMBER).length;
    await bot.slack.clickInMessage(MEMBER, found, 'tender/share');
    const results = await eventually(
      () =>
        bot.slack
          .messagesIn(CHANNEL)
          .find(
            (message) =>
              message.ephemeralTo === null && JSON.stringify(message.blocks).includes('tender/bookmark'),
          ),
      'the card shared in the channel',
    );
    await eventually(
      () =>
        bot.slack
          .messagesIn(CHANNEL, MEMBER)
          .slice(toldBefore)
          // The same tender shared here by an earlier test within the minute is not posted twice.
          .some(
            (message) =>
              message.text.startsWith('Shared in <#') ||
              message.text.includes('shared in this channel moments ago'),
          ),
      'the sharer told',
    );
    const before = (await service.bookmarks.list({ limit: 100 })).pagination.total;
    const messagesBefore = bot.slack.messagesIn(CHANNEL, GUEST).length;
    const drawnBefore = textOf(results);
    await bot.slack.clickInMessage(GUEST, results, 'tender/bookmark');
    const refusal = await eventually(
      () =>
        bot.slack
          .messagesIn(CHANNEL, GUEST)
          .slice(messagesBefore)
          .find((message) => message.ephemeralTo === GUEST),
      'a refusal',
    );
    expect(refusal.text).toContain('Guests can read tenders but cannot bookmark tenders');
    expect((await service.bookmarks.list({ limit: 100 })).pagination.total).toBe(before);
    expect(textOf(results)).toBe(drawnBefore);
  });
});

describe('directories and saved searches', () => {
  it('pages through every buyer with Next and Previous, in place', async () => {
    const buyers = await command(MEMBER, 'buyers');
    const heading = /All buyers\* · 1–10 of ([\d,]+)/.exec(textOf(buyers));
    expect(heading, textOf(buyers).slice(0, 200)).not.toBeNull();
    const total = Number(heading?.[1]?.replace(/,/g, ''));
    expect(total).toBeGreaterThan(10);
    expect(buttonsOf(buyers)).toContain('list/next');
    expect(buttonsOf(buyers)).not.toContain('list/previous');
    const firstPage = textOf(buyers);
    await bot.slack.clickInMessage(MEMBER, buyers, 'list/next');
    await eventually(() => textOf(buyers).includes(`11–${Math.min(20, total)} of`), 'page two in place');
    expect(textOf(buyers)).not.toBe(firstPage);
    expect(buttonsOf(buyers)).toContain('list/previous');
    await bot.slack.clickInMessage(MEMBER, buyers, 'list/previous');
    await eventually(() => textOf(buyers).includes('1–10 of'), 'page one again');
    // A narrowed list keeps what was typed across pages.
    const narrowed = await command(MEMBER, 'suppliers ltd');
    expect(textOf(narrowed)).toMatch(/Suppliers matching “ltd”|No suppliers match/);
  });

  it('lists buyers, shows one with its notices and the cap', async () => {
    const buyers = await command(MEMBER, 'buyers');
    expect(textOf(buyers)).toContain('All buyers');
    const before = bot.slack.messagesIn(CHANNEL, MEMBER).length;
    const sent = await bot.slack.clickInMessage(MEMBER, buyers, 'directory/show_buyer');
    const detail = await eventually(() => bot.slack.answerTo(sent, CHANNEL, MEMBER, before), 'a buyer card');
    expect(detail.blocks[0].type).toBe('header');
    expect(textOf(detail)).toMatch(/notice/);
    // Its notices under a heading, each with a button that opens it in full.
    expect(textOf(detail)).toContain('*Latest notices*');
    expect(buttonsOf(detail)).toContain('tender/show');
    const shown = bot.slack.messagesIn(CHANNEL, MEMBER).length;
    await bot.slack.clickInMessage(MEMBER, detail, 'tender/show');
    const full = await eventually(() => bot.slack.messagesIn(CHANNEL, MEMBER)[shown], 'the notice in full');
    expect(textOf(full)).toContain('*Published*');
  });

  it('answers a region no tender names with the regions there are', async () => {
    const typo = await command(MEMBER, 'search region:Walse');
    expect(textOf(typo)).toContain('Found no tenders in Walse');
    expect(textOf(typo)).toContain('Tenderbot knows no region called “Walse”');
    expect(textOf(typo)).toContain('`region:\\"Wales\\"`');
    // A real region with nothing matching is not called unknown.
    const none = await command(MEMBER, 'search zzzzqqq region:Wales');
    expect(textOf(none)).not.toContain('knows no region');
  });

  it('reads a region of two words typed without quotes, or with a hyphen, as that region, and says its quoted form', async () => {
    const typedAs: [string, string][] = [
      ['search cleaning region:south west', 'south west'],
      ['search region:South-West cleaning', 'South-West'],
    ];
    for (const [text, typed] of typedAs) {
      const answer = await command(MEMBER, text);
      expect(textOf(answer), text).toContain(`Read \`region:${typed}\` as \`region:\\"South West\\"\``);
      expect(textOf(answer), text).toContain('a region of more than one word goes in quotes.');
      expect(textOf(answer), text).not.toContain('knows no region');
      expect(textOf(answer), text).toMatch(/in South West/);
    }
  });

  it('shows a framework with its counts and a capped list', async () => {
    const frameworks = await command(MEMBER, 'frameworks framework');
    const before = bot.slack.messagesIn(CHANNEL, MEMBER).length;
    const framework = frameworks.blocks.find(
      (block: { accessory?: { value: string } }) => block.accessory?.value === 'ocds-tbdemo-fw-0001',
    );
    expect(framework).toBeDefined();
    const sent = await bot.slack.clickInMessage(
      MEMBER,
      { ...frameworks, blocks: [framework] },
      'directory/show_framework',
    );
    const detail = await eventually(
      () => bot.slack.answerTo(sent, CHANNEL, MEMBER, before),
      'a framework card',
    );
    expect(textOf(detail)).toMatch(/100 of \d+ suppliers shown/);
    expect(textOf(detail)).toMatch(/100 of \d+ call-offs shown/);
  });

  it('lists suppliers with a region filter', async () => {
    const suppliers = await command(MEMBER, 'suppliers region:"North West"');
    expect(textOf(suppliers)).toMatch(/Suppliers matching in North West|No suppliers match/);
  });

  it('lists the organisation’s saved searches and runs one as a tender search', async () => {
    const saved = await command(MEMBER, 'saved');
    expect(textOf(saved)).toContain('Acme search 1');
    // What each finds, in words: never the stored field names.
    expect(textOf(saved)).toContain('Tenders matching “cleaning”, in North West');
    expect(textOf(saved)).not.toMatch(/\bq: |region: /);
    const before = bot.slack.messagesIn(CHANNEL, MEMBER).length;
    const sent = await bot.slack.clickInMessage(MEMBER, saved, 'saved/run');
    const results = await eventually(
      () => bot.slack.answerTo(sent, CHANNEL, MEMBER, before),
      'the saved search’s results',
    );
    expect(textOf(results)).toMatch(/“cleaning”, in North West/);
    // Which saved search it is, by its name, on the page and after paging.
    expect(textOf(results)).toMatch(/\(saved search “Acme search 1”\)/);
  });

  it('shows each saved search’s id as the command that follows it in a channel, and that command works', async () => {
    const saved = await command(MEMBER, 'saved');
    const run = saved.blocks.find(
      (block: { accessory?: { action_id?: string } }) => block.accessory?.action_id === 'saved/run',
    );
    const id = run.accessory.value as string;
    expect(run.text.text).toContain(`\`/tender subscribe search ${id}\``);
    const subscribed = await command(MEMBER, `subscribe search ${id}`);
    expect(textOf(subscribed)).toContain('the saved search “Acme search');
  });
});

describe('a click on a card that is out of date', () => {
  it('says so about the click when its tender, buyer or saved search no longer exists', async () => {
    const stale: [string, string][] = [
      ['tender/share', 'ocds-no-such-tender-0001'],
      ['tender/bookmark', JSON.stringify({ t: 'ocds-no-such-tender-0001', c: 'detail' })],
      ['directory/show_buyer', '00000000-0000-4000-8000-00000000dead'],
      ['directory/show_framework', 'ocds-no-such-framework'],
      ['saved/run', '00000000-0000-4000-8000-00000000dead'],
    ];
    expect(stale.length).toBeGreaterThan(0);
    for (const [actionId, value] of stale) {
      const card = bot.slack.postEphemeralAsApp(MEMBER, CHANNEL, 'an old card', [
        {
          type: 'actions',
          elements: [{ type: 'button', action_id: actionId, value, text: { type: 'plain_text', text: 'x' } }],
        },
      ]);
      const before = bot.slack.messagesIn(CHANNEL, MEMBER).length;
      await bot.slack.clickInMessage(MEMBER, card, actionId);
      const said = await eventually(
        () =>
          bot.slack
            .messagesIn(CHANNEL, MEMBER)
            .slice(before)
            .find((seen) => seen !== card),
        `an answer to ${actionId}`,
      );
      expect(`${said.text} ${textOf(said)}`, actionId).toContain('That button is out of date');
      expect(textOf(said)).not.toContain('went wrong');
    }
  });
});

describe('room for comments and pipelines (extension points)', () => {
  /** Clicks `actionId` in `message` as MEMBER and resolves with the next message MEMBER sees. */
  async function clickAndHear(message: FakeMessage, actionId: string, value?: string): Promise<FakeMessage> {
    const before = bot.slack.messagesIn(CHANNEL, MEMBER).length;
    await bot.slack.clickInMessage(MEMBER, message, actionId, value === undefined ? undefined : { value });
    return eventually(
      () =>
        bot.slack
          .messagesIn(CHANNEL, MEMBER)
          .slice(before)
          .find((seen) => seen !== message),
      `an answer to ${actionId}`,
    );
  }

  /** Clicks "Comment" in `message` as MEMBER; resolves with the comment modal once filled (as JSON text). */
  async function modalOpenedBy(message: FakeMessage): Promise<string> {
    const updatesBefore = bot.slack.callsOf('views.update').length;
    await bot.slack.clickInMessage(MEMBER, message, 'comment/open');
    const filled = await eventually(
      () => bot.slack.callsOf('views.update')[updatesBefore],
      'the comment modal',
    );
    return JSON.stringify(filled.args.view);
  }

  it('lists the new commands in help, and routes each to its feature', async () => {
    const help = textOf(await command(MEMBER, 'help'));
    for (const usage of [
      '/tender comments &lt;id&gt;',
      '/tender pipelines [words] [status:…] [archived|all]',
      '/tender pipeline &lt;bid&gt;',
      '/tender pipeline status &lt;bid&gt; &lt;status&gt;',
      '/tender pipeline stage &lt;bid&gt; &lt;stage&gt; &lt;status&gt;',
      '/tender pipeline archive|restore &lt;bid&gt;',
    ])
      expect(help).toContain(usage);
    expect(textOf(await command(MEMBER, `comments ${TENDER_A}`))).toContain('Comments on the tender');
    expect(textOf(await command(MEMBER, 'pipelines status:active'))).toContain('is not a bid status');
    expect(textOf(await command(MEMBER, 'pipeline stage 1 Draft completed'))).toContain(
      '`1` is too short to pick out one bid',
    );
  });

  it('puts Comment and Start a bid on tender cards, Comment on buyer cards, each routed with its target', async () => {
    const results = await command(MEMBER, 'search clean');
    expect(buttonsOf(results)).toContain('comment/open');
    expect(buttonsOf(results)).toContain('pipeline/start_bid');
    const buttonValueIn = (message: FakeMessage, actionId: string) =>
      JSON.parse(
        message.blocks
          .flatMap((block: { elements?: { action_id: string; value: string }[] }) => block.elements ?? [])
          .find((element: { action_id: string }) => element.action_id === actionId)?.value ?? 'null',
      );
    expect(buttonValueIn(results, 'comment/open')).toMatchObject({ e: 'tender' });
    expect(buttonValueIn(results, 'pipeline/start_bid').t).toBe(buttonValueIn(results, 'comment/open').id);
    expect(await modalOpenedBy(results)).toContain('comment/submit');
    const updatesBefore = bot.slack.callsOf('views.update').length;
    await bot.slack.clickInMessage(MEMBER, results, 'pipeline/start_bid');
    const startBid = await eventually(
      () => bot.slack.callsOf('views.update')[updatesBefore],
      'the start-a-bid modal',
    );
    expect(JSON.stringify(startBid.args.view)).toContain('pipeline/start_bid_submit');

    const buyers = await command(MEMBER, 'buyers council');
    expect(buttonsOf(buyers)).toContain('comment/open');
    expect(buttonValueIn(buyers, 'comment/open')).toMatchObject({ e: 'buyer' });
    expect(await modalOpenedBy(buyers)).toContain('(buyer)');

    // A forged target is a sentence about the click, never "something went wrong".
    for (const [actionId, forged] of [
      ['comment/open', '{"e":"pipeline","id":"1"}'],
      ['comment/open', `~${'Z'.repeat(22)}`],
      ['pipeline/start_bid', '{"t":""}'],
    ] as const) {
      const said = await clickAndHear(results, actionId, forged);
      expect(`${said.text} ${textOf(said)}`, forged).toContain('That button is out of date');
      expect(textOf(said)).not.toContain('went wrong');
    }
  });
});

describe('what reached Slack', () => {
  it('every Block Kit payload the app sent is within Slack’s limits', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const call of bot.slack.calls) {
      if (call.args.blocks) {
        checked++;
        problems.push(
          ...blockKitProblems(call.args.blocks, 'message').map((problem) => `${call.method}: ${problem}`),
        );
      }
      if (call.args.view) {
        checked++;
        problems.push(...viewProblems(call.args.view).map((problem) => `${call.method}: ${problem}`));
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(problems).toEqual([]);
  });

  it('the logs hold no API key and no Slack token or secret', () => {
    const logs = bot.logs();
    expect(logs.length).toBeGreaterThan(1000);
    for (const secret of [...Object.values(KEYS), BOT_TOKEN, SIGNING_SECRET])
      expect(logs).not.toContain(secret);
  });
});
