import { describe, expect, it } from 'vitest';
import { parseAmount } from '../../../../src/app/shared/commands/amounts.ts';
import { editDistance } from '../../../../src/app/shared/commands/edit-distance.ts';
import { clipWords, parseDirectory, parseSearch } from '../../../../src/app/shared/commands/parse-command.ts';
import {
  isSubcommand,
  parseCommand,
  SUBCOMMANDS,
  subcommandMeant,
} from '../../../../src/app/shared/commands/subcommands.ts';

const now = new Date('2026-11-21T10:00:00Z');

describe('parseCommand', () => {
  it('finds the subcommand, an id alone, help for nothing, and unknown words', () => {
    expect(parseCommand('search cleaning  region:"North West"')).toEqual({
      kind: 'search',
      rest: 'cleaning  region:"North West"',
    });
    expect(parseCommand('ocds-b5fd17-e3b5f385')).toEqual({ kind: 'show', rest: 'ocds-b5fd17-e3b5f385' });
    expect(parseCommand('SHOW abc')).toEqual({ kind: 'show', rest: 'abc' });
    expect(parseCommand('  ')).toEqual({ kind: 'help', rest: '' });
    expect(parseCommand('serach cleaning')).toEqual({ kind: 'unknown', word: 'serach', rest: 'cleaning' });
    expect(parseCommand('comments ocds-1')).toEqual({ kind: 'comments', rest: 'ocds-1' });
    // "bid" is what cards and forms say: `/tender bids` lists them, `/tender bid BID-7` posts one's card.
    expect(parseCommand('Bids status:active')).toEqual({ kind: 'pipelines', rest: 'status:active' });
    expect(parseCommand('bid BID-7')).toEqual({ kind: 'pipeline', rest: 'BID-7' });
    expect(parseCommand('bid status BID-7 won')).toEqual({ kind: 'pipeline', rest: 'status BID-7 won' });
    expect(parseCommand('pipelines bid status:active all')).toEqual({
      kind: 'pipelines',
      rest: 'bid status:active all',
    });
    expect(parseCommand('Pipeline stage p1 Draft completed')).toEqual({
      kind: 'pipeline',
      rest: 'stage p1 Draft completed',
    });
    expect(parseCommand('cleaning')).toEqual({ kind: 'unknown', word: 'cleaning', rest: '' });
  });
});

describe('subcommandMeant', () => {
  it('names the subcommand a mistyped word is nearest to, by edit distance', () => {
    expect(subcommandMeant('serach')).toBe('search');
    expect(subcommandMeant('SEACH')).toBe('search');
    expect(subcommandMeant('bookmark')).toBe('bookmarks');
    expect(subcommandMeant('sho')).toBe('show');
    expect(subcommandMeant('frameworsk')).toBe('frameworks');
    // Two letters swapped are one edit; between two as near, the one reached without a swap.
    expect(subcommandMeant('subscirbe')).toBe('subscribe');
    expect(subcommandMeant('pipelinse')).toBe('pipeline');
    expect(subcommandMeant('nusbscribe')).toBe('subscribe');
  });

  it('answers nearly every one-edit typo of every subcommand with that subcommand, and never a farther one', () => {
    let answered = 0;
    let typos = 0;
    for (const name of SUBCOMMANDS) {
      const made = new Set<string>();
      for (let at = 0; at < name.length; at++) made.add(name.slice(0, at) + name.slice(at + 1));
      for (let at = 0; at + 1 < name.length; at++)
        made.add(name.slice(0, at) + name[at + 1] + name[at] + name.slice(at + 2));
      for (let at = 0; at <= name.length; at++)
        for (const letter of 'aeiosx') made.add(name.slice(0, at) + letter + name.slice(at));
      for (const typo of made) {
        if ((SUBCOMMANDS as readonly string[]).includes(typo)) continue;
        typos++;
        const meant = subcommandMeant(typo);
        if (meant === null) continue;
        answered++;
        expect(editDistance(typo, meant), `${typo} → ${meant}`).toBeLessThanOrEqual(editDistance(typo, name));
      }
    }
    expect(typos).toBeGreaterThan(1000);
    expect(answered / typos).toBeGreaterThan(0.99);
  });

  it('offers nothing for a word far from every subcommand, a subcommand itself, or a tie', () => {
    expect(subcommandMeant('cleaning')).toBeNull();
    expect(subcommandMeant('search')).toBeNull();
    expect(subcommandMeant('ab')).toBeNull();
    expect(subcommandMeant('ocds-1')).toBeNull();
    // `pipelin` is one edit from `pipeline` and two from `pipelines`: the nearer wins.
    expect(subcommandMeant('pipelin')).toBe('pipeline');
    // `subscribes` is one edit from `subscribe` and far from the rest; `unsubscrib` one from `unsubscribe`.
    expect(subcommandMeant('unsubscrib')).toBe('unsubscribe');
  });
});

