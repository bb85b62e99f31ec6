import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, TENDER_B } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';
import { builtPost } from './build-support.ts';

let harness: HandlerHarness;
let closesAt: string;
beforeAll(async () => {
  harness = await startHandlerHarness();
  closesAt = (await harness.sandbox.call('GET', `/v1/tenders/${TENDER_B}`, { key: KEYS.carolMemberAcme }))
    .body.data.deadline;
  expect(closesAt).toBeTruthy();
}, 60_000);
afterAll(async () => harness?.close());

const day = (instant: number) => new Date(instant).toISOString().slice(0, 10);

/** A bid on TENDER_B with two stages, as Carol (the workspace's key). */
async function newBid(name: string, targetSubmissionDate: string) {
  const made = await harness.sandbox.call('POST', '/v1/pipelines', {
    key: KEYS.carolMemberAcme,
    body: {
      name,
      idempotencyKey: randomUUID(),
      tenderId: TENDER_B,
      targetSubmissionDate,
      stages: [{ name: 'Qualify' }, { name: 'Write' }],
    },
  });
  expect(made.status, made.text).toBe(201);
  return made.body.data as { id: string; stages: { id: string }[] };
}

async function change(path: string, body: object) {
  const answer = await harness.sandbox.call('PATCH', path, { key: KEYS.carolMemberAcme, body });
  expect(answer.status, answer.text).toBe(200);
}

