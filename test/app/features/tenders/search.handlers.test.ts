import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  searchCommand,
  searchSentence,
  showSearchPage,
  unknownCommand,
} from '../../../../src/app/features/tenders/search.ts';
import { shareTender } from '../../../../src/app/features/tenders/share-tender.ts';
import { showCommand } from '../../../../src/app/features/tenders/tender-detail.ts';
import { describeFailure } from '../../../../src/app/shared/failure-sentences.ts';
import { SearchIds, TenderIds } from '../../../../src/app/shared/ids.ts';
import { SuggestionIds } from '../../../../src/app/shared/views/suggestions.ts';
import { importOcdsFiles } from '../../../../src/service/import/ocds-importer.ts';
import { TENDER_A, TENDER_B } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';
import { textOf } from '../../../support/slack-text.ts';
import { actionIds, bookmarksOf } from './tender-answers.ts';

let harness: HandlerHarness;
let titleA: string;
let titleB: string;
beforeAll(async () => {
  harness = await startHandlerHarness();
  const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
  titleA = (await client.tenders.get(TENDER_A)).title;
  titleB = (await client.tenders.get(TENDER_B)).title;
}, 60_000);
afterAll(async () => harness?.close());

const _UNKNOWN_TENDER = 'ocds-tbdemo-9999999';

const workspaceBookmarks = () => bookmarksOf(harness);

