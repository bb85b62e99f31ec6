import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VALUE_RULE_FAILURE_TTL_MS, VALUE_RULE_TTL_MS } from '../../../../src/app/shared/value-rules.ts';
import { REFERENCE_RATES_DATE } from '../../../../src/service/money/reference-rates.ts';
import { eventually } from '../../../support/bot.ts';
import { KEYS } from '../../../support/fixture.ts';
import {
  type SearchHoldingProxy,
  type SeenSearch,
  startSearchHoldingProxy,
} from '../../../support/service-proxy.ts';
import { Harness, type Instance } from '../../delivery/harness.ts';

// `/tender subscriptions`, `/tender unsubscribe` and `/tender subscribe` while the service's tender
// search hangs (everything else answers), through the real app, the fake Slack and a loopback proxy
// in front of the local service: the value rule is read once, briefly, through the key the feed
// posts with, and kept; a hung search never holds a list up for the client's retries.

const said = (message: { text?: string; blocks?: unknown }) =>
  `${message.text ?? ''} ${JSON.stringify(message.blocks ?? [])}`;
const RULE = `amounts in other currencies converted at the ECB rates of ${REFERENCE_RATES_DATE}`;
const UNREAD = 'how amounts in other currencies are converted could not be read from the service just now';

const harness = new Harness('2027-05-03T08:00:00Z', mkdtempSync(join(tmpdir(), 'tenderbot-list-slow-')));
let a: Instance;
let proxy: SearchHoldingProxy;
let searches: SeenSearch[] = [];

/** The person's answer to `/tender TEXT` once it is more than the "still trying" notice. */
async function answer(user: string, channel: string, text: string): Promise<string> {
  await harness.command(user, channel, text);
  return eventually(() => {
    const last = harness.slack.messagesIn(channel, user).at(-1);
    return last && !said(last).includes('still trying') ? said(last) : null;
  }, `the answer to /tender ${text}`);
}

beforeAll(async () => {
  await harness.start();
  const service = harness.sandbox.baseUrl;
  proxy = await startSearchHoldingProxy(service);
  searches = proxy.searches;
  // The app is configured from the sandbox's address: it is pointed at the proxy.
  (harness.sandbox as { baseUrl: string }).baseUrl = proxy.url;
  a = await harness.instance('A');
  // Max lists with his own key (Dave's); the feeds are Ada's, posted with the workspace's (Carol's).
  await harness.linkPersonalKey(a.store, 'U0MEMBER', KEYS.daveBeta);
  for (const text of [
    'subscribe search gritting value>1m daily',
    'subscribe search works value<50k eur daily',
  ])
    expect(await answer('U0ADMIN', 'C0FEED', text)).toContain('subscribed this channel');
  // The rules the subscriptions read are kept no longer: the list must read them again.
  harness.now += VALUE_RULE_TTL_MS + 1000;
}, 60_000);

afterAll(async () => {
  await a?.stop();
  await proxy?.stop();
  await harness.stop();
});

describe('the subscriptions of a channel while the service’s search hangs', () => {
  it('are listed after one brief search a currency, by bounds alone, with the key the feeds post with, saying the rule could not be read', async () => {
    proxy.hold = true;
    searches.length = 0;
    const list = await answer('U0MEMBER', 'C0FEED', 'subscriptions');
    expect(list).toContain(`*New tenders for “gritting”, worth £1,000,000 or more; ${UNREAD}*`);
    expect(list).toContain(`*New tenders for “works”, up to €50,000; ${UNREAD}*`);
    // One attempt a currency, given up on by the app (no retries), asking the rule and nothing else.
    expect(searches.map(({ query }) => query.get('currency')).sort()).toEqual(['EUR', 'GBP']);
    for (const { query, authorization, abandoned } of searches) {
      expect([...query.keys()].sort()).toEqual(['currency', 'limit', 'valueMin']);
      expect(query.get('limit')).toBe('1');
      // The feeds' key (the workspace's), not the viewer's own.
      expect(authorization).toBe(`Bearer ${KEYS.carolMemberAcme}`);
      expect(abandoned).toBe(true);
    }
  });

  it('say goodbye to a feed without asking the service, and refuse a duplicate before asking it', async () => {
    searches.length = 0;
    const [euro] = (await a.store.channelSubscriptions(harness.slack.teamId, 'C0FEED')).filter((feed) =>
      feed.target.includes('EUR'),
    );
    const goodbye = await answer('U0ADMIN', 'C0FEED', `unsubscribe ${euro?.id}`);
    expect(goodbye).toContain('from new tenders for “works”, up to €50,000. Nothing more');
    const duplicate = await answer('U0ADMIN', 'C0FEED', 'subscribe search gritting value>1m daily');
    expect(duplicate).toContain('<#C0FEED> already has that subscription');
    expect(searches).toEqual([]);
  });

  it('refuse a new feed with bounds after one brief check, saying the service did not answer in time', async () => {
    searches.length = 0;
    const refused = await answer('U0ADMIN', 'C0FEED', 'subscribe search salting value>2m daily');
    expect(refused).toContain('did not answer in time');
    expect(searches).toHaveLength(1);
    expect(searches[0]?.query.get('q')).toBe('salting');
    expect(searches[0]?.abandoned).toBe(true);
    const feeds = await a.store.channelSubscriptions(harness.slack.teamId, 'C0FEED');
    expect(feeds.map((feed) => feed.target).join()).not.toContain('salting');
  });

  it('are listed with the rule once the service answers again, and it is kept: a hung search then costs nothing', async () => {
    proxy.hold = false;
    // A rule that could not be read is said so a little while, then asked for again.
    harness.now += VALUE_RULE_FAILURE_TTL_MS + 1000;
    searches.length = 0;
    expect(await answer('U0MEMBER', 'C0FEED', 'subscriptions')).toContain(
      `*New tenders for “gritting”, worth £1,000,000 or more; ${RULE}*`,
    );
    expect(searches).toHaveLength(1);
    proxy.hold = true;
    searches.length = 0;
    expect(await answer('U0MEMBER', 'C0FEED', 'subscriptions')).toContain(
      `*New tenders for “gritting”, worth £1,000,000 or more; ${RULE}*`,
    );
    expect(searches).toEqual([]);
    // Kept for a while only: then read again (and, the search hanging, said to be unread).
    harness.now += VALUE_RULE_TTL_MS + 1000;
    expect(await answer('U0MEMBER', 'C0FEED', 'subscriptions')).toContain(
      `*New tenders for “gritting”, worth £1,000,000 or more; ${UNREAD}*`,
    );
    expect(searches).toHaveLength(1);
  });
});