describe('value filters and their currency', () => {
  it('takes the currency from a sign, a code after the amount, or currency:', () => {
    expect(parseSearch('roads value>€1m', now)).toMatchObject({
      ok: true,
      filters: { q: 'roads', valueMin: 1_000_000, currency: 'EUR' },
    });
    expect(parseSearch('snow removal value>1m cad', now)).toMatchObject({
      ok: true,
      filters: { q: 'snow removal', valueMin: 1_000_000, currency: 'CAD' },
    });
    expect(parseSearch('snow removal value > 1m eur', now)).toMatchObject({
      ok: true,
      filters: { q: 'snow removal', valueMin: 1_000_000, currency: 'EUR' },
    });
    expect(parseSearch('value<500k currency:usd', now)).toMatchObject({
      ok: true,
      filters: { valueMax: 500_000, currency: 'USD' },
    });
    expect(parseSearch('value>CA$2m', now)).toMatchObject({ ok: true, filters: { currency: 'CAD' } });
    // £ is the default's own sign: said, and the same as none.
    expect(parseSearch('value>£1m', now)).toMatchObject({ ok: true, filters: { currency: 'GBP' } });
  });

  it('leaves a currency word that follows no amount as a word, and none when nothing is bounded', () => {
    expect(parseSearch('euro exchange', now)).toEqual({
      ok: true,
      filters: { q: 'euro exchange' },
      buyerName: null,
    });
    const alone = parseSearch('cleaning currency:eur', now);
    expect(alone).toMatchObject({ ok: true, filters: { q: 'cleaning' } });
    expect(alone.ok && alone.filters.currency).toBeUndefined();
  });

  it('refuses two currencies in one search, a dollar of no country, and an unknown currency', () => {
    expect(parseSearch('value>€1m value<£2m', now)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('are in euros and pounds'),
    });
    expect(parseSearch('value>$1m', now)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('`value&gt;1m usd` or `value&gt;1m cad`'),
    });
    expect(parseSearch('value>1m currency:yen', now)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('use gbp, eur, usd or cad, as in `currency:eur`'),
    });
  });

  it('takes commas as thousands separators in threes or one decimal comma, and refuses other commas', () => {
    expect(parseSearch('value>1,000,000', now)).toMatchObject({ ok: true, filters: { valueMin: 1_000_000 } });
    expect(parseSearch('value>1,5m', now)).toMatchObject({ ok: true, filters: { valueMin: 1_500_000 } });
    expect(parseSearch('value>1,500k', now)).toMatchObject({ ok: true, filters: { valueMin: 1_500_000 } });
    expect(parseSearch('value > £1,000k', now)).toMatchObject({ ok: true, filters: { valueMin: 1_000_000 } });
    // Read as 1.5 and 10 before.
    for (const typed of ['value>1,50,000', 'value>10,0000'])
      expect(parseSearch(typed, now), typed).toMatchObject({
        ok: false,
        problem: expect.stringContaining('needs an amount, such as `value&gt;100k`'),
      });
  });

  it('asks which dollars for dollars after an amount, as for $', () => {
    expect(parseSearch('roads value>1m dollars', now)).toMatchObject({
      ok: false,
      problem: '`value&gt;1m dollars`: say which dollars, as in `value&gt;1m usd` or `value&gt;1m cad`.',
    });
    // Not after an amount: a word.
    expect(parseSearch('dollars value>1m', now)).toMatchObject({ ok: true, filters: { q: 'dollars' } });
  });

  it('says a currency sign and a currency word that disagree, offering only forms it accepts', () => {
    const cases: [string, string][] = [
      [
        'roads value>€1m dollars',
        '`value&gt;€1m dollars`: the sign says euros and the word after it dollars. Keep one: `value&gt;€1m`, `value&gt;1m usd` or `value&gt;1m cad`.',
      ],
      [
        'roads value>€1m gbp',
        '`value&gt;€1m gbp`: the sign says euros and the word after it pounds. Keep one: `value&gt;€1m` or `value&gt;1m gbp`.',
      ],
      [
        'roads value<$2m euros',
        '`value&lt;$2m euros`: the sign says dollars and the word after it euros. Keep one: `value&lt;2m usd`, `value&lt;2m cad` or `value&lt;2m eur`.',
      ],
    ];
    for (const [typed, problem] of cases) {
      expect(parseSearch(typed, now), typed).toEqual({ ok: false, problem });
      // Every form offered is one the search takes.
      for (const [, offered = ''] of [...problem.matchAll(/`([^`]+)`/g)].slice(1))
        expect(parseSearch(offered.replace(/&gt;/g, '>').replace(/&lt;/g, '<'), now), offered).toMatchObject({
          ok: true,
        });
    }
    // A sign and a word that agree are one currency: the word is not searched for.
    expect(parseSearch('roads value>CA$1m dollars', now)).toMatchObject({
      ok: true,
      filters: { q: 'roads', valueMin: 1_000_000, currency: 'CAD' },
    });
    expect(parseSearch('value>US$1m dollars', now)).toMatchObject({ filters: { currency: 'USD' } });
    expect(parseSearch('value>$1m usd', now)).toMatchObject({ ok: true, filters: { currency: 'USD' } });
    expect(parseSearch('value>€1m eur', now)).toMatchObject({ ok: true, filters: { currency: 'EUR' } });
    // Only a currency's own names: a word that names something of every object is a word.
    for (const typed of ['value>1m constructor', 'value>€1m constructor']) {
      const read = parseSearch(typed, now);
      expect(read, typed).toMatchObject({ ok: true, filters: { q: 'constructor' } });
      expect(read.ok && typeof read.filters.currency !== 'function', typed).toBe(true);
    }
    expect(parseSearch('value>$1m constructor', now)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('say which dollars'),
    });
  });

  it('reads thousands grouped by spaces in a value filter (`value>100 000`)', () => {
    expect(parseSearch('cleaning value>100 000', now)).toMatchObject({
      ok: true,
      filters: { q: 'cleaning', valueMin: 100_000 },
    });
    expect(parseSearch('value < €1 250 000 roads', now)).toMatchObject({
      ok: true,
      filters: { q: 'roads', valueMax: 1_250_000, currency: 'EUR' },
    });
    // Groups of other than three digits are not thousands: as before, the number after is a word.
    expect(parseSearch('value>100 0000', now)).toMatchObject({ filters: { valueMin: 100, q: '0000' } });
  });

  it('reads ≥ and ≤ as >= and <=, and refuses => with the form it takes', () => {
    expect(parseSearch('value≥1m closes≤14d', now)).toMatchObject({
      ok: true,
      filters: { valueMin: 1_000_000 },
      closesDays: { within: 14 },
    });
    expect(parseSearch('roads value=>1m', now)).toMatchObject({
      ok: false,
      problem: '`value=&gt;` is written `value&gt;=` or `value&gt;`, as in `value&gt;100k`.',
    });
  });

  it('keeps zero-width joiners (emoji, Persian and Indic words need them) and ≥ outside a filter', () => {
    expect(parseSearch('\u{1F468}\u200D\u{1F4BB} support', now)).toMatchObject({
      ok: true,
      filters: { q: '\u{1F468}\u200D\u{1F4BB} support' },
    });
    expect(parseSearch('score≥5', now)).toMatchObject({ ok: true, filters: { q: 'score≥5' } });
  });

  it('ignores invisible characters pasted with a filter', () => {
    for (const typed of ['value>\u200B1m', '\u200Bvalue>1m', 'value>1m\u2060'])
      expect(parseSearch(typed, now), JSON.stringify(typed)).toMatchObject({
        ok: true,
        filters: { valueMin: 1_000_000 },
      });
  });

  it('marks a currency code the service has no rates for among the words of a value search, and nothing else', () => {
    // Searched as a word, with the amount in pounds: the answer says so (search.ts).
    expect(parseSearch('value>1m jpy', now)).toMatchObject({
      ok: true,
      filters: { q: 'jpy', valueMin: 1_000_000 },
      currencyWord: { word: 'jpy', currency: 'JPY' },
    });
    expect(parseSearch('roads value<500k CHF', now)).toMatchObject({
      ok: true,
      currencyWord: { word: 'CHF', currency: 'CHF' },
    });
    // A sentence puts its words first: read the same.
    expect(parseSearch('IT support jpy value>1m', now)).toMatchObject({
      currencyWord: { word: 'jpy', currency: 'JPY' },
    });
    expect(parseSearch('value>1m yen', now)).toMatchObject({
      currencyWord: { word: 'yen', currency: 'JPY' },
    });
    const unmarked = [
      'jpy tenders', // no amount: nothing is read in pounds
      'value>£1m jpy', // a currency named: the amount is in it
      'value>1m eur jpy',
      'value>100k pen testing', // codes that are words people search for
      'value>100k mop',
      'value>50k cve scanning',
      'value>100k SAR helicopter',
      'value>1m USD',
    ];
    for (const typed of unmarked) {
      const parsed = parseSearch(typed, now);
      expect(parsed.ok && parsed.currencyWord, typed).toBeFalsy();
    }
  });
});

describe('isSubcommand', () => {
  it('says what parseCommand says of the first word, for any text', () => {
    const texts = [
      'connect',
      'CONNECT pis_abc',
      '  connect\tnow',
      `${' '.repeat(200)}connect`,
      '\u00a0connect',
      'connected',
      'connect-ish',
      '“connect”',
      'search connect',
      '',
      '   ',
      'x'.repeat(300_000),
      `connect ${'y'.repeat(300_000)}`,
      'disconnect',
    ];
    for (const text of texts) {
      for (const kind of ['connect', 'disconnect', 'search'] as const) {
        expect(isSubcommand(text, kind), `${kind} in ${JSON.stringify(text.slice(0, 40))}`).toBe(
          parseCommand(text).kind === kind,
        );
      }
    }
  });
});

describe('the commands of a person’s own key and the workspace’s settings', () => {
  it('keeps what follows connect, disconnect and settings for the feature to read', () => {
    expect(parseCommand('connect me')).toEqual({ kind: 'connect', rest: 'me' });
    expect(parseCommand('Disconnect  ME')).toEqual({ kind: 'disconnect', rest: 'ME' });
    expect(parseCommand('settings personal-keys required')).toEqual({
      kind: 'settings',
      rest: 'personal-keys required',
    });
    expect(parseCommand('settings')).toEqual({ kind: 'settings', rest: '' });
  });
});

describe('parseSearch', () => {
  it('reads every filter a person types, with straight or curly quotes', () => {
    const parsed = parseSearch(
      'cleaning region:“North West” status:open value>100k value<=2.5m closes<14d cpv:909 schools',
      now,
    );
    expect(parsed).toEqual({
      ok: true,
      buyerName: null,
      filters: {
        q: 'cleaning schools',
        region: 'North West',
        status: 'open',
        valueMin: 100_000,
        valueMax: 2_500_000,
        deadlineFrom: '2026-11-21',
        deadlineTo: '2026-12-05',
        cpv: '909',
      },
      // Kept as typed too: a feed counts them from each post.
      closesDays: { within: 14 },
    });
  });

  it('takes a buyer by id or by name, and keeps codes with colons as words', () => {
    expect(parseSearch('buyer:9711454a-f86c-5415-9d6b-f37e32a7b68e', now)).toMatchObject({
      filters: { buyerId: '9711454a-f86c-5415-9d6b-f37e32a7b68e' },
    });
    expect(parseSearch('buyer:"Leeds City Council" ISO:9001', now)).toMatchObject({
      buyerName: 'Leeds City Council',
      filters: { q: 'ISO:9001' },
    });
  });

  it('answers a bad filter with a sentence that says what to type', () => {
    expect(parseSearch('status:pending', now)).toEqual({
      ok: false,
      problem: expect.stringContaining(
        'a tender is planned, open, closed, awarded or cancelled, as in `status:open`',
      ),
    });
    expect(parseSearch('value>lots', now)).toEqual({
      ok: false,
      problem: expect.stringContaining('such as `value&gt;100k`'),
    });
    expect(parseSearch('closes<soon', now)).toEqual({
      ok: false,
      problem: expect.stringContaining('such as `closes&lt;14d`'),
    });
    // A number of days too large is said as too large, not as not a number (a trial's closes<99999d).
    expect(parseSearch('closes<99999d', now)).toEqual({
      ok: false,
      problem:
        '`closes&lt;99999d` reaches more than ten years ahead; give at most 3,650 days (`closes&lt;3650d`) or 521 weeks.',
    });
    expect(parseSearch('closes>600w', now)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('ten years'),
    });
    expect(parseSearch('closes<3650d', now)).toMatchObject({ ok: true });
    expect(parseSearch(`closes<${'9'.repeat(40)}d`, now)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('ten years'),
    });
    expect(parseSearch('cpv:IT', now)).toEqual({
      ok: false,
      problem: expect.stringContaining('such as `cpv:72`'),
    });
  });
});

describe('filters that forgive and explain', () => {
  it('names the closest filter for a misspelt one, and the form of a comparing filter', () => {
    expect(parseSearch('cleaning regoin:"North West"', now)).toEqual({
      ok: false,
      problem: '`regoin:` is not a filter; did you mean `region:`, as in `region:"North West"`?',
    });
    expect(parseSearch('cleaning Staus:open', now)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('did you mean `status:`'),
    });
    expect(parseSearch('buyers:Leeds', now)).toMatchObject({ problem: expect.stringContaining('`buyer:`') });
    expect(parseSearch('vaule>100k', now)).toMatchObject({
      problem: '`vaule&gt;` is not a filter; did you mean `value&gt;`, as in `value&gt;100k`?',
    });
    expect(parseSearch('value:100k', now)).toEqual({
      ok: false,
      problem: '`value:` compares with &gt; or &lt;: write it as `value&gt;100k`.',
    });
    expect(parseSearch('closes:14d', now)).toMatchObject({
      problem: expect.stringContaining('`closes&lt;14d`'),
    });
    expect(parseDirectory('regin:Wales')).toMatchObject({ problem: expect.stringContaining('`region:`') });
    expect(parseDirectory('stauts:live')).toMatchObject({ problem: expect.stringContaining('`status:`') });
  });

  it('says a filter given nothing, and a region the service would refuse, instead of searching them', () => {
    expect(parseSearch('cleaning region:', now)).toEqual({
      ok: false,
      problem: '`region:` needs a value right after it, with no space, as in `region:"North West"`.',
    });
    expect(parseSearch('value> 100k', now)).toMatchObject({ ok: true, filters: { valueMin: 100_000 } });
    expect(parseSearch('cleaning value>', now)).toMatchObject({
      problem: expect.stringContaining('`value&gt;` needs a value'),
    });
    expect(parseSearch('STATUS:', now)).toMatchObject({ problem: expect.stringContaining('`status:open`') });
    expect(parseDirectory('region:')).toMatchObject({
      problem: expect.stringContaining('`region:` needs a value'),
    });
    // A word that only ends in a colon, not a filter's name, is searched as typed.
    expect(parseSearch('note:', now)).toMatchObject({ ok: true, filters: { q: 'note:' } });
    for (const empty of ['region:""', 'region:" "'])
      expect(parseSearch(`cleaning ${empty}`, now)).toEqual({
        ok: false,
        problem: '`region:` needs a region in it, as in `region:"North West"`.',
      });
    expect(parseDirectory('region:""')).toMatchObject({ problem: expect.stringContaining('needs a region') });
    expect(parseSearch(`region:${'Q'.repeat(5000)}`, now)).toEqual({
      ok: false,
      problem: 'A region is at most 200 characters; that one has 5,000.',
    });
    // Counted as the service counts (UTF-16 units): 100 emoji fit, 101 do not.
    expect(parseSearch(`region:"${'🌊'.repeat(100)}"`, now)).toMatchObject({ ok: true });
    expect(parseSearch(`region:"${'🌊'.repeat(101)}"`, now)).toMatchObject({
      problem: 'A region is at most 200 characters; that one has 202.',
    });
    expect(parseSearch(`region:"${'a'.repeat(200)}"`, now)).toMatchObject({ ok: true });
  });

  it('keeps words with colons that are far from every filter name', () => {
    for (const text of ['ISO:9001', 'NHS:Leeds', 'vat:registered', 'http://example.org', 'ab:cd']) {
      expect(parseSearch(text, now), text).toMatchObject({ ok: true, filters: { q: text } });
    }
  });

  it('says an unclosed quote instead of guessing where it ends', () => {
    for (const text of ['region:"North West cleaning', 'cleaning "school meals', 'region:“North West']) {
      expect(parseSearch(text, now), text).toEqual({
        ok: false,
        problem: expect.stringContaining('A quote is not closed'),
      });
    }
    expect(parseSearch('cleaning "school meals', now)).toMatchObject({
      problem:
        'A quote is not closed: `"school meals`. Close it (`"school meals"`) or take it out, then search again.',
    });
    expect(parseDirectory('"Leeds')).toMatchObject({ ok: false, problem: expect.stringContaining('quote') });
    expect(parseSearch('"school meals" region:"North West"', now)).toMatchObject({ ok: true });
  });

  it('says an unclosed quote from where it opens, also before a closed one', () => {
    const said = (typed: string) => {
      const read = parseSearch(typed, now);
      return read.ok ? null : /not closed: (`[^`]*`)/.exec(read.problem)?.[1];
    };
    expect(said('"cleaning "hospital"')).toBe('`"cleaning "hospital"`');
    expect(said('cleaning "wards "hospital" beds')).toBe('`"wards "hospital" beds`');
    expect(said('"school meals" "hospital')).toBe('`"hospital`');
    // A closing quote with none open: shown with the word it closes.
    expect(said('cleaning hospital" wards')).toBe('`hospital" wards`');
    expect(said('value>1m "')).toBe('`"`');
    expect(parseDirectory('"Leeds "City Council"')).toMatchObject({
      problem: expect.stringContaining('`"Leeds "City Council"`'),
    });
  });

  it('says what searches cannot do: leave words out, or match one word or another', () => {
    expect(parseSearch('cleaning -windows', now)).toEqual({
      ok: false,
      problem: 'Searches cannot leave words out: `-windows` would be searched for. Search without it.',
    });
    expect(parseSearch('cleaning OR catering', now)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('`OR` is not understood'),
    });
    // Hyphenated words, amounts, lowercase "or" and quoted text are ordinary words.
    for (const text of [
      'co-operative cleaning',
      'cleaning - windows',
      'fish or chips',
      '"cleaning -windows"',
    ]) {
      expect(parseSearch(text, now).ok, text).toBe(true);
    }
  });
});

