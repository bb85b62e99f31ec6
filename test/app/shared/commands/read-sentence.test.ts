import { describe, expect, it } from 'vitest';
import { parseSearch } from '../../../../src/app/shared/commands/parse-command.ts';
import {
  misspeltRegionRead,
  questionWords,
  readSentence as readWhole,
} from '../../../../src/app/shared/commands/read-sentence.ts';

/** A Thursday. */
const now = new Date('2026-11-26T10:00:00Z');
const REGIONS = ['Wales', 'North West', 'London', 'Yorkshire and The Humber'];

/** The search text a sentence is read as, or null. */
function readSentence(sentence: string, at: Date, regions: readonly string[]): string | null {
  return readWhole(sentence, at, regions)?.search ?? null;
}

describe('a direct message read as a search', () => {
  it('turns known regions, amounts and time phrases into filters, and keeps the rest as words', () => {
    const cases: [string, string][] = [
      ['school catering in Wales', 'school catering region:"Wales"'],
      // This month ends on Monday 30 November: 4 days on.
      ['IT support over £100k closing this month', 'IT support value>100k closes<4d'],
      // This week ends on Sunday 29 November (weeks start on Monday).
      ['cleaning in the north west closing this week', 'cleaning region:"North West" closes<3d'],
      // Next week is Monday 30 November to Sunday 6 December; next month all of December.
      ['cleaning closing next week', 'cleaning closes>4d closes<10d'],
      // The value's own word goes with its bound, not into the words searched.
      ['cleaning worth more than £100,000', 'cleaning value>100000'],
      ['roads valued at over €2m', 'roads value>2m eur'],
      ['catering worth between £100k and £250k', 'catering value>=100k value<=250k'],
      ['IT support in Wales closing next month', 'IT support region:"Wales" closes>5d closes<35d'],
      ['roads under €2m', 'roads value<2m eur'],
      ['snow removal above 1 million cad', 'snow removal value>1m cad'],
      ['grounds maintenance in London due within 2 weeks', 'grounds maintenance region:"London" closes<2w'],
      ['catering closing in 10 days', 'catering closes<10d'],
      // Before 1 December: by 30 November.
      ['catering before 1 December', 'catering closes<4d'],
      ['catering by 5 Jan', 'catering closes<40d'],
      ['tenders in Yorkshire and the Humber over 250,000', 'region:"Yorkshire and The Humber" value>250000'],
    ];
    for (const [sentence, search] of cases)
      expect(readSentence(sentence, now, REGIONS), sentence).toBe(search);
  });

  it('reads one closing day, named or written as a date, and up to a weekday', () => {
    const cases: [string, string | null][] = [
      ['cleaning closing today', 'cleaning closes<0d'],
      ['cleaning closing tomorrow', 'cleaning closes>1d closes<1d'],
      // 12 May 2027 is 167 days after Thursday 26 November 2026, in the British order of day and month.
      ['cleaning closing 12/05/2027', 'cleaning closes>167d closes<167d'],
      ['cleaning closing 12.05.2027', 'cleaning closes>167d closes<167d'],
      ['cleaning deadline 12/05', 'cleaning closes>167d closes<167d'],
      ['roads closing on 3 December', 'roads closes>7d closes<7d'],
      ['cleaning due on the 3rd of December', null],
      // Weekdays: the next one, today on the day itself; `before` ends the day before.
      ['cleaning closing on Friday', 'cleaning closes>1d closes<1d'],
      ['catering by Friday', 'catering closes<1d'],
      ['catering before Monday', 'catering closes<3d'],
      ['cleaning due thursday', 'cleaning closes<0d'],
      ['cleaning closing tues', 'cleaning closes>5d closes<5d'],
      // A day gone by is no search for open tenders: nothing is read.
      ['cleaning closing 1/1/2020', null],
      // A number that is no day stays a word.
      ['cleaning closes 2 contracts', null],
    ];
    for (const [sentence, search] of cases)
      expect(readSentence(sentence, now, REGIONS), sentence).toBe(search);
    // The one day is from it and within it: both bounds on the same day.
    expect(parseSearch('cleaning closes>1d closes<1d', now)).toMatchObject({
      ok: true,
      filters: { deadlineFrom: '2026-11-27', deadlineTo: '2026-11-27' },
    });
  });

  it('reads the day after any of the words that may lead one, a weekday before a date, and bid leads’ phrasings', () => {
    const cases: [string, string | null][] = [
      // The first "by" or "ending" leads no day: the next one does.
      ['school meals run by the council by Friday', 'school meals run by the council closes<1d'],
      [
        'grounds maintenance managed by the trust before 1 March',
        'grounds maintenance managed by the trust closes<94d',
      ],
      ['roads ending homelessness closing Friday', 'roads ending homelessness closes>1d closes<1d'],
      // A weekday before a date is the date's (4 December, not tomorrow).
      ['services closing Fri 4 Dec', 'services closes>8d closes<8d'],
      ['services closing Friday, 4 December', 'services closes>8d closes<8d'],
      ['services closing this Friday', 'services closes>1d closes<1d'],
      // As notices and bid leads write them.
      ['cleaning closing date 3 December', 'cleaning closes>7d closes<7d'],
      ['cleaning closing date: 3 December', 'cleaning closes>7d closes<7d'],
      ['cleaning deadline: Friday', 'cleaning closes>1d closes<1d'],
      ['cleaning due by tomorrow', 'cleaning closes<1d'],
      ['cleaning before tomorrow', 'cleaning closes<0d'],
      ['cleaning due on or before 3 December', 'cleaning closes<7d'],
      // More than ten years ahead is no closing day a search takes: left as words.
      ['cleaning closing 1/1/2040', null],
      // How a question begins is no search word.
      ["what's closing this week", 'closes<3d'],
      ['show me cleaning in Wales', 'cleaning region:"Wales"'],
      ['are there any IT support tenders over £100k', 'IT support value>100k'],
      ['i’m looking for catering closing next month', 'catering closes>5d closes<35d'],
      // Numbers in words, "after" a day, and Christmas.
      ['cleaning closing in the next two weeks', 'cleaning closes<2w'],
      ['cleaning within ten days', 'cleaning closes<10d'],
      // Months as long as the calendar makes them from today (26 November: 26 January is 61 days on).
      ['cleaning closing within two months', 'cleaning closes<61d'],
      ['cleaning closing within a month', 'cleaning closes<30d'],
      // Months with no closing word are a contract's length, not a closing window.
      ['software implementation within 6 months', null],
      ['cleaning closing in the next 3 months', 'cleaning closes<92d'],
      ['cleaning within a week', 'cleaning closes<1w'],
      ['cleaning closing after 1 January', 'cleaning closes>37d'],
      ['cleaning in Wales closing before Christmas', 'cleaning region:"Wales" closes<28d'],
      ['after school clubs', null],
      // Next week's Friday (4 December; "this Friday" is tomorrow); a month's end.
      ['cleaning closing next Friday', 'cleaning closes>8d closes<8d'],
      ['cleaning closing next mon', 'cleaning closes>4d closes<4d'],
      ['cleaning closing end of December', 'cleaning closes>35d closes<35d'],
      ['cleaning by the end of November', 'cleaning closes<4d'],
      // "before Thursday" on a Thursday: next week's, so up to Wednesday 2 December.
      ['cleaning before Thursday', 'cleaning closes<6d'],
      ['cleaning by Thursday', 'cleaning closes<0d'],
    ];
    for (const [sentence, search] of cases)
      expect(readSentence(sentence, now, REGIONS), sentence).toBe(search);
  });

  it('reads a day with no year as the next one that has it: 29 February in a leap year, 1 January on 31 December', () => {
    // 1 March 2028: 29 February has passed this year, and 2029 has none; 2032 has.
    expect(readWhole('services by 29 Feb', new Date('2028-03-05T10:00:00Z'), REGIONS)).toEqual({
      search: 'services closes<1456d',
      closingDay: true,
    });
    // Before a leap day, this year's; in a year without one, the next leap year's.
    expect(readSentence('services by 29 Feb', new Date('2028-02-01T10:00:00Z'), REGIONS)).toBe(
      'services closes<28d',
    );
    expect(readSentence('services closing 29/02', new Date('2026-11-26T10:00:00Z'), REGIONS)).toBe(
      'services closes>460d closes<460d',
    );
    // On 31 December, 1 January is tomorrow: next year's, one day ahead.
    const newYearsEve = new Date('2026-12-31T10:00:00Z');
    expect(readWhole('services by 1 Jan', newYearsEve, REGIONS)).toEqual({
      search: 'services closes<1d',
      closingDay: true,
      dayOfNextYear: { typed: 'by 1 Jan', day: '2027-01-01' },
    });
    expect(readSentence('services by 30 Dec', newYearsEve, REGIONS)).toBe('services closes<364d');
    // "before 1 March" said on 1 March: closing before today finds nothing open, so next year's
    // (365 days ahead, up to the day before it), said so; with this year typed, nothing is read.
    const firstOfMarch = new Date('2027-03-01T10:00:00Z');
    expect(readWhole('services before 1 March', firstOfMarch, REGIONS)).toEqual({
      search: 'services closes<365d',
      closingDay: true,
      dayOfNextYear: { typed: 'before 1 March', day: '2028-03-01' },
    });
    expect(readSentence('services by 1 March', firstOfMarch, REGIONS)).toBe('services closes<0d');
    expect(readSentence('services before 1 March 2027', firstOfMarch, REGIONS)).toBeNull();
    // "before today" closes before now: nothing to read (not tomorrow's).
    expect(readSentence('services before today', firstOfMarch, REGIONS)).toBeNull();
    expect(readSentence('services before tonight', firstOfMarch, REGIONS)).toBeNull();
  });

  it('reads no sentence longer than a thousand characters (a pasted page is no search)', () => {
    expect(readSentence(`cleaning in Wales ${'x'.repeat(990)}`, now, REGIONS)).toBeNull();
    expect(readSentence('Wales Fire '.repeat(4000), now, REGIONS)).toBeNull();
    expect(misspeltRegionRead(`in Lndon ${'London Fire '.repeat(3300)}`, now, REGIONS)).toBeNull();
    expect(readSentence(`cleaning in Wales ${'x'.repeat(900)}`, now, REGIONS)).toContain('region:"Wales"');
  });

  it('reads a bare number as money only when it looks like one: counts and years stay words', () => {
    const cases: [string, string | null][] = [
      ['software from 2025 in Wales', 'software from 2025 region:"Wales"'],
      ['catering over 100 schools', null],
      [
        'IT staff with at least 3 years experience closing this week',
        'IT staff with at least 3 years experience closes<3d',
      ],
      // A count first, then an amount: the amount is read, the count stays.
      ['catering over 100 schools under £2m', 'catering over 100 schools value<2m'],
      ['IT support over 250000', 'IT support value>250000'],
      ['IT support over 5000', 'IT support value>5000'],
      ['IT support over 500,000', 'IT support value>500000'],
    ];
    for (const [sentence, search] of cases)
      expect(readSentence(sentence, now, REGIONS), sentence).toBe(search);
  });

  it('reads dollars as a dollar sign, which the search then asks about', () => {
    expect(readSentence('roads over 2 million dollars', now, REGIONS)).toBe('roads value>$2m');
    // Which dollars, said: read as that currency.
    expect(readSentence('roads over 2m US dollars', now, REGIONS)).toBe('roads value>2m usd');
    expect(readSentence('snow removal under 500k Canadian dollars', now, REGIONS)).toBe(
      'snow removal value<500k cad',
    );
    expect(parseSearch('roads value>$2m', now)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('say which dollars'),
    });
  });

  it('leaves a region that is part of a name (after for or of) as words', () => {
    expect(readSentence('Transport for London', now, REGIONS)).toBeNull();
    expect(readSentence('University of Wales over £1m', now, REGIONS)).toBe('University of Wales value>1m');
    expect(readSentence('Transport for London cleaning in Wales', now, REGIONS)).toBe(
      'Transport for London cleaning region:"Wales"',
    );
    expect(readSentence('cleaning London', now, REGIONS)).toBe('cleaning region:"London"');
    expect(readSentence('cleaning for Wales', now, REGIONS)).toBe('cleaning region:"Wales"');
    expect(readSentence('catering for the North West over 1m', now, REGIONS)).toBe(
      'catering region:"North West" value>1m',
    );
    expect(readSentence('Bank of England cleaning in London', now, REGIONS)).toBe(
      'Bank of England cleaning region:"London"',
    );
  });

  it('searches the first of two regions named, and offers the other as a search of its own', () => {
    for (const [sentence, read, other, words] of [
      ['cleaning in Wales, London', 'Wales', 'London', 'cleaning'],
      ['cleaning in London or Wales over £100k', 'London', 'Wales', 'cleaning'],
      [
        'cleaning in the North West and Yorkshire & the Humber',
        'North West',
        'Yorkshire and The Humber',
        'cleaning',
      ],
      ['school meals in Wales / London', 'Wales', 'London', 'school meals'],
    ] as const) {
      const found = readWhole(sentence, now, REGIONS);
      expect(found?.search, sentence).toMatch(new RegExp(`^${words} region:"${read}"`));
      expect(found?.otherRegion, sentence).toEqual({
        read,
        name: other,
        search: (found?.search ?? '').replace(`region:"${read}"`, `region:"${other}"`),
      });
    }
    // One region, or one inside a name: nothing offered.
    expect(readWhole('cleaning in Wales', now, REGIONS)?.otherRegion).toBeUndefined();
    expect(readWhole('Transport for London cleaning in Wales', now, REGIONS)?.otherRegion).toBeUndefined();
  });

  it('reads "between" two amounts, or "from" one "to" another, as a value range with both ends included', () => {
    const cases: [string, string | null][] = [
      ['cleaning between 1m and 2m', 'cleaning value>=1m value<=2m'],
      ['cleaning between £100k and £250k', 'cleaning value>=100k value<=250k'],
      ['cleaning between 100,000 and 250,000 pounds', 'cleaning value>=100000 value<=250000 gbp'],
      ['roads between €1m and €2m in Wales', 'roads region:"Wales" value>=1m value<=2m eur'],
      ['roads between £100k-£250k', 'roads value>=100k value<=250k'],
      ['roads from £1m to £2m', 'roads value>=1m value<=2m'],
      // The unit said once, after the second amount, is both amounts' ("1 to 2 million").
      ['roads between 1 and 2 million', 'roads value>=1m value<=2m'],
      ['roads between 500 and 2m', 'roads value>=500 value<=2m'],
      // The lower amount first, whichever was said first.
      ['roads between 2m and 1m', 'roads value>=1m value<=2m'],
      // Counts and years stay words, and so do days (closing dates are read after "before" or "by").
      ['IT staff with between 2 and 5 years experience', null],
      ['software between 2020 and 2025', null],
      ['catering closing between 1 and 15 December', null],
    ];
    for (const [sentence, search] of cases)
      expect(readSentence(sentence, now, REGIONS), sentence).toBe(search);
    expect(
      parseSearch(readSentence('cleaning between 100,000 and 250,000 pounds', now, REGIONS) ?? '', now),
    ).toEqual({
      ok: true,
      filters: { q: 'cleaning', valueMin: 100_000, valueMax: 250_000, currency: 'GBP' },
      buyerName: null,
    });
  });

  it('reads thousands grouped by spaces as an amount when it is clearly one', () => {
    const cases: [string, string | null][] = [
      ['cleaning over 100 000', 'cleaning value>100000'],
      ['cleaning under 250 000.', 'cleaning value<250000'],
      ['cleaning under €1 250 000', 'cleaning value<1250000 eur'],
      ['roads over 100 000 euros', 'roads value>100000 eur'],
      ['cleaning over 100 000 in Wales', 'cleaning region:"Wales" value>100000'],
      ['cleaning over 100 000 closing this month', 'cleaning value>100000 closes<4d'],
      ['cleaning between 100 000 and 250 000', 'cleaning value>=100000 value<=250000'],
      // Followed by what is counted, a number is a count however it is grouped.
      ['catering over 100 000 meals', null],
      ['cleaning between 1 000 and 2 000 sites', null],
      // Groups of other than three digits are two numbers.
      ['cleaning over 100 0000', null],
    ];
    for (const [sentence, search] of cases)
      expect(readSentence(sentence, now, REGIONS), sentence).toBe(search);
  });

  it('keeps a region that begins a name as words: "London Borough of …", "Wales Ambulance Service"', () => {
    const cases: [string, string | null][] = [
      ['London Borough of Camden cleaning', null],
      ['London Borough of Camden cleaning over £100k', 'London Borough of Camden cleaning value>100k'],
      ['Wales Ambulance Service', null],
      ['North West Ambulance Service over 1m', 'North West Ambulance Service value>1m'],
      ['catering for Yorkshire and the Humber Combined Authority', null],
      ['Wales Centre of Excellence catering', null],
      // A region with the words of a search after it is still the region.
      ['cleaning in London', 'cleaning region:"London"'],
      ['London cleaning', 'cleaning region:"London"'],
      ['London Cleaning over £100k', 'Cleaning region:"London" value>100k'],
      ['Wales, Council offices cleaning', 'Council offices cleaning region:"Wales"'],
    ];
    for (const [sentence, search] of cases)
      expect(readSentence(sentence, now, REGIONS), sentence).toBe(search);
  });

  it('keeps a currency sign and a currency word that disagree, for the search to say so', () => {
    expect(readSentence('roads over €1m dollars', now, REGIONS)).toBe('roads value>€1m dollars');
    expect(readSentence('roads over £1m euros', now, REGIONS)).toBe('roads value>£1m eur');
    expect(parseSearch('roads value>€1m dollars', now)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('the sign says euros and the word after it dollars'),
    });
    // A sign and a word that agree: one currency.
    expect(readSentence('roads over CA$1m dollars', now, REGIONS)).toBe('roads value>1m cad');
    expect(readSentence('roads over $2m US dollars', now, REGIONS)).toBe('roads value>2m usd');
  });

  it('reads a closing day with no year that has passed this year as next year’s, and says so', () => {
    // A weekday the date does not fall on: the date is read, and said (12 May 2027 is a Wednesday).
    const nov29 = new Date('2026-11-29T10:00:00Z');
    expect(readWhole('cleaning closing Thursday 12 May 2027', nov29, REGIONS)).toEqual({
      search: 'cleaning closes>164d closes<164d',
      closingDay: true,
      dayOfOtherWeekday: { typed: 'closing Thursday 12 May 2027', day: '2027-05-12', weekday: 'Wednesday' },
    });
    expect(readWhole('cleaning by thurs, 12 May 2027', nov29, REGIONS)?.dayOfOtherWeekday?.weekday).toBe(
      'Wednesday',
    );
    // The right weekday, or none: nothing to say.
    expect(readWhole('cleaning closing Wednesday 12 May 2027', nov29, REGIONS)).toEqual({
      search: 'cleaning closes>164d closes<164d',
      closingDay: true,
    });
    expect(readWhole('cleaning by Friday', nov29, REGIONS)).toEqual({
      search: 'cleaning closes<5d',
      closingDay: true,
    });
    // A date in numbers after its weekday is the date, not this week's weekday with a stray word.
    expect(readWhole('cleaning by Thursday 12.5.2027', nov29, REGIONS)).toEqual({
      search: 'cleaning closes<164d',
      closingDay: true,
      dayOfOtherWeekday: { typed: 'by Thursday 12.5.2027', day: '2027-05-12', weekday: 'Wednesday' },
    });
    expect(readSentence('cleaning by Wed 12/05/2027', nov29, REGIONS)).toBe('cleaning closes<164d');
    // A date in numbers after its weekday that is no day: not this Thursday with a stray word
    // (nothing is read; unreadableDay names the date).
    expect(readSentence('cleaning closing Thursday 31.02.2027', nov29, REGIONS)).toBeNull();
    expect(readSentence('cleaning by Fri 0/0/0', nov29, REGIONS)).toBeNull();
    expect(readSentence('cleaning closing Weds', nov29, REGIONS)).toBe('cleaning closes>3d closes<3d');
    // Two days named, not a date with its weekday: nothing to say about a weekday.
    for (const sentence of ['cleaning closing Friday next Monday', 'cleaning closing Thursday christmas'])
      expect(readWhole(sentence, nov29, REGIONS)?.dayOfOtherWeekday).toBeUndefined();
    // "next Friday's" is next week's Friday (4 Dec), as "next Friday" is, and "Thursday's 12 May" the date.
    expect(readSentence("cleaning closing next Friday's", nov29, REGIONS)).toBe(
      'cleaning closes>5d closes<5d',
    );
    expect(readSentence("cleaning by next Monday's", nov29, REGIONS)).toBe('cleaning closes<1d');
    expect(readWhole("cleaning closing Wednesday's 12 May 2027", nov29, REGIONS)).toEqual({
      search: 'cleaning closes>164d closes<164d',
      closingDay: true,
    });
    // No year, and a weekday the date does not fall on: both said.
    const dec5 = new Date('2026-12-05T10:00:00Z');
    expect(readWhole('cleaning by Mon 1 Dec', dec5, REGIONS)).toEqual({
      search: 'cleaning closes<361d',
      closingDay: true,
      dayOfNextYear: { typed: 'by Mon 1 Dec', day: '2027-12-01' },
      dayOfOtherWeekday: { typed: 'by Mon 1 Dec', day: '2027-12-01', weekday: 'Wednesday' },
    });
    const may13 = new Date('2026-05-13T10:00:00Z');
    expect(readWhole('cleaning due by 12 May', may13, REGIONS)).toEqual({
      search: 'cleaning closes<364d',
      closingDay: true,
      dayOfNextYear: { typed: 'due by 12 May', day: '2027-05-12' },
    });
    // A day still to come this year, or a year typed: nothing to say.
    expect(readWhole('cleaning due by 14 May', may13, REGIONS)).toEqual({
      search: 'cleaning closes<1d',
      closingDay: true,
    });
    expect(readWhole('cleaning due by 12 May 2027', may13, REGIONS)).toEqual({
      search: 'cleaning closes<364d',
      closingDay: true,
    });
  });

  it('reads amounts in pence as money, and keeps «quotes» as typed for the search to read', () => {
    expect(readSentence('stationery under 999.99', now, REGIONS)).toBe('stationery value<999.99');
    expect(readSentence('«school meals» in Wales', now, REGIONS)).toBe('«school meals» region:"Wales"');
  });

  it('reads through invisible characters pasted with the text', () => {
    expect(readSentence('IT support over 1m\u200B', now, REGIONS)).toBe('IT support value>1m');
    expect(readSentence('\uFEFFcatering in Wales', now, REGIONS)).toBe('catering region:"Wales"');
  });

  it('never reads two currencies as one: a pound amount beside a euro one is said, and refused', () => {
    expect(readSentence('roads over €2m under £3m', now, REGIONS)).toBe('roads value>2m eur value<3m gbp');
    const read = parseSearch(readSentence('roads over €2m under £3m', now, REGIONS) ?? '', now);
    expect(read).toEqual({
      ok: false,
      problem:
        'The amounts are in euros and pounds; a search compares values in one currency. Give both amounts in one.',
    });
    // One currency named, the other amount bare: both in it, as `value>2m value<3m eur` reads.
    expect(readSentence('roads over €2m under 3m', now, REGIONS)).toBe('roads value>2m eur value<3m');
    // Pounds alone go unsaid, as before.
    expect(readSentence('roads over £2m under £3m', now, REGIONS)).toBe('roads value>2m value<3m');
  });

  it('gives a search text parseSearch reads into the filters meant', () => {
    const search = readSentence('IT support over £100k in Wales closing this month', now, REGIONS) ?? '';
    expect(parseSearch(search, now)).toEqual({
      ok: true,
      filters: {
        q: 'IT support',
        region: 'Wales',
        valueMin: 100_000,
        deadlineFrom: '2026-11-26',
        deadlineTo: '2026-11-30',
        status: 'open',
      },
      buyerName: null,
      closesDays: { within: 4 },
    });
  });

  it('reads nothing from a phrase without filters, a region it does not know, or a search as typed', () => {
    expect(readSentence('electrical inspection', now, REGIONS)).toBeNull();
    expect(readSentence('school catering in Narnia', now, REGIONS)).toBeNull();
    expect(readSentence('cleaning region:Wales', now, REGIONS)).toBeNull();
    expect(readSentence('"school meals" in Wales', now, REGIONS)).toBeNull();
    // A word that merely holds a region's name is not one: "Walesby" is a place of its own.
    expect(readSentence('Walesby library', now, REGIONS)).toBeNull();
    // Punctuation alone is no reading.
    expect(readSentence('cleaning?', now, REGIONS)).toBeNull();
  });

  it('reads what a question asks for where nothing in it is a filter, only when it begins as a question', () => {
    expect(questionWords('are there any cleaning tenders?')).toBe('cleaning');
    expect(questionWords("I'm looking for cleaning")).toBe('cleaning');
    expect(questionWords('can you find me school catering, thanks!')).toBe('school catering');
    expect(questionWords('hi, do you have any electrical inspection opportunities please')).toBe(
      'electrical inspection',
    );
    // Words that merely begin with an asking word are searched as typed.
    for (const typed of ['Due diligence services', 'All Saints school roof', 'Show caves', 'what can you do'])
      expect(questionWords(typed), typed).toBeNull();
    // The opening alone asks for nothing: '' (the answer asks what to look for).
    for (const typed of ['are there any?', "I'm looking for", 'can you find me?', 'are there any tenders?'])
      expect(questionWords(typed), typed).toBe('');
    expect(readSentence('are there any cleaning tenders?', now, REGIONS)).toBeNull();
  });
});