describe('a bid’s summary', () => {
  const now = () => new Date(Date.parse(closesAt) - 21 * 86_400_000);

  it('says when its tender closes, and flags a target date after it', async () => {
    const late = await newBid(
      `Late target ${randomUUID().slice(0, 6)}`,
      day(Date.parse(closesAt) + 20 * 86_400_000),
    );
    const { read } = await builtPost(harness, { kind: 'pipeline', target: { p: late.id }, now: now() });
    expect(read).toContain('*Tender closes* ');
    expect(read).toContain('in 21 days');
    expect(read).toContain(':warning: after the tender closes');

    const early = await newBid(
      `Early target ${randomUUID().slice(0, 6)}`,
      day(Date.parse(closesAt) - 5 * 86_400_000),
    );
    const inTime = await builtPost(harness, { kind: 'pipeline', target: { p: early.id }, now: now() });
    expect(inTime.read).toContain('*Tender closes* ');
    expect(inTime.read).not.toContain('after the tender closes');
  });

  it('names the stages due after the target or the closing, as the card flags them; stages, not the bid, are “due”', async () => {
    const bid = await newBid(
      `Stages too late ${randomUUID().slice(0, 6)}`,
      day(Date.parse(closesAt) - 10 * 86_400_000),
    );
    const [qualify, write] = bid.stages as [{ id: string }, { id: string }];
    // Write is due after the target (before the closing); Qualify after the closing.
    await change(`/v1/pipelines/${bid.id}/stages/${write.id}`, {
      dueDate: day(Date.parse(closesAt) - 5 * 86_400_000),
    });
    await change(`/v1/pipelines/${bid.id}/stages/${qualify.id}`, {
      dueDate: day(Date.parse(closesAt) + 3 * 86_400_000),
    });
    const { read } = await builtPost(harness, { kind: 'pipeline', target: { p: bid.id }, now: now() });
    expect(read).toContain('*Due after the target or the closing*');
    expect(read).toMatch(/• Write \(Pending\) · due [^\n]+ :warning: after the target submission/);
    expect(read).toMatch(/• Qualify \(Pending\) · due [^\n]+ :warning: after the tender closes/);
    expect(read).toContain('No stage is blocked, overdue or due in the next 3 days.');
    expect(read).not.toContain('Nothing is');

    // A stage overdue and after a target now past: listed once, under Overdue.
    const behind = await newBid(
      `Stages behind ${randomUUID().slice(0, 6)}`,
      day(now().getTime() - 10 * 86_400_000),
    );
    await change(`/v1/pipelines/${behind.id}/stages/${(behind.stages as [{ id: string }])[0].id}`, {
      dueDate: day(now().getTime() - 5 * 86_400_000),
    });
    const overdue = await builtPost(harness, { kind: 'pipeline', target: { p: behind.id }, now: now() });
    expect(overdue.read).toContain('*Overdue*\\n• Qualify (Pending) · was due');
    expect(overdue.read).not.toContain('Due after the target or the closing');

    // In time: no such list.
    const inTime = await newBid(`Stages in time ${randomUUID().slice(0, 6)}`, day(Date.parse(closesAt)));
    const fine = await builtPost(harness, { kind: 'pipeline', target: { p: inTime.id }, now: now() });
    expect(fine.read).not.toContain('Due after the target or the closing');
  });

  it('lists every change since the last summary: name, target date, and each stage’s name, status and due date', async () => {
    const bid = await newBid(
      `Summary bid ${randomUUID().slice(0, 6)}`,
      day(Date.parse(closesAt) - 5 * 86_400_000),
    );
    const first = await builtPost(harness, { kind: 'pipeline', target: { p: bid.id }, now: now() });
    expect(first.read).toContain('This is the first summary');
    const [qualify, write] = bid.stages as [{ id: string }, { id: string }];
    await change(`/v1/pipelines/${bid.id}`, {
      name: 'Renamed summary bid',
      targetSubmissionDate: day(Date.parse(closesAt) - 3 * 86_400_000),
    });
    await change(`/v1/pipelines/${bid.id}/stages/${qualify.id}`, {
      status: 'completed',
      name: 'Qualify fully',
    });
    await change(`/v1/pipelines/${bid.id}/stages/${write.id}`, {
      dueDate: day(Date.parse(closesAt) - 7 * 86_400_000),
      notes: 'Ask for the pricing sheet',
    });
    const second = await builtPost(harness, {
      kind: 'pipeline',
      target: { p: bid.id },
      now: now(),
      cursor: first.cursor,
    });
    expect(second.read).toContain('to *Renamed summary bid*');
    expect(second.read).toMatch(/Target date: \d+ \w+ \d{4} → \*\d+ \w+ \d{4}\*/);
    expect(second.read).toContain('Qualify: renamed to *Qualify fully*');
    expect(second.read).toContain('Qualify fully: Pending → *Completed*');
    expect(second.read).toMatch(/Write: due date none → \*\d+ \w+ \d{4}\*/);
    // Notes are not followed, and not kept in any form.
    expect(second.read).not.toContain('notes');
    expect(second.cursor).not.toContain('pricing sheet');
    expect(second.cursor).not.toContain('notes');

    // Nothing changed since: said so.
    const third = await builtPost(harness, {
      kind: 'pipeline',
      target: { p: bid.id },
      now: now(),
      cursor: second.cursor,
    });
    expect(third.read).toContain('Nothing changed.');

    // Archived since: said as a change, and the card offered read only.
    const archived = await harness.sandbox.call('POST', `/v1/pipelines/${bid.id}/archive`, {
      key: KEYS.carolMemberAcme,
      body: { archived: true },
    });
    expect(archived.status).toBe(200);
    const fourth = await builtPost(harness, {
      kind: 'pipeline',
      target: { p: bid.id },
      now: now(),
      cursor: third.cursor,
    });
    expect(fourth.read).toContain('• *Archived*');
  });

  it('of a bid archived since subscribing says its card is read only, not offered “with its menus”', async () => {
    const bid = await newBid(
      `Archived later ${randomUUID().slice(0, 6)}`,
      // After the closing: an archived bid's card flags nothing, and nor does its summary.
      day(Date.parse(closesAt) + 20 * 86_400_000),
    );
    const archived = await harness.sandbox.call('POST', `/v1/pipelines/${bid.id}/archive`, {
      key: KEYS.carolMemberAcme,
      body: { archived: true },
    });
    expect(archived.status).toBe(200);
    const { read } = await builtPost(harness, { kind: 'pipeline', target: { p: bid.id }, now: now() });
    expect(read).toContain('(archived, so read only), in this channel:');
    expect(read).not.toContain('after the tender closes');
    expect(read).not.toContain('with its menus');
    // An archived bid has no deadline left to chase.
    expect(read).not.toContain('*Tender closes*');
  });

  it('reads a cursor kept before names, dates and notes were kept: only status changes, nothing invented', async () => {
    const bid = await newBid(
      `Old cursor bid ${randomUUID().slice(0, 6)}`,
      day(Date.parse(closesAt) - 5 * 86_400_000),
    );
    const [qualify] = bid.stages as [{ id: string }];
    const old = JSON.stringify({
      status: 'draft',
      stages: (bid.stages as { id: string }[]).map((stage, index) => ({
        id: stage.id,
        name: index === 0 ? 'Qualify' : 'Write',
        status: 'pending',
      })),
    });
    await change(`/v1/pipelines/${bid.id}/stages/${qualify.id}`, { status: 'blocked' });
    const { read } = await builtPost(harness, {
      kind: 'pipeline',
      target: { p: bid.id },
      now: now(),
      cursor: old,
    });
    expect(read).toContain('Qualify: Pending → *Blocked*');
    expect(read).not.toContain('Renamed');
    expect(read).not.toContain('Target date:');
    expect(read).not.toContain('due date');
    expect(read).not.toContain('notes');
  });
});