describe('searches that would silently mean something else', () => {
  it('refuses words with no letters or digits, which the service would drop and so list everything', () => {
    for (const text of ['%', '***', '🧹🧹', '-- ...', '"%"']) {
      const parsed = parseSearch(text, now);
      expect(parsed.ok, text).toBe(false);
      if (!parsed.ok) expect(parsed.problem).toContain('no letters or digits');
      expect(parseDirectory(text).ok, text).toBe(false);
    }
    // Filters alone, or words beside symbols, are searches.
    expect(parseSearch('region:London', now)).toMatchObject({ ok: true, filters: { region: 'London' } });
    expect(parseSearch('cleaning 🧹', now)).toMatchObject({ ok: true, filters: { q: 'cleaning 🧹' } });
    expect(parseSearch('école', now)).toMatchObject({ ok: true, filters: { q: 'école' } });
    // Beside filters, symbols are dropped harmlessly: the search is the filters'.
    expect(parseSearch('& region:Wales', now)).toEqual({
      ok: true,
      buyerName: null,
      filters: { region: 'Wales' },
    });
    expect(parseDirectory('& region:Wales')).toEqual({ ok: true, filters: { region: 'Wales' } });
  });

  it('refuses a filter given twice, instead of keeping the last', () => {
    for (const text of [
      'region:London region:Wales',
      'status:open status:closed',
      'value>1k value>=2k',
      'closes<7d closes<14d',
    ]) {
      const parsed = parseSearch(text, now);
      expect(parsed.ok, text).toBe(false);
      if (!parsed.ok) expect(parsed.problem).toContain('is given twice');
    }
    expect(parseDirectory('region:London region:Wales').ok).toBe(false);
    // What is searched as words is not a filter given twice.
    expect(parseSearch('cpv>5 cpv>6', now)).toMatchObject({ ok: true, filters: { q: 'cpv>5 cpv>6' } });
    // Each way once is a range.
    expect(parseSearch('value>100k value<2m', now)).toMatchObject({
      ok: true,
      filters: { valueMin: 100_000, valueMax: 2_000_000 },
    });
  });

  it('reads closes> and closes< as one window in either order', () => {
    const window = { deadlineFrom: '2026-11-28', deadlineTo: '2026-12-05', status: 'open' };
    expect(parseSearch('closes<14d closes>7d', now)).toMatchObject({ ok: true, filters: window });
    expect(parseSearch('closes>7d closes<14d', now)).toMatchObject({ ok: true, filters: window });
  });

  it('refuses a range that nothing could match', () => {
    expect(parseSearch('value>2m value<100k', now)).toMatchObject({ ok: false });
    expect(parseSearch('closes>14d closes<7d', now)).toMatchObject({ ok: false });
  });

  it('reads a comparing filter typed with spaces around its sign', () => {
    expect(parseSearch('cleaning value > 100k', now)).toMatchObject({
      ok: true,
      filters: { q: 'cleaning', valueMin: 100_000 },
    });
    expect(parseSearch('closes <14d', now)).toMatchObject({
      ok: true,
      filters: { deadlineTo: '2026-12-05' },
    });
    // Only a whole amount or number of days is joined; anything else stays the words it was.
    for (const text of [
      'cleaning value > 1 million',
      'value > 100 k',
      'closes < 2 weeks',
      'social value > 50%',
      '"value > 100k"',
    ]) {
      const parsed = parseSearch(text, now);
      expect(parsed.ok, text).toBe(true);
      if (parsed.ok) {
        expect(parsed.filters.valueMin, text).toBeUndefined();
        expect(parsed.filters.deadlineTo, text).toBeUndefined();
      }
    }
  });
});