describe('a region misspelt in a sentence', () => {
  it('is mended to the one region it is near, with the rest of the sentence read as before', () => {
    expect(misspeltRegionRead('cleaning in Londn', now, REGIONS)).toEqual({
      typed: 'Londn',
      region: 'London',
      search: 'cleaning region:"London"',
    });
    expect(misspeltRegionRead('roads across the north wst closing this week', now, REGIONS)).toEqual({
      typed: 'north wst',
      region: 'North West',
      search: 'roads region:"North West" closes<3d',
    });
    expect(misspeltRegionRead('cleaning in in Londn', now, REGIONS)?.region).toBe('London');
    // The start of one region's name is that region; the start of two is no guess.
    expect(misspeltRegionRead('cleaning in Yorkshire', now, REGIONS)).toEqual({
      typed: 'Yorkshire',
      region: 'Yorkshire and The Humber',
      search: 'cleaning region:"Yorkshire and The Humber"',
    });
    expect(misspeltRegionRead('cleaning in North', now, [...REGIONS, 'North East'])).toBeNull();
    expect(misspeltRegionRead('tenders in Yorkshire and the Humbr over £1m', now, REGIONS)?.search).toBe(
      'region:"Yorkshire and The Humber" value>1m',
    );
  });

  it('is not guessed: a region known, near none, a number, or a sentence without "in"', () => {
    for (const sentence of [
      'cleaning in Wales',
      'cleaning in Narnia',
      'catering in schools',
      'catering in 2026',
      'Londn cleaning',
      '',
    ])
      expect(misspeltRegionRead(sentence, now, REGIONS), sentence).toBeNull();
  });
});

