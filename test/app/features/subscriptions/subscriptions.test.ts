import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS } from '../../../support/fixture.ts';
import { Harness, type Instance } from '../../delivery/harness.ts';

/** What a person reads of a message: its fallback text and its blocks. */
const said = (message: { text?: string; blocks?: unknown }) =>
  `${message.text ?? ''} ${JSON.stringify(message.blocks ?? [])}`;

const harness = new Harness(
  '2027-05-03T08:00:00Z',
  mkdtempSync(join(tmpdir(), 'tenderbot-subscribe-input-')),
);
let a: Instance;

beforeAll(async () => {
  await harness.start();
  a = await harness.instance('A');
});
afterAll(async () => {
  await a?.stop();
  await harness.stop();
});

const channelSubscriptions = (channel: string) => a.store.channelSubscriptions(harness.slack.teamId, channel);

/** A subscribe command that was taken: its confirmation is posted in the channel, for everyone. */
async function subscribed(user: string, channel: string, text: string) {
  const answer = await harness.command(user, channel, text);
  expect(answer.ephemeralTo, text).toBeNull();
  return answer;
}

describe('/tender subscribe with a time it cannot read', () => {
  it('says so, and suggests the 24-hour form, instead of searching for the time as a word', async () => {
    for (const [text, suggestion] of [
      ['search cleaning daily 25:00', 'for example `09:00`'],
      ['search cleaning 9am', '`09:00`'],
      ['search cleaning daily 5:30pm', '`17:30`'],
      ['pipeline pl-bob weekly 25:00', 'for example `09:00`'],
      ['search cleaning 9.30', '`09:30`'],
      ['search cleaning daily 9h30', '`09:30`'],
    ] as const) {
      const answer = await harness.command('U0ADMIN', 'C0BIDS', `subscribe ${text}`);
      expect(answer.ephemeralTo, text).toBe('U0ADMIN');
      expect(said(answer), text).toContain('is not a time Tenderbot can read');
      expect(said(answer), text).toContain(suggestion);
    }
    expect(await channelSubscriptions('C0BIDS')).toEqual([]);
  });

  it('follows a mistake with the usage of the kind typed only, not all three', async () => {
    for (const [text, kind, others] of [
      [
        'subscribe search cleaning daily 25:00',
        'New tenders: `/tender subscribe search',
        ['A bid’s progress:', 'deadlines [days]'],
      ],
      [
        'subscribe pipeline pl-bob weekly 25:00',
        'A bid’s progress: `/tender subscribe pipeline',
        ['New tenders:', 'deadlines [days]'],
      ],
      ['subscribe search', 'Which search? New tenders: `/tender subscribe search', ['A bid’s progress:']],
      [
        'subscribe pipeline BID-1 BID-2',
        'Give one bid, by its reference (like `BID-7`). A bid’s progress:',
        ['New tenders:'],
      ],
      [
        'subscribe deadlines hourly',
        'Bookmarked tenders and bids coming due: `/tender subscribe deadlines',
        ['New tenders:'],
      ],
    ] as const) {
      const answer = await harness.command('U0ADMIN', 'C0USAGE', text);
      expect(answer.ephemeralTo, text).toBe('U0ADMIN');
      expect(said(answer), text).toContain(kind);
      for (const other of others) expect(said(answer), text).not.toContain(other);
    }
    expect(await channelSubscriptions('C0USAGE')).toEqual([]);
  });

  it('refuses words past what a search takes, rather than follow fewer than were typed', async () => {
    const many = Array.from({ length: 40 }, (_, index) => `cleaning${index}`).join(' ');
    const answer = await harness.command('U0ADMIN', 'C0BURST', `subscribe search ${many} daily`);
    expect(answer.ephemeralTo).toBe('U0ADMIN');
    expect(said(answer)).toContain('more than a search takes (200 characters at most)');
    expect(await channelSubscriptions('C0BURST')).toEqual([]);
  });

  it('takes a lot number such as 2.1 as a search word, not as a time', async () => {
    await subscribed('U0ADMIN', 'C0FEED', 'subscribe search framework lot 2.1 daily');
    const [made] = await channelSubscriptions('C0FEED');
    expect(JSON.parse(made?.target ?? '{}').f.q).toBe('framework lot 2.1');
  });
});