describe('parseDirectory and parseAmount', () => {
  it('reads directory filters', () => {
    expect(parseDirectory('facilities region:London')).toEqual({
      ok: true,
      filters: { q: 'facilities', region: 'London' },
    });
    expect(parseDirectory('status:live type:dps')).toEqual({
      ok: true,
      filters: { status: 'live', type: 'dynamic_purchasing_system' },
    });
    expect(parseDirectory('type:lots')).toMatchObject({ ok: false });
  });

  it('reads amounts', () => {
    expect(parseAmount('100k')).toBe(100_000);
    expect(parseAmount('£250,000')).toBe(250_000);
    expect(parseAmount('1.5M')).toBe(1_500_000);
    expect(parseAmount('abc')).toBeNull();
  });
});

describe('deadline filters mean tenders one can still bid for', () => {
  it('adds status open to closes<14d and closes>30d when no status is asked', () => {
    expect(parseSearch('closes<14d', now)).toMatchObject({
      filters: { status: 'open', deadlineFrom: '2026-11-21', deadlineTo: '2026-12-05' },
    });
    expect(parseSearch('cleaning closes>30d', now)).toMatchObject({
      filters: { status: 'open', deadlineFrom: '2026-12-21' },
    });
  });

  it('keeps a status that is asked for, and adds none without a deadline filter', () => {
    expect(parseSearch('closes<14d status:awarded', now)).toMatchObject({ filters: { status: 'awarded' } });
    const plain = parseSearch('cleaning', now);
    expect(plain.ok && plain.filters.status).toBeUndefined();
  });
});

