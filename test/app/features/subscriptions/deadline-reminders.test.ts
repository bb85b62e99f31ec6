import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDelivery } from '../../../../src/app/features/subscriptions/content.ts';
import type { Subscription } from '../../../../src/app/storage/subscription-store.ts';
import { KEYS, TENDER_B } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';

let harness: HandlerHarness;
let closesAt: string;
let bidName: string;
beforeAll(async () => {
  harness = await startHandlerHarness();
  const tender = await harness.sandbox.call('GET', `/v1/tenders/${TENDER_B}`, { key: KEYS.carolMemberAcme });
  closesAt = tender.body.data.deadline;
  expect(closesAt).toBeTruthy();
  // A bid whose own target date is well after its tender closes: the closing is its real deadline.
  bidName = `Closing-first bid ${randomUUID().slice(0, 6)}`;
  const target = new Date(Date.parse(closesAt) + 40 * 86_400_000).toISOString().slice(0, 10);
  const made = await harness.sandbox.call('POST', '/v1/pipelines', {
    key: KEYS.carolMemberAcme,
    body: { name: bidName, idempotencyKey: randomUUID(), tenderId: TENDER_B, targetSubmissionDate: target },
  });
  expect(made.status, made.text).toBe(201);
}, 60_000);
afterAll(async () => harness?.close());

/** A deadline reminder over `days` built at `now`, without the items in `exclude`: its text and blocks. */
async function reminder(now: Date, exclude: string[] = []) {
  const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
  const subscription: Subscription = {
    id: 's-remind',
    teamId: harness.slack.teamId,
    channelId: 'C0BIDS',
    kind: 'deadlines',
    target: JSON.stringify({ days: 14 }),
    cadence: 'daily',
    localTime: '09:00',
    timeZone: 'Europe/London',
    createdBy: 'U0ADMIN',
    createdAt: now,
    pausedReason: null,
    nextRunAt: now,
    cursor: null,
    skippedCount: 0,
  };
  const built = await buildDelivery({
    client,
    reader: { key: 'workspace', name: 'this workspace’s key' as never },
    subscription,
    delivery: {
      id: randomUUID(),
      subscriptionId: subscription.id,
      teamId: subscription.teamId,
      channelId: subscription.channelId,
      dueAt: now,
      manual: true,
      state: 'pending',
      leaseOwner: null,
      leaseUntil: null,
      notBefore: now,
      attempts: 0,
      frozen: null,
      postedTs: [],
      attemptingPart: null,
      attemptAt: null,
      attemptUntil: null,
      settleLatest: null,
      outcome: null,
    },
    now,
    exclude: new Set(exclude),
  });
  const message = built.kind === 'post' ? built.frozen.parts[0] : built.said;
  return {
    built,
    read: `${message?.text ?? ''} ${JSON.stringify(message?.blocks ?? [])}`,
    keys: built.kind === 'post' ? built.frozen.itemKeys : [],
  };
}

describe('deadline reminders of a bid', () => {
  it('remind of the bid’s tender closing within the window, though its own target date is far off', async () => {
    const now = new Date(Date.parse(closesAt) - 11 * 86_400_000);
    const { read, keys } = await reminder(now);
    expect(read).toContain(`*${bidName}* · its tender closes in 11 days`);
    expect(read).toContain('target date');
    const key = keys.find((each) => each.startsWith(`deadline:tender:${TENDER_B}:`));
    expect(key).toBeDefined();

    // Reminded once per threshold: a later post within the same threshold counts it as reminded before.
    const again = await reminder(now, [key as string]);
    expect(again.read).not.toContain(bidName);
  });

  it('say the closing once, as the bid’s, when the tender is bookmarked too', async () => {
    const bookmarked = await harness.sandbox.call('POST', `/v1/bookmarks/${TENDER_B}`, {
      key: KEYS.carolMemberAcme,
    });
    expect([200, 201]).toContain(bookmarked.status);
    try {
      const now = new Date(Date.parse(closesAt) - 2 * 86_400_000);
      const { read, keys } = await reminder(now);
      expect(read).toContain(`*${bidName}* · its tender closes in 2 days`);
      expect(keys.filter((each) => each.startsWith(`deadline:tender:${TENDER_B}:`))).toHaveLength(1);
      expect(read).not.toContain(`\`${TENDER_B}\``);
    } finally {
      await harness.sandbox.call('DELETE', `/v1/bookmarks/${TENDER_B}`, { key: KEYS.carolMemberAcme });
    }
  });
});
