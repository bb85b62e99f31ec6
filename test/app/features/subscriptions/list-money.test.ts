import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubscriptionIds } from '../../../../src/app/shared/ids.ts';
import type { Subscription } from '../../../../src/app/storage/bot-store.ts';
import { REFERENCE_RATES_DATE } from '../../../../src/service/money/reference-rates.ts';
import { eventually } from '../../../support/bot.ts';
import { Harness, type Instance } from '../../delivery/harness.ts';

// The subscribe confirmation and `/tender subscriptions`, through the real app, the fake Slack and
// the local service: a feed with value bounds is said with the rule its posts will apply (the
// service's rates and their date, as the posts' heading says them); one without bounds names none.

const said = (message: { text?: string; blocks?: unknown }) =>
  `${message.text ?? ''} ${JSON.stringify(message.blocks ?? [])}`;

/** The rule sentence as the service's rates make it (the app holds no date of its own). */
const RULE = `amounts in other currencies converted at the ECB rates of ${REFERENCE_RATES_DATE}`;

const harness = new Harness('2027-05-03T08:00:00Z', mkdtempSync(join(tmpdir(), 'tenderbot-list-money-')));
let a: Instance;
const confirmations = new Map<string, string>();

beforeAll(async () => {
  await harness.start();
  a = await harness.instance('A');
  for (const [channel, text] of [
    ['C0FEED', 'subscribe search gritting value>1m daily'],
    ['C0HOLD', 'subscribe search gritting daily'],
    ['C0BIDS', 'subscribe search gritting value<500k cad daily'],
    ['C0BIDS', 'subscribe search salting daily'],
  ] as const) {
    const made = await harness.command('U0ADMIN', channel, text);
    // Posted in the channel (not an answer to the subscriber alone): the confirmation.
    expect(made.ephemeralTo, said(made)).toBeNull();
    confirmations.set(text, said(made));
  }
}, 120_000);

afterAll(async () => {
  await a?.stop();
  await harness.stop();
});

describe('a feed with value bounds, in the confirmation and the list', () => {
  it('is confirmed with the rule its posts will apply, the date the service’s', () => {
    expect(confirmations.get('subscribe search gritting value>1m daily')).toContain(
      `subscribed this channel: *New tenders for “gritting”, worth £1,000,000 or more; ${RULE}*`,
    );
    expect(confirmations.get('subscribe search gritting value<500k cad daily')).toContain(
      `*New tenders for “gritting”, up to CA$500,000; ${RULE}*`,
    );
  });

  it('is confirmed without a rule when it has no bounds', () => {
    const confirmation = confirmations.get('subscribe search gritting daily');
    expect(confirmation).toContain('*New tenders for “gritting”*');
    expect(confirmation).not.toContain('converted at');
  });

  it('is listed with the rule, and a feed without bounds without one', async () => {
    const bounded = said(await harness.command('U0ADMIN', 'C0FEED', 'subscriptions'));
    expect(bounded).toContain(`*New tenders for “gritting”, worth £1,000,000 or more; ${RULE}*`);
    const unbounded = said(await harness.command('U0ADMIN', 'C0HOLD', 'subscriptions'));
    expect(unbounded).toContain('*New tenders for “gritting”*');
    expect(unbounded).not.toContain('converted at');
    // In one list, only the feed with bounds says the rule.
    const both = (await harness.command('U0ADMIN', 'C0BIDS', 'subscriptions')).blocks as {
      text?: { text: string };
    }[];
    const lines = both.flatMap((block) =>
      block.text?.text.startsWith('*New tenders') ? [block.text.text] : [],
    );
    expect(lines).toHaveLength(2);
    expect(lines.find((line) => line.includes('gritting'))).toContain(
      `*New tenders for “gritting”, up to CA$500,000; ${RULE}*`,
    );
    expect(lines.find((line) => line.includes('salting'))).toMatch(/^\*New tenders for “salting”\*\n/);
  });

  it('is unsubscribed from the list with the rule said, the list left drawn without it', async () => {
    const list = await harness.command('U0ADMIN', 'C0BIDS', 'subscriptions');
    const feeds = await a.store.channelSubscriptions(harness.slack.teamId, 'C0BIDS');
    const bounded = feeds.find((feed) => feed.target.includes('valueMax'));
    const block = list.blocks.find(
      (each: { block_id?: string }) => each.block_id === `subscription:${bounded?.id}`,
    );
    expect(block).toBeTruthy();
    // The click is on that subscription's own button.
    list.blocks = [block];
    await harness.slack.clickInMessage('U0ADMIN', list, SubscriptionIds.unsubscribe);
    await eventually(() => JSON.stringify(list.blocks).includes('Unsubscribed'), 'the list redrawn');
    const redrawn = said(list);
    expect(redrawn).toContain(`from new tenders for “gritting”, up to CA$500,000; ${RULE}. Nothing more`);
    const left = (list.blocks as { text?: { text: string } }[]).flatMap((each) =>
      each.text?.text.startsWith('*New tenders') ? [each.text.text] : [],
    );
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^\*New tenders for “salting”\*\n/);
    expect(left[0]).not.toContain('converted at');
  });

  it('lists a feed stored before the rule was said (an older description, no currency) with the rule', async () => {
    const old: Subscription = {
      id: 's-oldfd2',
      teamId: harness.slack.teamId,
      channelId: 'C0GENERAL',
      kind: 'search',
      // As a version before currencies stored it: the description as then written, pounds implied.
      target: JSON.stringify({ f: { q: 'gritting', valueMin: 250000 }, d: '“gritting”, over £250000' }),
      cadence: 'daily',
      localTime: '09:00',
      timeZone: 'Europe/London',
      createdBy: 'U0ADMIN',
      createdAt: new Date(harness.now),
      pausedReason: null,
      nextRunAt: new Date(harness.now + 86_400_000),
      cursor: null,
      skippedCount: 0,
    };
    expect(await a.store.createSubscription(old)).toBe(true);
    const list = said(await harness.command('U0ADMIN', 'C0GENERAL', 'subscriptions'));
    expect(list).toContain(`*New tenders for “gritting”, over £250000; ${RULE}*`);
  });
});