describe('searchCommand (/tender search)', () => {
  it('answers the first page to the asker alone, cards with Bookmark and a Next when there is more', async () => {
    const request = harness.request();
    await searchCommand(harness.context, request, 'marketing');
    expect(request.answers).toHaveLength(1);
    expect(request.answers[0]?.response_type).toBe('ephemeral');
    expect(request.said()).toContain('marketing');
    // Which order: the service's, by publication (not by deadline), said so.
    expect(request.said()).toMatch(/: 1–5 of \d+, newest published first$/);
    expect(actionIds(request.answers)).toContain(TenderIds.bookmark);
  });

  it('draws a bookmark made outside Tenderbot (straight at the service) on the next page, and its removal', async () => {
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    /** The action ids of the card of `tenderId` on a fresh search for its title. */
    const cardActions = async (tenderId: string, title: string) => {
      const request = harness.request();
      await searchCommand(harness.context, request, title.split(/\s+/).slice(0, 3).join(' '));
      const blocks = (request.answers[0]?.blocks ?? []) as { block_id?: string }[];
      const card = blocks.find((block) => block.block_id === `tender:${tenderId}`);
      expect(card).toBeDefined();
      return actionIds(card);
    };
    // TENDER_B is not in the workspace's list to begin with; the list is left as it was found.
    expect(await workspaceBookmarks()).not.toContain(TENDER_B);
    expect(await cardActions(TENDER_B, titleB)).not.toContain(TenderIds.removeBookmark);
    await client.bookmarks.add(TENDER_B);
    try {
      expect(await cardActions(TENDER_B, titleB)).toContain(TenderIds.removeBookmark);
    } finally {
      await client.bookmarks.remove(TENDER_B);
    }
    const after = await cardActions(TENDER_B, titleB);
    expect(after).toContain(TenderIds.bookmark);
    expect(after).not.toContain(TenderIds.removeBookmark);
  });

  it('refuses a filter it cannot read, pointing to the help, and searches nothing', async () => {
    const request = harness.request();
    await searchCommand(harness.context, request, 'cleaning status:someday');
    expect(request.said()).toContain('`status:someday` is not a status');
    expect(JSON.stringify(request.answers)).toContain('See `/tender help`.');
    expect(actionIds(request.answers)).not.toContain(TenderIds.bookmark);
  });

  it('shows the filters its refusal names as code, not as look-alike backticks', async () => {
    const request = harness.request();
    await searchCommand(harness.context, request, 'cleaning regoin:Leeds');
    const shown = JSON.stringify(request.answers);
    expect(shown).toContain('`regoin:` is not a filter; did you mean `region:`');
    expect(shown).not.toContain('\u02CB');
  });

  it('a sentence after /tender that reads as a search is run, the command it ran said first; other words get the help card', async () => {
    const request = harness.request();
    await unknownCommand(harness.context, request, 'marketing', 'in Wales over £10k');
    expect(request.answers).toHaveLength(1);
    const said = textOf(request.answers);
    expect(said).not.toContain('is not a `/tender` command');
    expect(said).toContain('Searched: `/tender search marketing region:\\"Wales\\" value&gt;10k`');
    // Words that read as no sentence: the help card, offering them as a search as typed.
    const words = harness.request();
    await unknownCommand(harness.context, words, 'zzqqxx', 'rota');
    expect(textOf(words.answers)).toContain('`zzqqxx` is not a `/tender` command');
    expect(JSON.stringify(words.answers[0]?.blocks)).toContain('"value":"search zzqqxx rota"');
  });

  it('words that find nothing but read as a sentence: offers the search the sentence means, which finds tenders', async () => {
    const request = harness.request();
    await searchCommand(harness.context, request, 'marketing in Wales over £10k');
    const blocks = (request.answers[0]?.blocks ?? []) as {
      text?: { text: string };
      elements?: { action_id: string; value: string }[];
    }[];
    // The words as typed first: nothing changes under a person who meant them.
    expect(blocks[0]?.text?.text).toContain('Found no tenders');
    expect(blocks.map((block) => block.text?.text)).toContain(
      'Read as a sentence, this is `/tender search marketing region:"Wales" value&gt;10k`.',
    );
    const offered = blocks.flatMap((block) => block.elements ?? []);
    expect(offered).toEqual([
      expect.objectContaining({
        action_id: 'command/did_you_mean',
        value: 'search marketing region:"Wales" value>10k',
      }),
    ]);
    // What the button runs (Try again's listener runs a command's text) finds tenders.
    const run = harness.request();
    await searchCommand(harness.context, run, 'marketing region:"Wales" value>10k');
    expect(textOf(run.answers)).not.toContain('Found no tenders');
    expect(actionIds(run.answers)).toContain(TenderIds.bookmark);
    // Words that read as no sentence get no such offer.
    const plainWords = harness.request();
    await searchCommand(harness.context, plainWords, 'zzqqxx');
    expect(textOf(plainWords.answers)).not.toContain('Read as a sentence');
  });

  it('a region misspelt after “in”: offers the search in the region meant, which finds tenders', async () => {
    const request = harness.request();
    await searchCommand(harness.context, request, 'services in Londn');
    expect(textOf(request.answers)).toContain('Found no tenders matching “services in Londn”');
    expect(textOf(request.answers)).toContain(
      // Block text as the payload holds it (its quotes escaped).
      'Tenderbot knows no region called “Londn”. Did you mean London? That search is `/tender search services region:\\"London\\"`.',
    );
    const offered = ((request.answers[0]?.blocks ?? []) as { elements?: unknown[] }[]).flatMap(
      (block) => block.elements ?? [],
    );
    expect(offered).toEqual([
      expect.objectContaining({
        action_id: SuggestionIds.commandMeant,
        text: expect.objectContaining({ text: 'Search in London' }),
        value: 'search services region:"London"',
      }),
    ]);
    const run = harness.request();
    await searchCommand(harness.context, run, 'services region:"London"');
    expect(actionIds(run.answers)).toContain(TenderIds.bookmark);
    // Near two regions, or near none: nothing is guessed; mended, words that still find nothing: no offer.
    for (const typed of ['services in Narnia', 'services in schools', 'zzqqxx in Londn']) {
      const unguessed = harness.request();
      await searchCommand(harness.context, unguessed, typed);
      expect(textOf(unguessed.answers), typed).not.toContain('Did you mean');
    }
  });

  it('words and region both misspelt: offers the words meant in the region meant, and not the words alone', async () => {
    const request = harness.request();
    await searchCommand(harness.context, request, 'clenaing in Londn');
    const said = textOf(request.answers);
    expect(said).toContain(
      'Tenderbot knows no region called “Londn”, and no tender matches “clenaing”. Did you mean *cleaning* in London? That search is `/tender search cleaning region:\\"London\\"`.',
    );
    const offered = ((request.answers[0]?.blocks ?? []) as { elements?: { value?: string }[] }[]).flatMap(
      (block) => block.elements ?? [],
    );
    expect(offered.map((element) => element.value)).toEqual(['search cleaning region:"London"']);
    // The words' correction alone ("cleaning in Londn", which finds nothing) is not offered.
    expect(said).not.toContain('*cleaning in Londn*');
  });

  it('refuses a buyer’s name no buyer has, saying how to find it', async () => {
    const request = harness.request();
    await searchCommand(harness.context, request, 'cleaning buyer:Nowhereshire');
    expect(request.said()).toContain('No buyer is called “Nowhereshire”');
    expect(request.said()).toContain('/tender buyers Nowhereshire');
  });
});

