import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bidReferences } from '../../../../src/app/features/bids/index.ts';
import { commentsCommand } from '../../../../src/app/features/comments/comments-command.ts';
import { eventually } from '../../../support/bot.ts';
import { KEYS, LARGE_FRAMEWORK_ID, TENDER_A } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';
import { commentBy } from './handler-support.ts';

let harness: HandlerHarness;
beforeAll(async () => {
  harness = await startHandlerHarness();
}, 60_000);
afterAll(async () => harness?.close());

/** Messages Tenderbot posted in `channelId` (not answers to a command). */
const botPostsIn = (channelId: string) =>
  harness.slack.messagesIn(channelId).filter((message) => message.authorId === 'U0BOT');

/** `/tender comments <text>` in `channelId`: its answers, and the messages Tenderbot posted there for it. */
async function run(text: string, options: { userId?: string; channelId?: string } = {}) {
  const request = harness.request(options);
  const channelId = options.channelId ?? 'C0BIDS';
  const before = botPostsIn(channelId).length;
  await commentsCommand(harness.context, request, text);
  return { request, answers: request.answers, posted: botPostsIn(channelId).slice(before) };
}

describe('commentsCommand (/tender comments <id>)', () => {
  it('posts the thread on a tender in the channel, with who wrote each comment in Slack, and remembers it', async () => {
    await commentBy(
      harness,
      'U0MEMBER',
      { entityType: 'tender', entityId: TENDER_A },
      'We should bid on this.',
    );
    const { answers, posted } = await run(TENDER_A, { userId: 'U0MEMBER' });
    expect(answers).toEqual([]);
    expect(posted).toHaveLength(1);
    const read = JSON.stringify(posted[0]?.blocks);
    expect(read).toContain('Advertising and marketing services: marketing contract');
    expect(read).toContain('We should bid on this.');
    expect(read).toContain('<@U0MEMBER>');
    // Remembered, so that a comment written or deleted later redraws it.
    const threads = await harness.context.store.commentThreads(
      harness.slack.teamId,
      { entityType: 'tender', entityId: TENDER_A },
      5,
    );
    expect(threads).toContainEqual(
      expect.objectContaining({ channelId: 'C0BIDS', ts: posted[0]?.ts, postedBy: 'U0MEMBER' }),
    );
  });

  it('a comment deleted elsewhere between reading the thread and remembering it (another copy’s change, whose redraw found no thread yet) is still redrawn away', async () => {
    const target = { entityType: 'tender' as const, entityId: 'ocds-tbdemo-0000311' };
    const kept = await commentBy(harness, 'U0MEMBER', target, 'Kept words.');
    const doomed = await commentBy(harness, 'U0MEMBER', target, 'Words deleted in the gap.');
    expect(kept.id).not.toBe(doomed.id);
    const store = harness.context.store;
    const remember = store.rememberCommentThread.bind(store);
    // The deletion lands after the thread was read and posted, before it is remembered: a redraw
    // run then (by the copy that deleted it) would have found nothing to redraw.
    store.rememberCommentThread = async (...args) => {
      const deleted = await harness.sandbox.call('DELETE', `/v1/comments/${doomed.id}`, {
        key: KEYS.carolMemberAcme,
      });
      expect(deleted.status).toBe(204);
      return remember(...args);
    };
    try {
      const { posted } = await run(`tender:${target.entityId}`, { userId: 'U0MEMBER' });
      expect(posted).toHaveLength(1);
      expect(JSON.stringify(posted[0]?.blocks)).toContain('Words deleted in the gap.');
      const thread = posted[0] as (typeof posted)[number];
      const redrawn = await eventually(
        () =>
          harness.slack
            .messagesIn('C0BIDS')
            .find(
              (message) =>
                message.ts === thread.ts && !JSON.stringify(message.blocks).includes('deleted in the gap'),
            ),
        'the thread redrawn without the deleted words',
      );
      expect(JSON.stringify(redrawn.blocks)).toContain('Kept words.');
      expect(JSON.stringify(redrawn.blocks)).toContain('This comment was deleted');
    } finally {
      store.rememberCommentThread = remember;
    }
  });

  it('in a channel Tenderbot is not in, the command’s own answer posts the thread there', async () => {
    const { answers, posted } = await run(TENDER_A, { userId: 'U0MEMBER', channelId: 'C0NOTJOINED' });
    expect(posted).toEqual([]);
    expect(answers.map((answer) => answer.response_type)).toEqual(['in_channel']);
    expect(JSON.stringify(answers)).toContain('We should bid on this.');
  });

  it('the same thread asked for again within the minute is said, not posted twice; a new comment is posted', async () => {
    const target = { entityType: 'tender' as const, entityId: 'ocds-tbdemo-0000207' };
    await commentBy(harness, 'U0MEMBER', target, 'First thoughts.');
    const inGeneral = () => run(target.entityId, { userId: 'U0ADMIN', channelId: 'C0GENERAL' });
    expect((await inGeneral()).posted).toHaveLength(1);
    const again = await inGeneral();
    expect(again.posted).toEqual([]);
    expect(again.answers.map((answer) => answer.response_type)).toEqual(['ephemeral']);
    expect(again.answers[0]?.text).toBe(
      'These comments were posted in this channel moments ago, so they were not posted again.',
    );
    // Another channel, or a comment added since: posted.
    expect((await run(target.entityId, { userId: 'U0ADMIN', channelId: 'C0BIDS' })).posted).toHaveLength(1);
    await commentBy(harness, 'U0ADMIN', target, 'Second thoughts.');
    const updated = await inGeneral();
    expect(updated.posted).toHaveLength(1);
    expect(JSON.stringify(updated.posted[0]?.blocks)).toContain('Second thoughts.');
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
    const byId = await run('ocds-tbdemo-0000001');
    // In another channel: the same thread again in one channel within the minute is a repeat.
    const byReference = await run('TB-0000001', { channelId: 'C0GENERAL' });
    expect(byId.posted).toHaveLength(1);
    expect(byReference.posted.map((message) => message.blocks)).toEqual(
      byId.posted.map((message) => message.blocks),
    );
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

  it('a bid’s reference (BID-n) posts its tender’s thread; a bid without a tender is said to have none', async () => {
    const start = async (body: object) => {
      const made = await harness.sandbox.call('POST', '/v1/pipelines', {
        key: KEYS.carolMemberAcme,
        body: { idempotencyKey: randomUUID(), ...body },
      });
      expect(made.status, made.text).toBe(201);
      const id = made.body.data.id as string;
      return (await bidReferences(harness.context, harness.slack.teamId, [id])).get(id) as string;
    };
    const onTender = await start({ name: 'Bid with a tender', tenderId: TENDER_A });
    expect(onTender).toMatch(/^BID-\d+$/);
    const { answers, posted } = await run(onTender, { userId: 'U0MEMBER', channelId: 'C0GENERAL' });
    expect(answers).toEqual([]);
    expect(posted).toHaveLength(1);
    expect(JSON.stringify(posted[0]?.blocks)).toContain(
      'Advertising and marketing services: marketing contract',
    );

    const alone = await start({ name: 'Bid without a tender' });
    const none = await run(alone.toLowerCase(), { userId: 'U0MEMBER' });
    expect(none.posted).toEqual([]);
    expect(none.request.said()).toBe(
      'Comments are kept on tenders, buyers, suppliers and frameworks, not on bids, and *Bid without a tender* was started without a tender, so it has none.',
    );
    // Written with a space, as people say it.
    const spaced = await run(alone.replace('-', ' '), { userId: 'U0MEMBER' });
    expect(spaced.request.said()).toContain('*Bid without a tender* was started without a tender');
    const unknown = await run('BID-99999', { userId: 'U0MEMBER' });
    expect(unknown.request.said()).toContain('No bid in this workspace is `BID-99999`.');
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
