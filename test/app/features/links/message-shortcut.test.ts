import { describe, expect, it } from 'vitest';
import { directMessageIntent } from '../../../../src/app/features/links/direct-messages.ts';
import {
  pickerMetadata,
  quoteMessage,
  readPickerMetadata,
  searchableText,
} from '../../../../src/app/features/links/message-shortcut.ts';

describe('the quoted message', () => {
  it('turns Slack’s markup into plain words, each line quoted, with room below for a comment', () => {
    const quoted = quoteMessage(
      'Ask <@U0ADMIN> about <https://example.com/a|the notice> &amp; <https://example.com/b>\nin <#C0BIDS|bids>, <!here>',
      new Map([['U0ADMIN', 'Ada']]),
    );
    expect(quoted).toBe(
      '> Ask @Ada about the notice (https://example.com/a) & https://example.com/b\n> in #bids, @here\n\n',
    );
  });

  it('names an unknown person “someone”, and an empty message quotes nothing', () => {
    expect(quoteMessage('<@U0NOBODY> said so')).toBe('> @someone said so\n\n');
    expect(quoteMessage('   ')).toBe('');
  });

  it('keeps a long message within the comment box', () => {
    expect(quoteMessage('x'.repeat(10_000)).length).toBeLessThanOrEqual(3000);
  });
});

describe('what a message names', () => {
  it('reads the text, then the texts and links of its blocks and attachments', () => {
    const text = searchableText({
      text: 'Tender shared',
      blocks: [
        { type: 'context', elements: [{ type: 'mrkdwn', text: '`ocds-b5fd17-abc` · Contracts Finder' }] },
      ],
      attachments: [{ from_url: 'https://www.find-tender.service.gov.uk/Notice/004824-2025' }],
    });
    expect(text).toContain('ocds-b5fd17-abc');
    expect(text).toContain('https://www.find-tender.service.gov.uk/Notice/004824-2025');
  });
});

describe('the tender picker’s metadata', () => {
  it('round-trips, and cuts a long quote to fit Slack’s 3,000 characters', () => {
    const state = { c: 'C0BIDS', q: `> ${'"quoted" '.repeat(280)}` };
    const written = pickerMetadata(state);
    expect(written.length).toBeLessThanOrEqual(3000);
    const read = readPickerMetadata(written);
    expect(read?.c).toBe('C0BIDS');
    expect(state.q.startsWith((read?.q ?? 'x').slice(0, -1))).toBe(true);
  });

  it('reads a broken or forged one as nothing', () => {
    expect(readPickerMetadata('')).toBeNull();
    expect(readPickerMetadata('{"c":"C0BIDS"}')).toBeNull();
    expect(readPickerMetadata('{"c":"C0BIDS","q":"x","extra":1}')).toBeNull();
    expect(readPickerMetadata('not json')).toBeNull();
  });
});