describe('searchSentence (a direct message read as a search)', () => {
  it('reads an amount in the sentence as a filter and first shows the command it ran', async () => {
    const request = harness.request({ channelId: 'D0MEMBER' });
    await searchSentence(harness.context, request, 'marketing over £1m');
    expect(JSON.stringify(request.answers[0]?.blocks?.[0])).toContain(
      'Searched: `/tender search marketing value&gt;1m`',
    );
  });

  it('shows the command a sentence was read as above a refusal, which speaks of that command', async () => {
    const request = harness.request({ channelId: 'D0MEMBER' });
    await searchSentence(harness.context, request, 'marketing over 100k and under 50k');
    const blocks = JSON.stringify(request.answers[0]?.blocks);
    // Nothing was searched: the line says what the words were read as, not "Searched:".
    expect(blocks).toContain(
      'Read as `/tender search marketing value&gt;100k value&lt;50k`; nothing was searched.',
    );
    expect(blocks).not.toContain('Searched:');
    expect(blocks).toContain('is above the');
  });

  it('a question with no filter in it searches its words, not its asking: “are there any marketing tenders?”', async () => {
    const request = harness.request({ channelId: 'D0MEMBER' });
    await searchSentence(harness.context, request, 'are there any marketing tenders?');
    const said = textOf(request.answers);
    expect(said).toContain('Searched: `/tender search marketing`');
    expect(said).toMatch(/Tenders matching “marketing”\* · 1–5 of \d+/);
  });

  it('a question with a filter drops its asking too, and one that asks for nothing is asked what to look for', async () => {
    const request = harness.request({ channelId: 'D0MEMBER' });
    await searchSentence(harness.context, request, 'do you have any marketing tenders over £1k?');
    expect(textOf(request.answers)).toContain('Searched: `/tender search marketing value&gt;1k`');
    const nothing = harness.request({ channelId: 'D0MEMBER' });
    await searchSentence(harness.context, nothing, 'are there any?');
    expect(textOf(nothing.answers)).toContain('What should I look for?');
    expect(textOf(nothing.answers)).not.toContain('Found no tenders');
  });

  it('asks which dollars “over $1m” means, with a button for each, as /tender search does', async () => {
    const request = harness.request({ channelId: 'D0MEMBER' });
    await searchSentence(harness.context, request, 'IT over $1m');
    const answer = request.answers[0];
    const blocks = JSON.stringify(answer?.blocks);
    expect(blocks).toContain('“$” says no currency. Which dollars?');
    expect(blocks).not.toContain('Searched:');
    const buttons = (answer?.blocks ?? []).flatMap(
      (block) => (block as { elements?: { value?: string; text?: { text: string } }[] }).elements ?? [],
    );
    expect(buttons.map((button) => button.text?.text)).toEqual(['In US dollars', 'In Canadian dollars']);
    expect(buttons.map((button) => button.value)).toEqual([
      'search IT value>1m usd',
      'search IT value>1m cad',
    ]);
    // A second region is not lost to the question.
    const two = harness.request({ channelId: 'D0MEMBER' });
    await searchSentence(harness.context, two, 'IT over $1m in Wales & London');
    expect(textOf(two.answers)).toContain('Which dollars?');
    expect(textOf(two.answers)).toContain('A search takes one region: this one is Wales. For London:');
  });

  it('says a currency the service has no rates for was searched as a word, with the amount in pounds', async () => {
    // Nothing found (no tender says "jpy"): said all the same, where it matters most.
    for (const [typed, read] of [
      ['over 1m jpy', searchSentence],
      ['value>1m jpy', searchCommand],
    ] as const) {
      const request = harness.request({ channelId: 'D0MEMBER' });
      await read(harness.context, request, typed);
      expect(textOf(request.answers), typed).toContain(
        '`jpy` was searched for as a word, and the amounts read in pounds: the tender service compares values in GBP, EUR, USD or CAD, not JPY.',
      );
    }
    const named = harness.request({ channelId: 'D0MEMBER' });
    await searchCommand(harness.context, named, 'value>1m eur');
    expect(textOf(named.answers)).not.toContain('searched for as a word');
  });

  it('says a closing day with no year was read as next year’s, and the heading gives that year', async () => {
    const request = harness.request({ channelId: 'D0MEMBER' });
    const may13 = new Date('2026-05-13T10:00:00Z');
    await searchSentence({ ...harness.context, clock: () => may13 }, request, 'services due by 12 May');
    const said = textOf(request.answers);
    expect(said).toContain('Searched: `/tender search services closes&lt;364d`');
    expect(said).toContain(
      'Read “due by 12 May” as 12 May 2027: no year was given, and 12 May 2026 has passed.',
    );
    expect(said).toContain('closing by 12 May 2027');
  });

  it('searches the first of two regions named, and offers the other', async () => {
    const request = harness.request({ channelId: 'D0MEMBER' });
    await searchSentence(harness.context, request, 'services in Wales, London');
    const said = textOf(request.answers);
    expect(said).toContain('Searched: `/tender search services region:\\"Wales\\"`');
    expect(said).toContain(
      'A search takes one region: this one is Wales. For London: `/tender search services region:\\"London\\"`',
    );
  });

  it('reads a closing date typed with the wrong weekday as the date, and says which weekday it is', async () => {
    const request = harness.request({ channelId: 'D0MEMBER' });
    const today = new Date('2026-11-29T10:00:00Z');
    // 12 May 2027 is a Wednesday.
    await searchSentence(
      { ...harness.context, clock: () => today },
      request,
      'services closing Thursday 12 May 2027',
    );
    const said = textOf(request.answers);
    expect(said).toContain('Searched: `/tender search services closes&gt;164d closes&lt;164d`');
    expect(said).toContain(
      'Read “closing Thursday 12 May 2027” as 12 May 2027, a Wednesday: the date, not the weekday.',
    );
    // With no year given as well, the typed words are named once.
    const again = harness.request({ channelId: 'D0MEMBER' });
    await searchSentence(
      { ...harness.context, clock: () => new Date('2026-12-05T10:00:00Z') },
      again,
      'services by Mon 1 Dec',
    );
    const both = textOf(again.answers);
    expect(both).toContain(
      'Read “by Mon 1 Dec” as 1 Dec 2027: no year was given, and 1 Dec 2026 has passed. It is a Wednesday: the date was read, not the weekday.',
    );
    expect(both.split('by Mon 1 Dec')).toHaveLength(2);
  });

  it('“closing next month” is searched as a window, and the heading says where it starts', async () => {
    const request = harness.request({ channelId: 'D0MEMBER' });
    const nov28 = new Date('2026-11-28T10:00:00Z');
    await searchSentence({ ...harness.context, clock: () => nov28 }, request, 'services closing next month');
    const said = textOf(request.answers);
    expect(said).toContain('Searched: `/tender search services closes&gt;3d closes&lt;33d`');
    expect(said).toContain('closing from 1 Dec 2026 to 31 Dec 2026');
  });

  it('a sentence with a misspelt region and an amount: the search read, then the one in the region meant', async () => {
    const request = harness.request({ channelId: 'D0MEMBER' });
    await searchSentence(harness.context, request, 'services in Londn over £10k');
    const said = textOf(request.answers);
    expect(said).toContain('Searched: `/tender search services in Londn value&gt;10k`');
    expect(said).toContain('That search is `/tender search services region:\\"London\\" value&gt;10k`.');
  });

  it('“closing tomorrow” and “closing 12/05/2027” are searched as that one day, and the heading says it', async () => {
    const nov28 = new Date('2026-11-28T10:00:00Z');
    const cases: [string, string, string][] = [
      ['services closing tomorrow', 'services closes&gt;1d closes&lt;1d', 'closing on 29 Nov 2026'],
      ['services closing 12/05/2027', 'services closes&gt;165d closes&lt;165d', 'closing on 12 May 2027'],
      ['services due by Friday', 'services closes&lt;6d', 'closing by 4 Dec 2026'],
    ];
    for (const [typed, searched, heading] of cases) {
      const request = harness.request({ channelId: 'D0MEMBER' });
      await searchSentence({ ...harness.context, clock: () => nov28 }, request, typed);
      const said = textOf(request.answers);
      expect(said, typed).toContain(`Searched: \`/tender search ${searched}\``);
      expect(said, typed).toContain(heading);
    }
  });

  it('an API key pasted as search words: says it looks like one and what to do, and never repeats it', async () => {
    const pasted = 'pis_Zsqb3jcvEN8cvpCEUmZ4Zti3HhHpDsp5s-UVsENybH0';
    for (const typed of [pasted, `cleaning ${pasted}`]) {
      const request = harness.request();
      // The service refuses it (a key is never taken in a URL); the app's error handler says this.
      const failure: unknown = await searchCommand(harness.context, request, typed).then(
        () => null,
        (error: unknown) => error,
      );
      expect(request.answers).toEqual([]);
      const said = describeFailure(failure).sentence;
      expect(said, typed).toContain('looks like an API key');
      expect(said, typed).not.toContain('too many');
      expect(said, typed).not.toContain('Zsqb3jcv');
    }
  });

  it('a closing day in numbers that cannot be searched: says why it was searched as words, and how to write one', async () => {
    const nov28 = new Date('2026-11-28T10:00:00Z');
    for (const [typed, why] of [
      ['services closing 31/02/2027', '“31/02/2027” is not a day the calendar has'],
      ['services closing 1/1/2020', '“1/1/2020” has passed (closing days are looked for from today on)'],
      ['services by 12/05/2040', '“12/05/2040” is more than ten years ahead'],
      // After its weekday: not read as this Thursday with "31.02.2027" as a word.
      ['services closing Thursday 31.02.2027', '“31.02.2027” is not a day the calendar has'],
    ]) {
      const request = harness.request({ channelId: 'D0MEMBER' });
      await searchSentence({ ...harness.context, clock: () => nov28 }, request, typed ?? '');
      const said = textOf(request.answers);
      expect(said, typed).toContain('Found no tenders');
      expect(said, typed).toContain(
        `${why}, so it was searched as words. Write a closing day as \`closing 12/05/2027\` (the day first) or \`closing 12 May 2027\`.`,
      );
    }
    // A two-digit year is read.
    const short = harness.request({ channelId: 'D0MEMBER' });
    await searchSentence({ ...harness.context, clock: () => nov28 }, short, 'services by 12/05/27');
    expect(textOf(short.answers)).toContain('Searched: `/tender search services closes&lt;165d`');
  });

  it('a phrase with nothing to read as a filter is searched as typed, without a “Searched:” line', async () => {
    const request = harness.request({ channelId: 'D0MEMBER' });
    await searchSentence(harness.context, request, 'marketing');
    expect(request.answers).toHaveLength(1);
    expect(JSON.stringify(request.answers)).not.toContain('Searched:');
    expect(actionIds(request.answers)).toContain(TenderIds.bookmark);
  });
});