describe('/tender subscribe twice to the same thing', () => {
  it('refuses the second, naming the first, so the channel never gets every post twice', async () => {
    await subscribed('U0ADMIN', 'C0GENERAL', 'subscribe search cleaning region:London daily 08:00');
    const [made] = await channelSubscriptions('C0GENERAL');
    expect(made).toBeDefined();
    // The same words and filters in another order are the same feed.
    const again = await harness.command(
      'U0ADMIN',
      'C0GENERAL',
      'subscribe search region:London cleaning daily 08:00',
    );
    expect(again.ephemeralTo).toBe('U0ADMIN');
    expect(said(again)).toContain('already has that subscription');
    expect(said(again)).toContain(made?.id as string);
    expect(await channelSubscriptions('C0GENERAL')).toHaveLength(1);
    // Another time of day is another subscription.
    await subscribed('U0ADMIN', 'C0GENERAL', 'subscribe search cleaning region:London daily 17:00');
    expect(await channelSubscriptions('C0GENERAL')).toHaveLength(2);
    // An hourly feed posts every hour whatever its time: another time is the same feed.
    await subscribed('U0ADMIN', 'C0TOKYO', 'subscribe search cleaning hourly');
    const hourly = await harness.command('U0ADMIN', 'C0TOKYO', 'subscribe search cleaning hourly 10:00');
    expect(said(hourly)).toContain('already has that subscription');
  });

  it('lets a person with their own key follow what another follows with the workspace’s', async () => {
    // Hourly: the same posts whatever each subscriber's zone.
    await subscribed('U0ADMIN', 'C0HOLD', 'subscribe search cleaning hourly');
    // The same feed, read with the workspace's key too, is the same posts.
    expect(said(await harness.command('U0TOKYO', 'C0HOLD', 'subscribe search cleaning hourly'))).toContain(
      'already has that subscription',
    );
    // Read with Max's own key, it is another feed.
    await harness.linkPersonalKey(a.store, 'U0MEMBER', KEYS.aliceAcme);
    const own = await subscribed('U0MEMBER', 'C0HOLD', 'subscribe search cleaning hourly');
    expect(said(own)).toContain('own key');
    expect(await channelSubscriptions('C0HOLD')).toHaveLength(2);
  });
});

describe('a feed of tenders closing within some days', () => {
  it('counts the days from each post, not from the day it was subscribed', async () => {
    const answer = await subscribed('U0ADMIN', 'C0FEED', 'subscribe search harbour closes<14d daily 09:00');
    expect(said(answer)).toContain('closing within 14 days');
    const made = (await channelSubscriptions('C0FEED')).find((each) => each.target.includes('harbour'));
    expect(made).toBeDefined();
    // Three weeks on, a tender published today closing in five days: within 14 days of this post.
    await harness.runUntil(Date.parse('2027-05-24T07:00:00Z'), () => [a], 60 * 60_000);
    await harness.importTenders(
      ['Harbour dredging'],
      new Date('2027-05-24T07:30:00Z'),
      new Date('2027-05-29T12:00:00Z'),
    );
    await harness.runUntil(Date.parse('2027-05-24T09:30:00Z'), () => [a], 15 * 60_000);
    const posts = harness.postsOf('C0FEED', made?.id as string);
    expect(posts.map((post) => JSON.stringify(post.blocks)).join()).toContain('Harbour dredging');
  });
});

describe('usage sentences', () => {
  it('show their <id> placeholders: Slack would read <id> as a link and show “id”', async () => {
    const usage = await harness.command('U0ADMIN', 'C0BIDS', 'subscribe');
    expect(said(usage)).toContain('pipeline &lt;bid&gt;');
    expect(said(usage)).not.toMatch(/<id>|<saved search/);
    const comments = await harness.command('U0ADMIN', 'C0BIDS', 'comments');
    expect(said(comments)).toContain('`buyer:&lt;id&gt;`');
    expect(said(comments)).not.toContain('&amp;lt;');
    // Its commands as code, not as look-alike backticks.
    expect(said(comments)).toContain('`/tender comments ocds-b5fd17-…`');
    expect(said(comments)).not.toContain('\u02CB');
  });
});

describe('/tender subscribe with a region or words the service would refuse or never match', () => {
  const refused = async (text: string) => {
    const before = (await channelSubscriptions('C0ODD')).length;
    const answer = await harness.command('U0ADMIN', 'C0ODD', `subscribe search ${text}`);
    // Said to the person alone, nothing subscribed, and never the service's validator wording.
    expect(answer.ephemeralTo, text.slice(0, 80)).toBe('U0ADMIN');
    expect((await channelSubscriptions('C0ODD')).length).toBe(before);
    expect(said(answer)).not.toMatch(/Too big|Too small|expected string|refused the request/);
    return said(answer);
  };

  it('refuses a region the data does not name, with those it does, instead of a feed that never posts', async () => {
    const answer = await refused('cleaning region:Atlantis daily');
    expect(answer).toContain('Tenderbot knows no region called “Atlantis”');
    expect(answer).toContain('`region:"South West"`');
    expect(await refused('cleaning region:"south wst" daily')).toContain(
      'knows no region called “south wst”',
    );
  });

  it('follows a region as the data spells it, whatever its case', async () => {
    const answer = await subscribed('U0ADMIN', 'C0BIDS', 'subscribe search region:"south west" cpv:90 daily');
    expect(said(answer)).toContain('New tenders in South West, with a CPV code starting 90');
    const feed = (await channelSubscriptions('C0BIDS')).find((each) => each.target.includes('"cpv":"90"'));
    expect(JSON.parse(feed?.target ?? '{}').f).toMatchObject({ region: 'South West', cpv: '90' });
  });

  it('says an empty or too long region, or a filter given nothing, in a sentence', async () => {
    expect(await refused('region:"" daily')).toContain('`region:` needs a region in it');
    expect(await refused('cleaning region: daily')).toContain('`region:` needs a value right after it');
    expect(await refused(`region:${'Q'.repeat(5000)} daily`)).toContain('A region is at most 200 characters');
  });

  it('reads one very long word as words, not as a saved search’s id the service refuses', async () => {
    const answer = await harness.command('U0ADMIN', 'C0LONG', `subscribe search ${'W'.repeat(10_000)}`);
    expect(said(answer)).not.toMatch(/Too big|expected string|refused the request|\bid\b/);
  });
});
