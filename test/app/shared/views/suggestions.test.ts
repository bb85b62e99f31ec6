import { describe, expect, it } from 'vitest';
import { parseSearch } from '../../../../src/app/shared/commands/parse-command.ts';
import { decodeText } from '../../../../src/app/shared/values/codec.ts';
import {
  commandMeantMessage,
  correctedWords,
  type SearchMeant,
  SuggestionIds,
  searchMeantButton,
  searchOfferBlocks,
  sentenceMeantBlocks,
  wordsMeantQuestion,
} from '../../../../src/app/shared/views/suggestions.ts';

describe('correctedWords', () => {
  it('puts each correction in place of its word: whole words, any case, never inside a quoted phrase', () => {
    expect(correctedWords('clenaing', [{ word: 'clenaing', correction: 'cleaning' }])).toBe('cleaning');
    expect(
      correctedWords('School Clenaing "clenaing rota" clenaing-services', [
        { word: 'clenaing', correction: 'cleaning' },
      ]),
    ).toBe('School cleaning "clenaing rota" cleaning-services');
    // `clenaings` is another word: untouched.
    expect(correctedWords('clenaings', [{ word: 'clenaing', correction: 'cleaning' }])).toBeNull();
    expect(correctedWords('roads', [])).toBeNull();
    // A pattern's marks in a word are matched as they are.
    expect(correctedWords('c++ tenders', [{ word: 'c++', correction: 'c' }])).toBe('c tenders');
  });
});

describe('the Did you mean blocks', () => {
  it('ask with the corrected words escaped, and carry the corrected search in the button', () => {
    const question = JSON.stringify(wordsMeantQuestion('*cleaning* <!here>'));
    expect(question).not.toContain('<!here>');
    expect(question).toContain('&lt;!here&gt;');
    const state = { f: { q: 'x', region: 'Wales' }, o: 10, b: 'Leeds' };
    const [actions] = searchMeantButton(state, { words: '*cleaning* <!here>', region: null }) as unknown as [
      { elements: { action_id: string; value: string; text: { text: string } }[] },
    ];
    expect(actions.elements[0]?.action_id).toBe(SuggestionIds.searchMeant);
    // The corrected search from its first page, the other filters kept.
    expect(decodeText('searchPage', actions.elements[0]?.value)).toEqual({
      f: { q: '*cleaning* <!here>', region: 'Wales' },
      o: 0,
      b: 'Leeds',
    });
  });

  it('words and region both misspelt: one button searching with both corrected', () => {
    const state = { f: { q: 'clenaing', region: 'Walse', status: 'open' as const }, o: 0 };
    const button = (meant: SearchMeant) => {
      const [actions] = searchMeantButton(state, meant) as unknown as [
        { elements: { value: string; text: { text: string } }[] } | undefined,
      ];
      const element = actions?.elements[0];
      return element ? { label: element.text.text, f: decodeText('searchPage', element.value).f } : null;
    };
    expect(button({ words: 'cleaning', region: 'Wales' })).toEqual({
      label: 'Search cleaning in Wales',
      f: { q: 'cleaning', region: 'Wales', status: 'open' },
    });
    expect(button({ words: null, region: 'Wales' })).toEqual({
      label: 'Search in Wales',
      f: { q: 'clenaing', region: 'Wales', status: 'open' },
    });
    expect(button({ words: null, region: null })).toBeNull();
    // A region nothing is near: the corrected words everywhere, said on the button.
    expect(button({ words: 'cleaning', region: null, regionUnknown: true })).toEqual({
      label: 'Search cleaning in every region',
      f: { q: 'cleaning', status: 'open' },
    });
    expect(button({ words: null, region: null, regionUnknown: true })).toBeNull();
    // However long the words and the region, the label fits Slack's 75 characters.
    const long = button({ words: 'w'.repeat(200), region: 'r'.repeat(150) });
    expect(long?.label.length).toBeLessThanOrEqual(75);
  });

  it('a mistyped subcommand: the command meant, and a button running it only when words followed', () => {
    const withWords = commandMeantMessage('serach', 'search', 'cleaning <!channel>');
    expect(withWords.text).toBe('`/tender serach` is not a command. Did you mean `/tender search`?');
    const button = JSON.stringify(withWords.blocks);
    expect(button).toContain(`"action_id":"${SuggestionIds.commandMeant}"`);
    expect(button).toContain('"value":"search cleaning <!channel>"');
    const alone = commandMeantMessage('bookmaks', 'bookmarks', '');
    expect(JSON.stringify(alone.blocks)).not.toContain(SuggestionIds.commandMeant);
  });
});

describe('the search offered for words that are no command', () => {
  it('names the search in a code span, carries it in the button, and offers none for marks alone or text too long', () => {
    const blocks = searchOfferBlocks('  <!channel> cleaning *Leeds*  ');
    const json = JSON.stringify(blocks);
    expect(json).toContain('`/tender search &lt;!channel&gt; cleaning *Leeds*`');
    expect(json).not.toContain('<!channel>`');
    const [, actions] = blocks as [unknown, { elements: { action_id: string; value: string }[] }];
    expect(actions.elements[0]?.action_id).toBe(SuggestionIds.commandMeant);
    expect(actions.elements[0]?.value).toBe('search <!channel> cleaning *Leeds*');
    expect(searchOfferBlocks('?!')).toEqual([]);
    expect(searchOfferBlocks('x'.repeat(1994))).toEqual([]);
    expect(searchOfferBlocks('x'.repeat(1993))).toHaveLength(2);
  });
});

describe('a sentence read with dollars and no currency', () => {
  it('offers the search in each dollar, every one a search that is taken, not the one that would ask', () => {
    const blocks = sentenceMeantBlocks('IT value>$1m value<$5m') as unknown as {
      text?: { text: string };
      elements?: { action_id: string; value: string; text: { text: string } }[];
    }[];
    expect(blocks[0]?.text?.text).toContain('“$” says no currency. Which dollars?');
    const buttons = blocks.flatMap((block) => block.elements ?? []);
    expect(buttons.map((button) => button.text.text)).toEqual(['In US dollars', 'In Canadian dollars']);
    expect(buttons[0]?.value).toBe('search IT value>1m usd value<5m usd');
    // One button a block: a block holds an action id once.
    for (const block of blocks.slice(1)) expect(block.elements).toHaveLength(1);
    // Each a search taken as it says: its words alone, its bounds in that currency.
    for (const [button, currency] of [
      [buttons[0], 'USD'],
      [buttons[1], 'CAD'],
    ] as const) {
      expect(button?.action_id).toBe(SuggestionIds.commandMeant);
      const search = (button?.value ?? '').replace(/^search /, '');
      expect(parseSearch(search, new Date('2026-11-26T10:00:00Z'))).toMatchObject({
        ok: true,
        filters: { q: 'IT', valueMin: 1_000_000, valueMax: 5_000_000, currency },
      });
    }
    // Pounds need no question.
    expect(JSON.stringify(sentenceMeantBlocks('IT value>1m'))).not.toContain('Which dollars');
  });
});
