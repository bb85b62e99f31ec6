import { describe, expect, it } from 'vitest';
import { parseSearch } from '../../../../src/app/shared/commands/parse-command.ts';
import { describeSearch, searchHeading } from '../../../../src/app/shared/views/describe-search.ts';
import { literalText } from '../../../../src/app/shared/views/mrkdwn.ts';
import { valueRuleFor } from '../../../../src/service/money/reference-rates.ts';

describe('how a search reads back to a person', () => {
  it('reads as a phrase, with amounts and dates formatted as on the cards', () => {
    expect(
      describeSearch({
        q: 'cleaning',
        region: 'North West',
        status: 'open',
        valueMin: 100_000,
        valueMax: 2_500_000,
        deadlineFrom: '2026-11-22',
        deadlineTo: '2026-12-06',
      }),
    ).toBe(
      '“cleaning”, in North West, open, worth £100,000 or more, up to £2,500,000, closing by 6 Dec 2026',
    );
    expect(describeSearch({ deadlineFrom: '2027-01-31' })).toBe('closing on or after 31 Jan 2027');
    // A window that starts later than today (`closes>3d closes<33d`, "closing next month") says its start.
    const window = { deadlineFrom: '2026-12-01', deadlineTo: '2026-12-31' };
    expect(describeSearch(window, undefined, undefined, { today: '2026-11-28' })).toBe(
      'closing from 1 Dec 2026 to 31 Dec 2026',
    );
    expect(describeSearch(window, undefined, undefined, { today: '2026-12-01' })).toBe(
      'closing by 31 Dec 2026',
    );
    // One day (`closing tomorrow`, `closes<0d` for today) is said as that day.
    const oneDay = { deadlineFrom: '2026-11-29', deadlineTo: '2026-11-29' };
    expect(describeSearch(oneDay, undefined, undefined, { today: '2026-11-28' })).toBe(
      'closing on 29 Nov 2026',
    );
    expect(describeSearch(oneDay, undefined, undefined, { today: '2026-11-29' })).toBe(
      'closing on 29 Nov 2026',
    );
    expect(describeSearch({})).toBe('everything');
  });

  it('says a lower bound as the service takes it, inclusively, whether typed `>` or `>=`', () => {
    for (const typed of ['value>100k', 'value>=100k', 'value >= 100000']) {
      const parsed = parseSearch(typed, new Date());
      if (!parsed.ok) throw new Error(`${typed} did not parse`);
      expect(searchHeading(parsed.filters), typed).toBe('Tenders worth £100,000 or more');
    }
  });

  it('shows a bound exactly as it bounds: pence kept, never rounded to another amount', () => {
    expect(describeSearch({ valueMin: 1.5 })).toBe('worth £1.50 or more');
    expect(describeSearch({ valueMax: 999.99 })).toBe('up to £999.99');
    expect(describeSearch({ valueMin: 2.25, currency: 'EUR' })).toBe('worth €2.25 or more');
    expect(describeSearch({ valueMin: 0.4, valueMax: 1_000_000.5 })).toBe(
      'worth £0.40 or more, up to £1,000,000.50',
    );
    // Amounts typed with a unit are exact, whatever binary makes of them (2.01 × 1e6 is not 2010000).
    for (const typed of ['2.01m', '4.35m', '1.15k', '9.07m', '0.29k']) {
      const parsed = parseSearch(`value>${typed}`, new Date());
      expect(parsed.ok && Number.isInteger(parsed.filters.valueMin), typed).toBe(true);
      expect(parsed.ok && describeSearch(parsed.filters), typed).not.toMatch(/\.\d\d/);
    }
    expect(describeSearch({ valueMin: 2_009_999.999_999_999_8 })).toBe('worth £2,010,000 or more');
    // Whole amounts stay whole, in any currency, as the cards show them.
    expect(describeSearch({ valueMin: 100_000, currency: 'CAD' })).toBe('worth CA$100,000 or more');
    expect(describeSearch({ valueMin: 0 })).toBe('worth £0 or more');
  });

  it('shows what was typed literally: in a code span when a mark could format, control characters stay text', () => {
    const said = describeSearch({ q: 'clean* _x_ ~y~ `z` <!channel> & co' });
    // A code span: Slack formats nothing in it, and it reads and copies as typed (no zero-width
    // characters); a backtick cannot sit in one, so it is drawn as a look-alike.
    expect(said).toBe('“`clean* _x_ ~y~ \u02CBz\u02CB &lt;!channel&gt; &amp; co`”');
    expect(said).not.toContain('\u200B');
    // A mark inside a word formats nothing: the words are shown as they are.
    expect(literalText('a*b on_hold')).toBe('a*b on_hold');
  });

  it('states the currency rule the service applied after value bounds, in the currency of the bounds', () => {
    expect(
      searchHeading({ q: 'snow removal', valueMin: 1_000_000 }, undefined, undefined, valueRuleFor('GBP')),
    ).toBe(
      'Tenders matching “snow removal”, worth £1,000,000 or more; amounts in other currencies converted at the ECB rates of 2024-12-31',
    );
    expect(
      searchHeading(
        { valueMax: 500_000, currency: 'CAD', status: 'open' },
        undefined,
        undefined,
        valueRuleFor('CAD'),
      ),
    ).toBe(
      'Open tenders up to CA$500,000; amounts in other currencies converted at the ECB rates of 2024-12-31',
    );
    // Without bounds there is no rule to state, whatever the answer carries.
    expect(searchHeading({ q: 'roads' }, undefined, undefined, valueRuleFor('GBP'))).toBe(
      'Tenders matching “roads”',
    );
  });
});
