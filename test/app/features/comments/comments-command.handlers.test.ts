import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commentsCommand } from '../../../../src/app/features/comments/comments-command.ts';
import { LARGE_FRAMEWORK_ID, TENDER_A } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';
import { commentBy } from './handler-support.ts';

let harness: HandlerHarness;
beforeAll(async () => {
  harness = await startHandlerHarness();
}, 60_000);
afterAll(async () => harness?.close());

describe('commentsCommand (/tender comments <id>)', () => {
  it('shows the thread on a tender to the whole channel, with who wrote each comment in Slack', async () => {
    await commentBy(
      harness,
      'U0MEMBER',
      { entityType: 'tender', entityId: TENDER_A },
      'We should bid on this.',
    );
    const request = harness.request({ userId: 'U0MEMBER' });
    await commentsCommand(harness.context, request, TENDER_A);
    expect(request.answers).toHaveLength(1);
    const [answer] = request.answers;
    expect(answer?.response_type).toBe('in_channel');
    const read = JSON.stringify(answer);
    expect(read).toContain('Advertising and marketing services: marketing contract');
    expect(read).toContain('We should bid on this.');
    expect(read).toContain('<@U0MEMBER>');
  });

  it('the same thread asked for again within the minute is said, not posted twice; a new comment is posted', async () => {
    const target = { entityType: 'tender' as const, entityId: 'ocds-tbdemo-0000207' };
    await commentBy(harness, 'U0MEMBER', target, 'First thoughts.');
    const run = async () => {
      const request = harness.request({ userId: 'U0ADMIN', channelId: 'C0GENERAL' });
      await commentsCommand(harness.context, request, target.entityId);
      return request.answers;
    };
    expect((await run()).map((answer) => answer.response_type)).toEqual(['in_channel']);
    const again = await run();
    expect(again.map((answer) => answer.response_type)).toEqual(['ephemeral']);
    expect(again[0]?.text).toBe(
      'These comments were posted in this channel moments ago, so they were not posted again.',
    );
    // Another channel, or a comment added since: posted.
    const elsewhere = harness.request({ userId: 'U0ADMIN', channelId: 'C0BIDS' });
    await commentsCommand(harness.context, elsewhere, target.entityId);
    expect(elsewhere.answers[0]?.response_type).toBe('in_channel');
    await commentBy(harness, 'U0ADMIN', target, 'Second thoughts.');
    const updated = await run();
    expect(updated.map((answer) => answer.response_type)).toEqual(['in_channel']);
    expect(JSON.stringify(updated)).toContain('Second thoughts.');
  });

  it('a record no one has commented on is said to the asker alone, with the button to write the first', async () => {
    const request = harness.request({ userId: 'U0MEMBER', channelId: 'C0GENERAL' });
    await commentsCommand(harness.context, request, 'ocds-tbdemo-0000209');
    expect(request.answers.map((answer) => answer.response_type)).toEqual(['ephemeral']);
    const shown = JSON.stringify(request.answers);
    expect(shown).toContain('No one has commented yet.');
    expect(shown).toContain('Write the first comment');
  });

  it('an id that is a framework and a tender shows the framework and names the tender’s command', async () => {
    const request = harness.request();
    await commentsCommand(harness.context, request, LARGE_FRAMEWORK_ID);
    const read = JSON.stringify(request.answers);
    expect(read).toContain(`This id is also a tender`);
    expect(read).toContain(`/tender comments tender:${LARGE_FRAMEWORK_ID}`);
  });

  it('takes a tender’s printed reference (its card shows it) as its id', async () => {
    await commentBy(
      harness,
      'U0MEMBER',
      { entityType: 'tender', entityId: 'ocds-tbdemo-0000001' },
      'Worth a look.',
    );
    const byId = harness.request();
    await commentsCommand(harness.context, byId, 'ocds-tbdemo-0000001');
    // In another channel: the same thread again in one channel within the minute is a repeat.
    const byReference = harness.request({ channelId: 'C0GENERAL' });
    await commentsCommand(harness.context, byReference, 'TB-0000001');
    expect(byId.answers[0]?.response_type).toBe('in_channel');
    expect(byReference.answers).toEqual(byId.answers);
  });

  it('a printed reference several tenders share lists each one’s command by its id, as /tender show does', async () => {
    const teamId = harness.slack.teamId;
    const real = await harness.context.clients.forPerson(teamId, 'U0MEMBER');
    const two = (await real.client.tenders.search({ q: 'cleaning', limit: 2 })).data;
    expect(two).toHaveLength(2);
    // The service finds no tender by this reference alone, and two by a search by reference
    // (a notice and its amendment): the search is the only part not the sandbox's own.
    const tenders = Object.assign(Object.create(real.client.tenders), {
      search: async () => ({ data: two, pagination: { total: 2, limit: 5, offset: 0 } }),
    });
    const client = Object.assign(Object.create(real.client), { tenders });
    const clients = Object.assign(Object.create(harness.context.clients), {
      forPerson: async () => ({ client, source: real.source }),
    });
    const request = harness.request();
    await commentsCommand({ ...harness.context, clients }, request, 'TB-SHARED-9');
    const said = request.said();
    expect(said).toContain('2 tenders have the reference `TB-SHARED-9`');
    for (const tender of two) expect(said).toContain(`/tender comments ${tender.id}`);
    expect(said).not.toContain('No tender');
  });

  it('refuses an unknown id, to the asker alone, saying nothing has it', async () => {
    const request = harness.request();
    await commentsCommand(harness.context, request, 'ocds-tbdemo-9999999');
    expect(request.answers).toHaveLength(1);
    expect(request.answers[0]?.response_type).toBe('ephemeral');
    expect(request.said()).toContain('No tender, buyer, supplier or framework has the id');
    expect(request.said()).toContain('ocds-tbdemo-9999999');
  });

  it('refuses a named kind that has no such id, and a missing id with how to write one', async () => {
    const named = harness.request();
    await commentsCommand(harness.context, named, 'buyer:not-a-buyer');
    expect(named.said()).toContain('No buyer has the id');
    const empty = harness.request();
    await commentsCommand(harness.context, empty, '   ');
    expect(empty.said()).toContain('Give the id of a tender, buyer, supplier or framework');
    expect(empty.answers[0]?.response_type).toBe('ephemeral');
  });
});
