import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubscriptionIds } from '../../../../src/app/shared/ids.ts';
import { importOcdsFiles } from '../../../../src/service/import/ocds-importer.ts';
import { EURO_REFERENCE_RATES, REFERENCE_RATES_DATE } from '../../../../src/service/money/reference-rates.ts';
import { eventually } from '../../../support/bot.ts';
import { Harness, type Instance } from '../../delivery/harness.ts';

// A channel's feed of new tenders with a value bound, through the real app, the fake Slack and the
// local service: the post lists a tender only when its amount, converted by the rule the service
// states, passes; its heading says that rule; its cards say each tender's own currency.

const said = (message: { text?: string; blocks?: unknown }) =>
  `${message.text ?? ''} ${JSON.stringify(message.blocks ?? [])}`;

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-feed-money-'));
const harness = new Harness('2027-05-03T08:00:00Z', dir);
let a: Instance;

/** Gritting in four currencies, one of them without a reference rate (never under a bound). */
const GRITTING: [string, number, string][] = [
  ['cad-1048640', 1_048_640, 'CAD'],
  ['cad-2000000', 2_000_000, 'CAD'],
  ['eur-1300000', 1_300_000, 'EUR'],
  ['eur-90000', 90_000, 'EUR'],
  ['gbp-1000000', 1_000_000, 'GBP'],
  ['gbp-999999', 999_999, 'GBP'],
  ['jpy-500000000', 500_000_000, 'JPY'],
];
const titleOf = (suffix: string) => `Road gritting, depot ${suffix}`;

/** The titles whose amount passes `over AMOUNT` in `currency` by the stated rule (none without a rate). */
function passing(amount: number, currency: keyof typeof EURO_REFERENCE_RATES): string[] {
  const rates = EURO_REFERENCE_RATES as Record<string, number>;
  return GRITTING.filter(([, value, own]) => {
    const rate = rates[own];
    return rate !== undefined && (value / rate) * EURO_REFERENCE_RATES[currency] >= amount;
  })
    .map(([suffix]) => titleOf(suffix))
    .sort();
}

/** Imports the gritting tenders as published at `publishedAt`, with their values. */
async function importGritting(publishedAt: Date): Promise<void> {
  const file = join(dir, 'gritting.jsonl');
  writeFileSync(
    file,
    GRITTING.map(([suffix, amount, currency]) =>
      JSON.stringify({
        ocid: `ocds-feed-${suffix}`,
        id: `r-${suffix}`,
        date: publishedAt.toISOString(),
        tag: ['tender'],
        initiationType: 'tender',
        buyer: { id: 'b', name: 'Salford City Council' },
        parties: [{ id: 'b', name: 'Salford City Council', roles: ['buyer'] }],
        tender: { id: `T-${suffix}`, title: titleOf(suffix), status: 'active', value: { amount, currency } },
      }),
    ).join('\n'),
  );
  await importOcdsFiles(harness.sandbox.db, [file]);
}

/** Clicks Send now on the channel's subscriptions, runs the scheduler: the subscription's one post. */
async function postNow(channel: string) {
  const [subscription] = await a.store.channelSubscriptions(harness.slack.teamId, channel);
  const list = await harness.command('U0ADMIN', channel, 'subscriptions');
  const before = harness.slack.messagesIn(channel, 'U0ADMIN').length;
  const sent = await harness.slack.clickInMessage('U0ADMIN', list, SubscriptionIds.sendNow);
  await eventually(() => harness.slack.answerTo(sent, channel, 'U0ADMIN', before), 'Send now’s answer');
  await harness.pass(a);
  const posts = harness.postsOf(channel, subscription?.id as string);
  expect(posts).toHaveLength(1);
  return said(posts[0] as { text?: string; blocks?: unknown });
}

/** The gritting titles a post lists. */
const listed = (post: string) =>
  GRITTING.map(([suffix]) => titleOf(suffix))
    .filter((title) => post.includes(title))
    .sort();

beforeAll(async () => {
  await harness.start();
  a = await harness.instance('A');
  for (const [channel, text] of [
    ['C0FEED', 'subscribe search gritting value>1m daily'],
    ['C0AWAY', 'subscribe search gritting value>1m cad daily'],
    ['C0HOLD', 'subscribe search gritting daily'],
  ] as const) {
    const made = await harness.command('U0ADMIN', channel, text);
    expect(made.ephemeralTo, said(made)).toBeNull();
  }
  harness.now += 60_000;
  await importGritting(new Date(harness.now - 1000));
  harness.now += 1000;
}, 120_000);

afterAll(async () => {
  await a?.stop();
  await harness.stop();
});

describe('a feed of new tenders with a value bound', () => {
  it('in pounds lists only what passes converted at the stated rates, and its heading says the rule', async () => {
    const post = await postNow('C0FEED');
    expect(post).toContain(
      `${passing(1_000_000, 'GBP').length} new tenders for “gritting”, worth £1,000,000 or more since Mon 3 May, 09:00; amounts in other currencies converted at the ECB rates of ${REFERENCE_RATES_DATE}`,
    );
    expect(listed(post)).toEqual(passing(1_000_000, 'GBP'));
    // The Canadian contract of about £581,700 is not "over £1,000,000"; nor is one without a rate.
    expect(listed(post)).not.toContain(titleOf('cad-1048640'));
    expect(listed(post)).not.toContain(titleOf('jpy-500000000'));
    // Each card says its own currency.
    expect(post).toContain('CA$2,000,000');
    expect(post).toContain('€1,300,000');
    expect(post).toContain('£1,000,000');
  });

  it('in Canadian dollars compares in them, and says so', async () => {
    const post = await postNow('C0AWAY');
    expect(post).toContain('worth CA$1,000,000 or more since');
    expect(post).toContain(
      `amounts in other currencies converted at the ECB rates of ${REFERENCE_RATES_DATE}`,
    );
    expect(listed(post)).toEqual(passing(1_000_000, 'CAD'));
    expect(listed(post)).toContain(titleOf('cad-1048640'));
  });

  it('without a bound lists every currency and names no rule', async () => {
    const post = await postNow('C0HOLD');
    expect(post).not.toContain('converted at');
    expect(post).toContain(`${GRITTING.length} new tenders`);
  });
});
