import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VALUE_RULE_FAILURE_TTL_MS } from '../../../../src/app/shared/value-rules.ts';
import { REFERENCE_RATES_DATE } from '../../../../src/service/money/reference-rates.ts';
import { eventually } from '../../../support/bot.ts';
import {
  type SearchHoldingProxy,
  type SeenSearch,
  startSearchHoldingProxy,
} from '../../../support/service-proxy.ts';
import { Harness, type Instance } from '../../delivery/harness.ts';
import { entryOf, linesOf, saveBetaSearchesWithBounds } from './saved-searches-with-bounds.ts';

// `/tender saved` and the Home tab while the service's tender search hangs (everything else
// answers), through the real app, the fake Slack and a loopback proxy in front of the local
// service: the value rule is read beside the saved searches' list, briefly and once, and kept.

const RULE = `amounts in other currencies converted at the ECB rates of ${REFERENCE_RATES_DATE}`;
const UNREAD = 'how amounts in other currencies are converted could not be read from the service just now';

const harness = new Harness('2027-05-03T08:00:00Z', mkdtempSync(join(tmpdir(), 'tenderbot-saved-slow-')));
let a: Instance;
let proxy: SearchHoldingProxy;
let searches: SeenSearch[] = [];
/** For each list of saved searches, whether it was answered after the pounds rule had been asked for. */
const listAnsweredAfterSearch: boolean[] = [];

beforeAll(async () => {
  await harness.start();
  const service = harness.sandbox.baseUrl;
  proxy = await startSearchHoldingProxy(service, async (url) => {
    if (url.startsWith('/v1/saved-searches?')) {
      // The list is held until a rule is asked for (at most a second): one read beside it is seen.
      const asked = () => searches.some(({ query }) => query.get('currency') === 'GBP');
      await eventually(() => asked() || null, 'a search for the pounds rule', 1000).catch(() => null);
      listAnsweredAfterSearch.push(asked());
    }
  });
  searches = proxy.searches;
  // The app is configured from the sandbox's address: it is pointed at the proxy.
  (harness.sandbox as { baseUrl: string }).baseUrl = proxy.url;
  a = await harness.instance('A');
  await saveBetaSearchesWithBounds(harness, a);
}, 60_000);

afterAll(async () => {
  await a?.stop();
  await proxy?.stop();
  await harness.stop();
});

/** Max's answer to `/tender saved` once it is more than the "still trying" notice. */
async function savedList(): Promise<string[]> {
  await harness.command('U0MEMBER', 'C0BIDS', 'saved');
  return eventually(() => {
    const last = harness.slack.messagesIn('C0BIDS', 'U0MEMBER').at(-1);
    const lines = linesOf(last);
    return lines.some((line) => line.includes('Beta: big gritting')) ? lines : null;
  }, 'Max’s saved searches');
}

/** Max's Home tab once it is published again with its saved searches. */
async function home(): Promise<string[]> {
  const before = harness.slack.homeOf('U0MEMBER')?.view;
  await harness.slack.openHome('U0MEMBER');
  return eventually(() => {
    const view = harness.slack.homeOf('U0MEMBER')?.view;
    const lines = linesOf(view);
    return view !== before && lines.some((line) => line.includes('Beta: big gritting')) ? lines : null;
  }, 'Max’s Home tab with its saved searches');
}

describe('saved searches with value bounds while the service’s search hangs', () => {
  it('are listed by /tender saved after one brief search a currency, read beside the list, saying the rule could not be read', async () => {
    proxy.hold = true;
    searches.length = 0;
    listAnsweredAfterSearch.length = 0;
    const list = await savedList();
    expect(entryOf(list, 'Beta: big gritting')).toContain(
      `Tenders matching “gritting”, worth £1,000,000 or more; ${UNREAD}`,
    );
    expect(entryOf(list, 'Beta: small euro works')).toContain(`Tenders up to €50,000; ${UNREAD}`);
    expect(entryOf(list, 'Beta: software')).not.toContain('could not be read');
    // Pounds' rule asked while the list was being read, not after its answer.
    expect(listAnsweredAfterSearch).toEqual([true]);
    expect(searches.map(({ query }) => query.get('currency')).sort()).toEqual(['EUR', 'GBP']);
    for (const { query, abandoned } of searches) {
      expect([...query.keys()].sort()).toEqual(['currency', 'limit', 'valueMin']);
      expect(abandoned).toBe(true);
    }
  });

  it('are listed on the Home tab as unread a little while without asking again, then with the rule, which is kept', async () => {
    searches.length = 0;
    expect(entryOf(await home(), 'Beta: big gritting')).toContain(UNREAD);
    expect(searches).toEqual([]);
    proxy.hold = false;
    harness.now += VALUE_RULE_FAILURE_TTL_MS + 1000;
    const answered = await home();
    expect(entryOf(answered, 'Beta: big gritting')).toContain(`worth £1,000,000 or more; ${RULE}`);
    expect(entryOf(answered, 'Beta: small euro works')).toContain(`Tenders up to €50,000; ${RULE}`);
    expect(searches).toHaveLength(2);
    // Kept: with the search hanging again, neither list asks, and both say the rule.
    proxy.hold = true;
    searches.length = 0;
    expect(entryOf(await home(), 'Beta: big gritting')).toContain(`worth £1,000,000 or more; ${RULE}`);
    expect(entryOf(await savedList(), 'Beta: small euro works')).toContain(`Tenders up to €50,000; ${RULE}`);
    expect(searches).toEqual([]);
  });
});