describe('showSearchPage (Next, Previous, another buyer)', () => {
  it('redraws the clicked message with the page asked for', async () => {
    const first = harness.request({ kind: 'click' });
    await showSearchPage(harness.context, first, { f: { q: 'services' }, o: 0 }, true);
    const second = harness.request({ kind: 'click' });
    await showSearchPage(harness.context, second, { f: { q: 'services' }, o: 5 }, true);
    expect(second.answers[0]?.replace_original).toBe(true);
    expect(actionIds(second.answers)).toContain(SearchIds.previous);
    expect(JSON.stringify(second.answers)).not.toBe(JSON.stringify(first.answers));
  });

  it('a word that finds nothing: says so and offers the word of the data it most likely meant', async () => {
    const request = harness.request({ kind: 'click' });
    await showSearchPage(harness.context, request, { f: { q: 'markting' }, o: 0 }, true);
    expect(request.said()).toContain('Found no tenders');
    expect(actionIds(request.answers)).not.toContain(TenderIds.bookmark);
    expect(JSON.stringify(request.answers)).toContain('marketing');
  });
});

describe('shareTender ("Share in channel")', () => {
  it('posts one card in the channel for everyone, and tells the sharer', async () => {
    const before = harness.slack.messagesIn('C0GENERAL').length;
    const request = harness.request({ userId: 'U0MEMBER', channelId: 'C0GENERAL', kind: 'click' });
    await shareTender(harness.context, request, TENDER_A);
    const posted = harness.slack.messagesIn('C0GENERAL').slice(before);
    expect(posted).toHaveLength(1);
    expect(posted[0]?.ephemeralTo).toBeNull();
    expect(textOf(posted[0])).toContain(titleA);
    expect(request.said()).toBe('Shared in <#C0GENERAL>.');
  });

  it('a repeat within the minute (a double click, by anyone) is told, not posted again', async () => {
    const before = harness.slack.messagesIn('C0GENERAL').length;
    const clicks = ['U0MEMBER', 'U0MEMBER', 'U0ADMIN'].map((userId) =>
      harness.request({ userId, channelId: 'C0GENERAL', kind: 'click' }),
    );
    await Promise.all(clicks.map((click) => shareTender(harness.context, click, TENDER_B)));
    expect(harness.slack.messagesIn('C0GENERAL').slice(before)).toHaveLength(1);
    expect(clicks.map((click) => click.said()).sort()).toEqual([
      'Shared in <#C0GENERAL>.',
      'This tender was shared in this channel moments ago, so it was not posted again.',
      'This tender was shared in this channel moments ago, so it was not posted again.',
    ]);
  });

  it('offers no Share in direct messages, and says where sharing works when an older card is pressed there', async () => {
    // A form's answer sent to the person's direct messages names no channel; a direct message is D….
    for (const channelId of ['', 'D0MEMBER']) {
      const search = harness.request({ userId: 'U0MEMBER', channelId });
      await searchCommand(harness.context, search, 'marketing');
      expect(actionIds(search.answers), channelId).toContain(TenderIds.bookmark);
      expect(actionIds(search.answers), channelId).not.toContain(TenderIds.share);
    }
    const inChannel = harness.request({ userId: 'U0MEMBER', channelId: 'C0GENERAL' });
    await searchCommand(harness.context, inChannel, 'marketing');
    expect(actionIds(inChannel.answers)).toContain(TenderIds.share);
    const before = harness.slack.messagesIn('D0MEMBER').length;
    const press = harness.request({ userId: 'U0MEMBER', channelId: 'D0MEMBER', kind: 'click' });
    await shareTender(harness.context, press, TENDER_A);
    expect(press.said()).toBe(
      'Sharing works from a channel: run the search there (`/tender search …`) and press *Share in channel* on the card.',
    );
    expect(harness.slack.messagesIn('D0MEMBER')).toHaveLength(before);
  });

  it('refuses a guest, and says to invite Tenderbot where it is not in the channel', async () => {
    const guest = harness.request({ userId: 'U0GUEST', channelId: 'C0GENERAL', kind: 'click' });
    const before = harness.slack.messagesIn('C0GENERAL').length;
    await shareTender(harness.context, guest, TENDER_A);
    expect(guest.said()).toContain('Guests can read tenders but cannot share tenders in a channel.');
    expect(harness.slack.messagesIn('C0GENERAL')).toHaveLength(before);

    await harness.slack.removeApp('C0GENERAL');
    const member = harness.request({ userId: 'U0MEMBER', channelId: 'C0GENERAL', kind: 'click' });
    await shareTender(harness.context, member, 'ocds-tbdemo-0000203');
    expect(member.said()).toContain('Invite Tenderbot to this channel first');
    expect(harness.slack.messagesIn('C0GENERAL')).toHaveLength(before);
    // A share that could not be posted is not a share: after the invitation, sharing again posts it.
    await harness.slack.addApp('C0GENERAL');
    const again = harness.request({ userId: 'U0MEMBER', channelId: 'C0GENERAL', kind: 'click' });
    await shareTender(harness.context, again, 'ocds-tbdemo-0000203');
    expect(again.said()).toBe('Shared in <#C0GENERAL>.');
    expect(harness.slack.messagesIn('C0GENERAL')).toHaveLength(before + 1);
  });
});