describe('the parsers are linear in what is typed', () => {
  /**
   * Times of `parse` on a small and a large text, each the best of rounds taken in turn, so that
   * load from the rest of the machine falls on both sizes alike (the machine is shared).
   */
  const times = (parse: (text: string) => unknown, small: string, large: string) => {
    const best = { small: Number.POSITIVE_INFINITY, large: Number.POSITIVE_INFINITY };
    const once = (text: string, repeats: number) => {
      const started = performance.now();
      for (let repeat = 0; repeat < repeats; repeat++) parse(text);
      return performance.now() - started;
    };
    for (let round = 0; round < 7; round++) {
      best.small = Math.min(best.small, once(small, 20));
      best.large = Math.min(best.large, once(large, 2) * 10);
    }
    return best;
  };
  // Slack's command text is at most 4,000 characters; ten times that must cost about ten times as much.
  const hostile = [
    (length: number) => 'region:"a '.repeat(length / 10).slice(0, length),
    (length: number) => '"'.repeat(length),
    (length: number) => 'a'.repeat(length),
    (length: number) => 'value>1,000,000,000 '.repeat(length / 20).slice(0, length),
    (length: number) => 'closes<14d status:open cpv:909 "x y" '.repeat(length / 36).slice(0, length),
    (length: number) => 'a:'.repeat(length / 2),
    (length: number) => '“'.repeat(length),
  ];

  it('parseSearch, parseDirectory and parseCommand on 4,000 and 40,000 characters', () => {
    expect(hostile.length).toBeGreaterThan(0);
    for (const [index, make] of hostile.entries()) {
      for (const parse of [
        (text: string) => parseSearch(text, now),
        (text: string) => parseDirectory(text),
        (text: string) => parseCommand(`search ${text}`),
      ]) {
        const { small, large } = times(parse, make(4000), make(40_000));
        // Per character, ten times the text costs about the same when linear, ten times more when
        // quadratic. The margin is for a loaded machine.
        expect(large / 10 / Math.max(small, 0.05), `pattern ${index}`).toBeLessThan(4);
        expect(small, `pattern ${index} on 4,000 characters`).toBeLessThan(200);
      }
    }
  }, 60_000);
});

