import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, TENDER_B } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';
import { builtPost } from './build-support.ts';

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

/** A deadline reminder over 14 days built at `now`, without the items in `exclude`. */
const reminder = (now: Date, exclude: string[] = []) =>
  builtPost(harness, { kind: 'deadlines', target: { days: 14 }, now, exclude });

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

  it('name every bid on one tender in its closing line, each bid’s own target date due too said there, never twice', async () => {
    const now = new Date(Date.parse(closesAt) - 11 * 86_400_000);
    // A second bid on the same tender, its own target date within the window as well.
    const second = `Second bid ${randomUUID().slice(0, 6)}`;
    const made = await harness.sandbox.call('POST', '/v1/pipelines', {
      key: KEYS.carolMemberAcme,
      body: {
        name: second,
        idempotencyKey: randomUUID(),
        tenderId: TENDER_B,
        targetSubmissionDate: new Date(now.getTime() + 5 * 86_400_000).toISOString().slice(0, 10),
      },
    });
    expect(made.status, made.text).toBe(201);
    const { read, keys } = await reminder(now);
    expect(read).toContain(':dart: Their tender closes in 11 days');
    expect(read).toContain(`*${bidName}* · target date`);
    expect(read).toContain(`*${second}* · target date`);
    // Each bid named once: the second's target date is in the closing line, not a line of its own.
    expect(read.split(`*${second}*`).length - 1).toBe(1);
    expect(read.split(`*${bidName}*`).length - 1).toBe(1);
    const secondId = made.body.data.id as string;
    expect(keys.filter((key) => key.startsWith(`deadline:tender:${TENDER_B}:`))).toHaveLength(1);
    expect(keys, JSON.stringify(keys)).toContainEqual(
      expect.stringMatching(new RegExp(`^deadline:pipeline:${secondId}:`)),
    );
    // Both reminded: the next post within the same thresholds says neither.
    const again = await reminder(now, keys);
    expect(again.read).not.toContain(second);
    expect(again.read).not.toContain(bidName);
  });
});
