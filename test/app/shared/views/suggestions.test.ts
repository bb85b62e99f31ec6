import { describe, expect, it } from 'vitest';
import { decodeText } from '../../../../src/app/shared/values/codec.ts';
import {
  commandMeantMessage,
  correctedWords,
  SuggestionIds,
  searchMeantBlocks,
  searchOfferBlocks,
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
    const blocks = searchMeantBlocks('*cleaning* <!here>', {
      f: { q: 'x', region: 'Wales' },
      o: 10,
      b: 'Leeds',
    });
    const text = JSON.stringify(blocks[0]);
    expect(text).not.toContain('<!here>');
    expect(text).toContain('&lt;!here&gt;');
    const actions = blocks[1] as { elements: { action_id: string; value: string }[] };
    expect(actions.elements[0]?.action_id).toBe(SuggestionIds.searchMeant);
    // The corrected search from its first page, the other filters kept.
    expect(decodeText('searchPage', actions.elements[0]?.value)).toEqual({
      f: { q: '*cleaning* <!here>', region: 'Wales' },
      o: 0,
      b: 'Leeds',
    });
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