describe('clipWords', () => {
  it('keeps words whole when a search is cut to its limit', () => {
    expect(clipWords('cleaning services', 200)).toBe('cleaning services');
    expect(clipWords('w0 w1 w22 w333', 8)).toBe('w0 w1');
    expect(clipWords('w0 w1 w22 w333', 5)).toBe('w0 w1');
    expect(clipWords('abcdefghij', 4)).toBe('abcd');
  });

  it('says when a search’s words were cut', () => {
    const long = parseSearch(`${'word '.repeat(60)}end`, now);
    expect(long).toMatchObject({ ok: true, wordsCut: true });
    expect(parseSearch('word '.repeat(39), now)).not.toHaveProperty('wordsCut');
  });
});

describe('problems are mrkdwn: what was typed in code spans, escaped', () => {
  // Every kind of problem the two parsers say, each typed with markup of its own in it.
  const searches = [
    'status:<!channel>*x*',
    'cpv:`72`',
    'value>lots`',
    'value>-5',
    'value>$1m',
    'value>0.001',
    'value>1m currency:<@U1>',
    'closes<soon&',
    'value>€1m value<£2m',
    'value>2m value<1m',
    'closes>30d closes<14d',
    'region:a region:b',
    'regoin:*Leeds*',
    'value:100k',
    '"open quote',
    'roads -windows `x`',
    'roads OR bridges',
    '*** ~~~',
  ];
  const directories = ['status:<b>', 'type:_x_', 'region:a region:b', 'stauts:live', '"open'];

  it.each([
    ...searches.map((typed) => ['search', typed]),
    ...directories.map((typed) => ['directory', typed]),
  ])('%s `%s`', (kind, typed) => {
    const read = kind === 'search' ? parseSearch(typed, now) : parseDirectory(typed);
    expect(read.ok).toBe(false);
    const problem = read.ok ? '' : read.problem;
    // Code spans open and close in pairs, and no look-alike backtick stands for the app's own.
    expect(problem.split('`').length % 2).toBe(1);
    expect(problem).toMatch(/`[^`]+`|^[^`]*$/);
    if (!typed.includes('`')) expect(problem).not.toContain('\u02CB');
    // Slack's control characters only as entities: nothing typed becomes a mention or a link.
    expect(problem).not.toMatch(/[<>]/);
    expect(problem).not.toMatch(/&(?!amp;|lt;|gt;)/);
  });

  it('says a typed value back as code, and the filters to use as code', () => {
    const read = parseSearch('cleaning status:<!channel>', now);
    expect(read).toEqual({
      ok: false,
      problem:
        '`status:&lt;!channel&gt;` is not a status; a tender is planned, open, closed, awarded or cancelled, as in `status:open`.',
    });
  });
});