describe('what a sentence says besides its search', () => {
  /** A Sunday. */
  const sunday = new Date('2026-11-29T10:00:00Z');
  const read = (sentence: string) => readSentence(sentence, sunday, REGIONS);

  it('leaves courtesies, greetings and Slack mentions out of the words searched', () => {
    expect(read('cleaning in Wales, thanks!')).toBe('cleaning region:"Wales"');
    expect(read('hi, cleaning in London please')).toBe('cleaning region:"London"');
    expect(read('cleaning in Wales thank you')).toBe('cleaning region:"Wales"');
    expect(read('cleaning in Wales, cheers')).toBe('cleaning region:"Wales"');
    expect(read('<@U0123ABC> cleaning in Wales <!channel>')).toBe('cleaning region:"Wales"');
    expect(read('cleaning in Wales <#C0123|bids>')).toBe('cleaning region:"Wales"');
  });

  it('reads a count as words, not as a value ("up to 10k users" is no money)', () => {
    expect(read('software up to 10k users in London')).toBe('software up to 10k users region:"London"');
    // A comma between digits stays: "5,000" is one number, not "5 000".
    expect(read('catering for over 5,000 pupils in Wales')).toBe(
      'catering for over 5,000 pupils region:"Wales"',
    );
    expect(read('housing at least 1,500 homes in Wales')).toBe('housing at least 1,500 homes region:"Wales"');
    // With a currency it is money whatever follows.
    expect(read('software over £10k users in London')).toBe('software users region:"London" value>10k');
  });

  it('takes one value bound each way, and a window the search takes', () => {
    const twice = read('cleaning over 1m over 2m in Wales');
    expect(twice).toBe('cleaning over 2m region:"Wales" value>1m');
    expect(parseSearch(twice ?? '', sunday).ok).toBe(true);
    // 522 weeks is past ten years: words, as a day that far is.
    const far = read('cleaning in Wales within 522 weeks');
    expect(far).toBe('cleaning within 522 weeks region:"Wales"');
    expect(parseSearch(far ?? '', sunday).ok).toBe(true);
    expect(read('cleaning in Wales within 52 weeks')).toBe('cleaning region:"Wales" closes<52w');
  });

  it('reads "&" in a region\'s name, and days said with an apostrophe', () => {
    expect(read('cleaning in Yorkshire & the Humber')).toBe('cleaning region:"Yorkshire and The Humber"');
    // 1 January 2027 is 33 days on; Christmas Eve 25.
    expect(read('cleaning by New Year’s Day')).toBe('cleaning closes<33d');
    expect(read("cleaning by New Year's Day")).toBe('cleaning closes<33d');
    expect(read('cleaning due by Xmas Eve')).toBe('cleaning closes<25d');
    // By Monday (tomorrow): the possessive is the day's, what it owns stays a word.
    expect(read("cleaning by Monday's meeting")).toBe('cleaning meeting closes<1d');
  });

  it('leaves the hour said beside a closing day out of the words (a search is by day)', () => {
    // Friday 4 December, 5 days on.
    expect(read('cleaning closing Friday at 5pm')).toBe('cleaning closes>5d closes<5d');
    expect(read('cleaning deadline Friday 12:00')).toBe('cleaning closes>5d closes<5d');
    expect(read('cleaning by Friday at noon')).toBe('cleaning closes<5d');
    expect(read('cleaning closing Friday 5.30 pm in Wales')).toBe(
      'cleaning region:"Wales" closes>5d closes<5d',
    );
    // A lot's number is no hour; with no closing day read, an hour stays as typed.
    expect(read('lot 2.10 cleaning closing Friday')).toBe('lot 2.10 cleaning closes>5d closes<5d');
    expect(read('cleaning in Wales at 5pm')).toBe('cleaning at 5pm region:"Wales"');
  });

  it('reads a lead word at its first eight places only: a message of "by 1 by 1 …" is not parsed place by place', () => {
    expect(read(`cleaning ${'by 1 '.repeat(7)}by Friday`)).toContain('closes<5d');
    expect(read(`cleaning ${'by 1 '.repeat(8)}by Friday`)).toBeNull();
  });
});

describe('"this week" and "this month" said on their last day', () => {
  it('mean the days ahead, up to the end of the next one, not today alone', () => {
    // Sunday 29 November: the week ends today; next Sunday is 6 December, 7 days on.
    expect(readSentence('cleaning closing this week', new Date('2026-11-29T10:00:00Z'), REGIONS)).toBe(
      'cleaning closes<7d',
    );
    // Monday 30 November, the month's last day: up to 31 December, 31 days on.
    expect(readSentence('cleaning closing this month', new Date('2026-11-30T10:00:00Z'), REGIONS)).toBe(
      'cleaning closes<31d',
    );
    // Any other day: to the period's end, as before (Saturday 28 November: one day on).
    expect(readSentence('cleaning closing this week', new Date('2026-11-28T10:00:00Z'), REGIONS)).toBe(
      'cleaning closes<1d',
    );
  });
});
