import { describe, expect, it } from 'vitest';
import {
  amountWord,
  commandHint,
  searchTextFromForm,
} from '../../../../src/app/features/links/search-builder.ts';
import { ANY } from '../../../../src/app/features/links/views/search-builder-modal.ts';
import { parseSearch } from '../../../../src/app/shared/commands/parse-command.ts';
import { SEARCH_BUILDER_FIELDS as F } from '../../../../src/app/shared/ids.ts';

const BUYER = '5f0c8f2e-3c1a-5b7e-9d2a-0a1b2c3d4e5f';

/** `view.state.values` as Slack sends it: block id → action id → element state. */
function form(values: Partial<Record<keyof typeof F, string>>) {
  const state: Record<string, Record<string, unknown>> = {};
  for (const [name, field] of Object.entries(F)) {
    const given = values[name as keyof typeof F];
    const select = ['region', 'status', 'closes', 'buyer', 'currency'].includes(name);
    state[field.block] = {
      [field.action]: select
        ? {
            type: 'static_select',
            selected_option: given ? { text: { type: 'plain_text', text: given }, value: given } : null,
          }
        : { type: 'plain_text_input', value: given ?? null },
    };
  }
  return state;
}

describe('the search builder’s form as a command', () => {
  it('writes every field as the filter a person would type, which parses back to the same filters', () => {
    const built = searchTextFromForm(
      form({
        words: '  school   meals ',
        region: 'North West',
        status: 'open',
        valueMin: '£100,000',
        valueMax: '2.5m',
        closes: '14',
        cpv: '5552',
        buyer: BUYER,
      }),
    );
    expect(built).toEqual({
      ok: true,
      text: `school meals region:"North West" status:open value>=100k value<=2.5m closes<14d cpv:5552 buyer:${BUYER}`,
    });
    const now = new Date('2026-11-22T12:00:00Z');
    const parsed = parseSearch((built as { text: string }).text, now);
    expect(parsed).toEqual({
      ok: true,
      buyerName: null,
      filters: {
        q: 'school meals',
        region: 'North West',
        status: 'open',
        valueMin: 100_000,
        valueMax: 2_500_000,
        deadlineFrom: '2026-11-22',
        deadlineTo: '2026-12-06',
        cpv: '5552',
        buyerId: BUYER,
      },
      closesDays: { within: 14 },
    });
  });

  it('writes the value bounds’ currency as a typed search names it, and only with an amount', () => {
    const now = new Date('2026-11-22T12:00:00Z');
    const euros = searchTextFromForm(
      form({ words: 'roads', valueMin: '1m', valueMax: '€2m', currency: 'EUR' }),
    );
    expect(euros).toEqual({ ok: true, text: 'roads value>=1m value<=2m currency:eur' });
    expect(parseSearch((euros as { text: string }).text, now)).toMatchObject({
      ok: true,
      filters: { valueMin: 1_000_000, valueMax: 2_000_000, currency: 'EUR' },
    });
    // Pounds are the service's own default: not written, as `value>1m` is not.
    expect(searchTextFromForm(form({ valueMin: '1m', currency: 'GBP' }))).toEqual({
      ok: true,
      text: 'value>=1m',
    });
    expect(searchTextFromForm(form({ words: 'roads', currency: 'CAD' }))).toEqual({
      ok: true,
      text: 'roads',
    });
  });

  it('refuses an amount whose sign names another currency than the one chosen, rather than read €1m as £1m', () => {
    const pounds = searchTextFromForm(form({ valueMin: '€1m' }));
    expect(pounds).toEqual({
      ok: false,
      errors: {
        [F.valueMin.block]:
          'This amount is in EUR but “Values in” says GBP: choose EUR there, or write the amount without its sign.',
      },
    });
    const dollars = searchTextFromForm(form({ valueMax: '$5m', currency: 'CAD' }));
    expect(dollars.ok).toBe(false);
    expect(JSON.stringify(dollars)).toContain('Write the amount without $');
    expect(searchTextFromForm(form({ valueMin: 'CA$5m', currency: 'CAD' }))).toEqual({
      ok: true,
      text: 'value>=5m currency:cad',
    });
    // Odd amounts get their field's sentence.
    for (const odd of ['-5', '1e400', '999999999999b', '0.001']) {
      const built = searchTextFromForm(form({ valueMin: odd }));
      expect(built.ok, odd).toBe(false);
      expect(Object.keys((built as { errors: Record<string, string> }).errors), odd).toEqual([
        F.valueMin.block,
      ]);
    }
    expect(searchTextFromForm(form({ valueMin: '1m', currency: 'XYZ' }))).toEqual({
      ok: false,
      errors: { [F.currency.block]: 'Choose the currency from the list again.' },
    });
  });

  it('is the empty search for an empty form (everything, as `/tender search` alone)', () => {
    expect(searchTextFromForm(form({}))).toEqual({ ok: true, text: '' });
    expect(searchTextFromForm(form({ region: ANY, status: ANY, closes: ANY }))).toEqual({
      ok: true,
      text: '',
    });
    expect(searchTextFromForm(undefined)).toEqual({ ok: true, text: '' });
  });

  it('puts a sentence on each field it cannot use, and none on the others', () => {
    const built = searchTextFromForm(
      form({
        words: 'ok',
        valueMin: 'lots',
        valueMax: '5k',
        cpv: '72-IT',
        buyer: 'not-a-buyer',
        status: 'sideways',
      }),
    );
    expect(built.ok).toBe(false);
    const errors = (built as { errors: Record<string, string> }).errors;
    expect(Object.keys(errors).sort()).toEqual(
      [F.buyer.block, F.cpv.block, F.status.block, F.valueMin.block].sort(),
    );
    expect(errors[F.valueMin.block]).toContain('250000, 100k or 2.5m');
  });

  it('refuses a smallest value above the largest', () => {
    const built = searchTextFromForm(form({ valueMin: '2m', valueMax: '1m' }));
    expect(built).toEqual({ ok: false, errors: { [F.valueMax.block]: expect.stringContaining('smaller') } });
  });

  it('shows on the Words field what the typed words bring, while the form is open', () => {
    const cases: [Record<string, string>, string][] = [
      [{ words: 'cleaning "' }, 'A quote in the words is not closed'],
      [
        { words: 'cleaning region:London', region: 'North West' },
        'The words give region: as well as the form',
      ],
      [{ words: '%%' }, 'no letters or digits'],
    ];
    for (const [fields, sentence] of cases) {
      const built = searchTextFromForm(form(fields));
      expect(built, JSON.stringify(fields)).toEqual({
        ok: false,
        errors: { [F.words.block]: expect.stringContaining(sentence) },
      });
      // Slack shows a field's error as plain text: no code marks.
      expect(JSON.stringify(built)).not.toContain('`');
    }
  });

  it('refuses a region that could not be written in the command', () => {
    expect(searchTextFromForm(form({ region: 'The "Best" Region' })).ok).toBe(false);
  });
});

describe('amounts as typed', () => {
  it('writes round amounts short, and others as they are', () => {
    expect(amountWord(100_000)).toBe('100k');
    expect(amountWord(2_500_000)).toBe('2.5m');
    expect(amountWord(1_000_000_000)).toBe('1b');
    expect(amountWord(1_500)).toBe('1.5k');
    expect(amountWord(123_456)).toBe('123456');
    expect(amountWord(99.5)).toBe('99.5');
    expect(amountWord(0)).toBe('0');
  });
});

describe('the command hint', () => {
  it('shows the whole command, with no backtick that could break its code span', () => {
    expect(commandHint('cleaning region:"North West"').text).toContain(
      '`/tender search cleaning region:"North West"`',
    );
    expect(commandHint('a`b').text).toContain("`/tender search a'b`");
    expect(commandHint('').text).toContain('`/tender search`');
    // The person's words are outside text: `<!channel>` notifies nobody; filters read as typed once shown.
    expect(commandHint('<!channel> value>=1k').text).toContain(
      '`/tender search &lt;!channel&gt; value&gt;=1k`',
    );
  });
});