describe('a direct message', () => {
  it('is help, a tender, or a search', () => {
    expect(directMessageIntent('help')).toEqual({ kind: 'help' });
    // A filter typed alone is searched, not taken for a tender's id (its $, - and digits).
    for (const filter of ['value>CA$2m', 'value>$1m', 'value>-5', 'closes<-3d', 'region:north-east-2'])
      expect(directMessageIntent(filter)).toEqual({ kind: 'search', text: filter });
    expect(directMessageIntent('ocds-b5fd17-2024-001').kind).toBe('tender');
    expect(directMessageIntent('Hello!')).toEqual({ kind: 'help' });
    expect(directMessageIntent('/tender help')).toEqual({ kind: 'help' });
    // Questions about Tenderbot and thanks are no search.
    for (const asked of [
      'what can you do?',
      'Hi, what can you do',
      'how does this work?',
      'Who are you?',
      'help me',
    ])
      expect(directMessageIntent(asked), asked).toEqual({ kind: 'help' });
    for (const thanks of [
      'thanks!',
      'Thank you very much',
      'great, thanks 🙏',
      'cheers',
      '👍',
      '👍🏽',
      'ok thanks',
      'thanks :pray:',
      ':+1:',
    ])
      expect(directMessageIntent(thanks), thanks).toEqual({ kind: 'thanks' });
    // Names of buyers and suppliers, and an approval alone, are searched.
    for (const search of ['Tata', 'Okta', 'NICE', 'ok', 'thanksgiving catering'])
      expect(directMessageIntent(search).kind, search).toBe('search');
    // Words around them are a search still.
    for (const search of [
      'thanks for the cleaning tenders in Wales',
      'great yarmouth schools',
      'ok, cleaning in Wales',
    ])
      expect(directMessageIntent(search).kind, search).toBe('search');
    expect(directMessageIntent('search cleaning region:"North West"')).toEqual({
      kind: 'search',
      text: 'cleaning region:"North West"',
    });
    expect(directMessageIntent('school meals closes&lt;14d')).toEqual({
      kind: 'search',
      text: 'school meals closes<14d',
    });
    expect(
      directMessageIntent('what about <https://www.find-tender.service.gov.uk/Notice/004824-2025>'),
    ).toEqual({
      kind: 'tender',
      text: 'what about <https://www.find-tender.service.gov.uk/Notice/004824-2025>',
    });
    expect(directMessageIntent('  ')).toEqual({ kind: 'nothing' });
  });

  it('reads how people ask: "show me my bids" and "my bookmarks" as the command, "show me …" as a search', () => {
    expect(directMessageIntent('show me my bids')).toEqual({ kind: 'command', text: 'bids' });
    expect(directMessageIntent('my bids')).toEqual({ kind: 'command', text: 'bids' });
    expect(directMessageIntent('Please list my bookmarks')).toEqual({ kind: 'command', text: 'bookmarks' });
    expect(directMessageIntent('please show me my bookmarks please')).toEqual({
      kind: 'command',
      text: 'bookmarks',
    });
    expect(directMessageIntent('show me my bids, thanks!')).toEqual({ kind: 'command', text: 'bids' });
    expect(directMessageIntent('show me cleaning in Wales')).toEqual({
      kind: 'search',
      text: 'cleaning in Wales',
    });
    // "my" before words that are no command: the words as written.
    expect(directMessageIntent('my cleaning contracts')).toEqual({
      kind: 'search',
      text: 'my cleaning contracts',
    });
    // `show` without "me": the show command before one tender's id or reference, else as "show me".
    expect(directMessageIntent('show TB-0000421')).toEqual({ kind: 'command', text: 'show TB-0000421' });
    expect(directMessageIntent('show BID-7')).toEqual({ kind: 'command', text: 'show BID-7' });
    expect(directMessageIntent('show my bookmarks')).toEqual({ kind: 'command', text: 'bookmarks' });
    expect(directMessageIntent('show bids')).toEqual({ kind: 'command', text: 'bids' });
    // What is asked for, without "tenders" and the question mark around it.
    expect(directMessageIntent('show cleaning tenders')).toEqual({ kind: 'search', text: 'cleaning' });
    expect(directMessageIntent('can you find me cleaning tenders?')).toEqual({
      kind: 'search',
      text: 'cleaning',
    });
  });

  it('leaves greetings, questions and every courtesy out of what is asked for', () => {
    for (const asked of [
      'show me my bids please thanks',
      'show me my bids, thanks a lot!',
      'show me my bids, cheers',
      'show me my bids, thanks :)',
      'show me my bids 🙏',
      'show me my bids – thanks!',
      'my bids thx',
      'can you show me my bids?',
      'Hi, show me my bids',
      'what are my bids?',
    ])
      expect(directMessageIntent(asked), asked).toEqual({ kind: 'command', text: 'bids' });
    // A long message is no request (its end is not read for courtesies: that pattern was quadratic).
    expect(directMessageIntent(`show me my bids${' ,'.repeat(100)}`)).not.toEqual({
      kind: 'command',
      text: 'bids',
    });
    // A word that merely ends in a courtesy's letters stays ("data" is no "ta").
    expect(directMessageIntent('show me my data')).toEqual({ kind: 'search', text: 'data' });
  });
});