describe('an unquoted region read with the words after it, given the regions of the data', () => {
  const regions = ['North West', 'South West', 'Wales', 'Yorkshire and the Humber'];

  it('reads the longest region the words make, and does not search those words', () => {
    expect(parseSearch('cleaning region:south west', now, { regions })).toMatchObject({
      ok: true,
      filters: { q: 'cleaning', region: 'South West' },
      regionRead: { typed: 'south west', region: 'South West' },
    });
    expect(parseSearch('region:NORTH west cleaning windows', now, { regions })).toMatchObject({
      filters: { q: 'cleaning windows', region: 'North West' },
    });
    expect(parseSearch('region:yorkshire and the humber schools', now, { regions })).toMatchObject({
      filters: { region: 'Yorkshire and the Humber', q: 'schools' },
    });
    // Three words at most join a region: past them it stays as typed.
    expect(
      parseSearch('region:yorkshire and the humber', now, { regions: ['Yorkshire and the Humber Sea'] }),
    ).toMatchObject({
      filters: { region: 'yorkshire', q: 'and the humber' },
    });
    expect(parseSearch('region:north-west', now, { regions })).toMatchObject({
      filters: { region: 'North West' },
      regionRead: { typed: 'north-west', region: 'North West' },
    });
  });

  it("reads a directory search's region the same way", () => {
    expect(parseDirectory('region:south west schools', { regions })).toMatchObject({
      ok: true,
      filters: { region: 'South West', q: 'schools' },
      regionRead: { typed: 'south west', region: 'South West', text: 'region:"South West" schools' },
    });
    // The text with the region quoted reads the same without the regions (a later page's click).
    const read = parseSearch('cleaning region:north-west  value>1m', now, { regions });
    const again = read.ok && read.regionRead ? parseSearch(read.regionRead.text, now) : null;
    expect(read.ok && read.regionRead?.text).toBe('cleaning region:"North West"  value>1m');
    expect(again).toMatchObject({ ok: true, filters: read.ok ? read.filters : {} });
    expect(parseDirectory('region:south west schools')).toMatchObject({
      filters: { region: 'south', q: 'west schools' },
      afterRegion: 'west schools',
    });
  });

  it('reads the longer region when the first word alone is a region too', () => {
    const both = ['North', 'North West'];
    expect(parseSearch('region:north west cleaning', now, { regions: both })).toMatchObject({
      filters: { region: 'North West', q: 'cleaning' },
      regionRead: { typed: 'north west', region: 'North West' },
    });
    const north = parseSearch('region:north cleaning', now, { regions: both });
    expect(north).toMatchObject({ filters: { region: 'North', q: 'cleaning' } });
    expect(north.ok && north.regionRead).toBeUndefined();
    expect(parseSearch('region:"north" west', now, { regions: both })).toMatchObject({
      filters: { region: 'North', q: 'west' },
    });
  });

  it('leaves a known region (spelt as the data spells it), a quoted one, a filter after it and a search without regions as typed', () => {
    const wales = parseSearch('region:wales west', now, { regions });
    // `wales` is Wales, so the heading says "in Wales"; no words join it.
    expect(wales).toMatchObject({ filters: { region: 'Wales', q: 'west' } });
    expect(parseSearch('region:"WALES"', now, { regions })).toMatchObject({ filters: { region: 'Wales' } });
    expect(parseDirectory('region:wales', { regions })).toMatchObject({ filters: { region: 'Wales' } });
    expect(parseSearch('region:wales', now)).toMatchObject({ filters: { region: 'wales' } });
    expect(wales.ok && wales.regionRead).toBeUndefined();
    expect(parseSearch('region:"south" west', now, { regions })).toMatchObject({
      filters: { region: 'south', q: 'west' },
    });
    expect(parseSearch('region:south value>1m', now, { regions })).toMatchObject({
      filters: { region: 'south', valueMin: 1_000_000 },
    });
    expect(parseSearch('region:south "west"', now, { regions })).toMatchObject({
      filters: { region: 'south', q: 'west' },
    });
    expect(parseSearch('region:south west', now)).toMatchObject({
      filters: { region: 'south', q: 'west' },
      afterRegion: 'west',
    });
  });
});