describe('values as the data means them', () => {
  it('reads a placeholder amount as “Not stated”, and never rounds a real one to £0', async () => {
    // Sell2Wales publishes £0.01 where a notice gives no value; a tiny real amount keeps its pence.
    const file = join(mkdtempSync(join(tmpdir(), 'tenderbot-values-')), 'values.jsonl');
    const release = (id: string, title: string, value: { amount: number; currency: string }) =>
      JSON.stringify({
        ocid: id,
        id: `r-${id}`,
        date: '2026-11-01T00:00:00Z',
        tag: ['tender'],
        initiationType: 'tender',
        buyer: { id: 'b-values', name: 'Values Council' },
        parties: [{ id: 'b-values', name: 'Values Council', roles: ['buyer'] }],
        tender: { id: `T-${id}`, title, status: 'active', value },
      });
    writeFileSync(
      file,
      [
        release('ocds-values-1', 'Placeholder pennies', { amount: 0.01, currency: 'GBP' }),
        release('ocds-values-2', 'Placeholder one euro', { amount: 1, currency: 'EUR' }),
        release('ocds-values-3', 'Forty pence of stamps', { amount: 0.4, currency: 'GBP' }),
      ].join('\n'),
    );
    await importOcdsFiles(harness.sandbox.db, [file]);
    const shown = async (id: string) => {
      const request = harness.request({ userId: 'U0MEMBER' });
      await showCommand(harness.context, request, id);
      return textOf(request.answers);
    };
    expect(await shown('ocds-values-1')).toContain('*Value*\\nNot stated');
    expect(await shown('ocds-values-2')).toContain('*Value*\\nNot stated');
    const pence = await shown('ocds-values-3');
    expect(pence).toContain('*Value*\\n£0.40');
    expect(pence).not.toMatch(/£0(?![.\d])/);
    // The same in a search's cards.
    const request = harness.request({ userId: 'U0MEMBER' });
    await searchCommand(harness.context, request, 'placeholder');
    const cards = textOf(request.answers);
    expect(cards).toContain('Placeholder pennies');
    expect(cards).toContain('Not stated');
    expect(cards).not.toContain('£0');
  });
});
