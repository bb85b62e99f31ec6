import { describe, expect, it } from 'vitest';
import { subscriptionSummary } from '../../../../src/app/features/subscriptions/describe.ts';
import type { TenderSearchFilters } from '../../../../src/app/shared/commands/parse-command.ts';
import { describeSearch, STATUS_WORDS } from '../../../../src/app/shared/views/describe-search.ts';
import type { Subscription } from '../../../../src/app/storage/subscription-store.ts';

const base: Subscription = {
  id: 's-abc123',
  teamId: 'T1',
  channelId: 'C1',
  kind: 'pipeline',
  target: JSON.stringify({ p: '3f1c2a9e-0b6d-4c1e-9a53-7d2f0e8b4c11', n: 'Salford cleaning bid' }),
  cadence: 'daily',
  localTime: '09:00',
  timeZone: 'Europe/London',
  createdBy: 'U1',
  createdAt: new Date('2026-11-22T00:00:00Z'),
  pausedReason: null,
  nextRunAt: new Date('2026-11-23T09:00:00Z'),
  cursor: null,
  skippedCount: 0,
};

describe('what a subscription posts, in words', () => {
  it('names a bid by its name alone, and by its id only when no name was kept', () => {
    expect(subscriptionSummary(base)).toBe('Summaries of the bid “Salford cleaning bid”');
    expect(
      subscriptionSummary({ ...base, target: JSON.stringify({ p: '3f1c2a9e-0b6d-4c1e-9a53-7d2f0e8b4c11' }) }),
    ).toBe('Summaries of the bid `3f1c2a9e-0b6d-4c1e-9a53-7d2f0e8b4c11`');
  });

  it('escapes a name that could notify a channel, and says when a target cannot be read', () => {
    const forged = subscriptionSummary({ ...base, target: JSON.stringify({ p: 'x', n: '<!channel> bid' }) });
    expect(forged).not.toContain('<!channel>');
    expect(forged).toContain('&lt;!channel&gt;');
    expect(subscriptionSummary({ ...base, target: '{"p":' })).toBe(
      'A subscription Tenderbot can no longer read',
    );
    expect(subscriptionSummary({ ...base, kind: 'deadlines', target: JSON.stringify({ days: 1 }) })).toBe(
      'Reminders of deadlines within 1 day',
    );
  });

  it('says a feed’s value rule after its bounds only, and that it could not be read when it could not', () => {
    const feed = (f: object, d: string) => ({
      ...base,
      kind: 'search' as const,
      target: JSON.stringify({ f, d }),
    });
    const bounded = feed({ q: 'gritting', valueMin: 1_000_000 }, '“gritting”, worth £1,000,000 or more');
    const unbounded = feed({ q: 'gritting' }, '“gritting”');
    const rule = {
      currency: 'GBP' as const,
      ratesDate: '2031-01-02',
      ratesSource: 'European Central Bank euro foreign exchange reference rates',
      rates: { EUR: 1, GBP: 0.8 },
      summary: 'Amounts in GBP.',
    };
    const read = { byCurrency: new Map([['GBP', rule]]) };
    expect(subscriptionSummary(bounded, read)).toBe(
      'New tenders for “gritting”, worth £1,000,000 or more; amounts in other currencies converted at the ECB rates of 2031-01-02',
    );
    expect(subscriptionSummary(unbounded, read)).toBe('New tenders for “gritting”');
    // Bounds in a currency whose rule was not read: none is said for them.
    expect(subscriptionSummary(feed({ valueMax: 5, currency: 'EUR' }, 'up to €5'), read)).toBe(
      'New tenders up to €5',
    );
    const failed = { byCurrency: new Map(), unread: new Set(['GBP']), failure: new Error('service down') };
    expect(subscriptionSummary(bounded, failed)).toBe(
      'New tenders for “gritting”, worth £1,000,000 or more; how amounts in other currencies are converted could not be read from the service just now',
    );
    expect(subscriptionSummary(unbounded, failed)).toBe('New tenders for “gritting”');
    // Only the currency whose rule could not be read is said to be unread.
    const euroUnread = { ...read, unread: new Set(['EUR']), failure: new Error('refused') };
    expect(subscriptionSummary(bounded, euroUnread)).toBe(
      'New tenders for “gritting”, worth £1,000,000 or more; amounts in other currencies converted at the ECB rates of 2031-01-02',
    );
    // A rates source of any length (the contract sets none) is cut, and escaped.
    const long = { ...rule, ratesSource: `Bank <of> ${'very '.repeat(40)}long names` };
    const said = subscriptionSummary(bounded, { byCurrency: new Map([['GBP', long]]) });
    const source = said.slice(
      said.indexOf('converted at the ') + 'converted at the '.length,
      said.indexOf(' rates of'),
    );
    expect(source.startsWith('Bank &lt;of&gt; very very')).toBe(true);
    expect(source.endsWith('…')).toBe(true);
    expect(source.length).toBeLessThanOrEqual(70);
    expect(said.endsWith(' rates of 2031-01-02')).toBe(true);
    // Without rules (a caller that read none), as before.
    expect(subscriptionSummary(bounded)).toBe('New tenders for “gritting”, worth £1,000,000 or more');
  });

  it('names a feed without words by what it follows: “for” only before the words searched', () => {
    const feed = (f: TenderSearchFilters, buyer?: string) =>
      subscriptionSummary({
        ...base,
        kind: 'search',
        target: JSON.stringify({ f, d: describeSearch(f, buyer) }),
      });
    expect(feed({ region: 'South West' })).toBe('New tenders in South West');
    expect(feed({ status: 'open' })).toBe('New open tenders');
    expect(feed({ status: 'open', cpv: '72' })).toBe('New open tenders with a CPV code starting 72');
    expect(feed({ region: 'South West', status: 'open' })).toBe('New tenders in South West, open');
    expect(feed({ cpv: '72' })).toBe('New tenders with a CPV code starting 72');
    expect(feed({ valueMin: 100_000 })).toBe('New tenders worth £100,000 or more');
    expect(feed({ buyerId: 'b-1' }, 'Leeds & Co')).toBe('New tenders from Leeds &amp; Co');
    expect(feed({})).toBe('All new tenders');
    expect(feed({ q: 'cleaning', status: 'open' })).toBe('New tenders for “cleaning”, open');
    // A saved search is named, whatever it filters by.
    const saved = subscriptionSummary({
      ...base,
      kind: 'search',
      target: JSON.stringify({
        f: { region: 'Wales', status: 'open' },
        d: 'the saved search “Welsh”',
        ss: 'ss-1',
      }),
    });
    expect(saved).toBe('New tenders for the saved search “Welsh”');
    for (const status of Object.keys(STATUS_WORDS) as NonNullable<TenderSearchFilters['status']>[])
      expect(feed({ status, deadlineTo: '2031-01-02' })).toMatch(
        new RegExp(`^New ${status} tenders closing by `),
      );
  });
});
