import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bidReferences } from '../../../../src/app/features/bids/bid-references.ts';
import { pipelineCommand, pipelinesCommand } from '../../../../src/app/features/bids/commands.ts';
import { PipelineIds } from '../../../../src/app/shared/ids.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';
import { actionIdsIn, bidNow, cardsOf, newBid, stageAt } from './handler-support.ts';

const BIDS = 'C0BIDS';

let harness: HandlerHarness;
beforeAll(async () => {
  harness = await startHandlerHarness();
}, 60_000);
afterAll(async () => harness?.close());

describe('pipelinesCommand (/tender pipelines)', () => {
  it('lists the bids the key can see, each with Post in channel; never another organisation’s', async () => {
    const request = harness.request({ channelId: BIDS });
    await pipelinesCommand(harness.context, request, '');
    expect(request.answers).toHaveLength(1);
    expect(request.answers[0]?.response_type).toBe('ephemeral');
    const read = JSON.stringify(request.answers);
    expect(read).toContain('Bob’s hospital cleaning bid');
    expect(read).not.toContain('Beta bid');
    expect(actionIdsIn(request.answers)).toContain(PipelineIds.post);
  });

  it('finds by words and shows archived bids only when asked', async () => {
    const bid = await newBid(harness, 'Quarry archive listing bid');
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    await client.pipelines.archive(bid.id, true);
    const active = harness.request({ channelId: BIDS });
    await pipelinesCommand(harness.context, active, 'Quarry');
    expect(JSON.stringify(active.answers)).not.toContain('Quarry archive listing bid');
    const archived = harness.request({ channelId: BIDS });
    await pipelinesCommand(harness.context, archived, 'Quarry archived');
    expect(JSON.stringify(archived.answers)).toContain('Quarry archive listing bid');
  });

  it('a status it does not know: names the statuses to use, lists nothing', async () => {
    const request = harness.request({ channelId: BIDS });
    await pipelinesCommand(harness.context, request, 'status:someday');
    expect(request.said()).toContain('`status:someday` is not a bid status. Use one of: `status:');
    expect(actionIdsIn(request.answers)).not.toContain(PipelineIds.post);
  });
});

describe('pipelineCommand (/tender pipeline …)', () => {
  it('<id>: posts the bid’s card in the channel', async () => {
    const bid = await newBid(harness, 'Command card bid');
    const request = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, request, bid.id);
    expect(cardsOf(harness, BIDS, bid.id)).toHaveLength(1);
  });

  it('nothing after it, or too many words: says how to use it', async () => {
    const empty = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, empty, '   ');
    expect(empty.said()).toContain('Which bid? Use `/tender pipeline &lt;bid&gt;`');
    const extra = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, extra, 'pl-bob please');
    expect(extra.said()).toContain('Use `/tender pipeline &lt;bid&gt;`');
    expect(cardsOf(harness, BIDS, 'pl-bob')).toEqual([]);
  });

  it('status <id> <status>: sets the status (words joined: "no bid")', async () => {
    const bid = await newBid(harness, 'Command status bid');
    const request = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, request, `status ${bid.id} no bid`);
    expect((await bidNow(harness, bid.id)).status).toBe('no_bid');
    expect(request.said()).toContain('The bid’s status is now');
    expect(request.said()).toMatch(
      /It has no card in a channel yet: `\/tender pipeline BID-\d+` posts one\./,
    );
  });

  it('status with a status it does not know: names the ones to use as the card shows them, writes nothing', async () => {
    const bid = await newBid(harness, 'Command bad status bid');
    const request = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, request, `status ${bid.id} winning`);
    expect(request.said()).toBe(
      '“winning” is not a status. Use one of Draft, Qualifying, Bidding, On hold, Won, Lost, No bid.',
    );
    expect((await bidNow(harness, bid.id)).status).toBe(bid.status);
  });

  it('stage <id> <name or number> <status>: moves that stage', async () => {
    const bid = await newBid(harness, 'Command stage bid', ['Qualify', 'Draft response', 'Price']);
    const byName = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, byName, `stage ${bid.id} draft in progress`);
    expect(stageAt(await bidNow(harness, bid.id), 2).status).toBe('in_progress');
    expect(byName.said()).toContain('Moved stage 2, Draft response, of *Command stage bid* to');
    const byNumber = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, byNumber, `stage ${bid.id} 3 done`);
    expect(stageAt(await bidNow(harness, bid.id), 3).status).toBe('completed');
  });

  it('stage with a stage the bid does not have: lists its stages, writes nothing', async () => {
    const bid = await newBid(harness, 'Command missing stage bid', ['Qualify', 'Write']);
    const byNumber = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, byNumber, `stage ${bid.id} 7 done`);
    expect(byNumber.said()).toBe('This bid has 2 stages; there is no stage 7.');
    const byName = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, byName, `stage ${bid.id} Pricing done`);
    expect(byName.said()).toContain(
      'No stage of this bid is called “Pricing”. Its stages: 1. Qualify, 2. Write.',
    );
    expect((await bidNow(harness, bid.id)).updatedAt).toBe(bid.updatedAt);
  });

  it('stage on a bid the key cannot see, or with no status: a sentence, nothing written', async () => {
    const hidden = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, hidden, 'stage pl-beta 1 done');
    expect(hidden.said()).toContain('No bid `pl-beta` can be seen');
    const noStatus = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, noStatus, 'stage pl-bob 1');
    expect(noStatus.said()).toBe(
      'Which status for stage 1, Qualify? Give one after it: Pending, In progress, Blocked, Completed.',
    );
  });

  it('archive <id> archives it; archive without an id asks which', async () => {
    const bid = await newBid(harness, 'Command archive bid');
    const request = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, request, `archive ${bid.id}`);
    expect((await bidNow(harness, bid.id)).archived).toBe(true);
    expect(request.said()).toContain('Archived the bid.');
    const noId = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, noId, 'restore');
    expect(noId.said()).toBe(
      'Which bid? `/tender pipeline restore &lt;bid&gt;`, like `/tender pipeline restore BID-7`.',
    );
  });
});

/** The reference (`BID-7`) people type for a bid: what its card shows. */
async function referenceOf(bidId: string): Promise<string> {
  return (await bidReferences(harness.context, harness.slack.teamId, [bidId])).get(bidId) as string;
}

describe('bid commands typed as people type them', () => {
  it('stage: a stage name in straight, curly or single quotes is the stage, whatever status words follow', async () => {
    const bid = await newBid(harness, 'Quoted stage bid', ['Qualify', 'Draft response', 'Draft review']);
    const reference = await referenceOf(bid.id);
    const quoted = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, quoted, `stage ${reference} "Draft response" completed`);
    expect(quoted.said()).toContain('Moved stage 2, Draft response, of *Quoted stage bid* to Completed.');
    expect(stageAt(await bidNow(harness, bid.id), 2).status).toBe('completed');
    const curly = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, curly, `stage ${reference} “Draft review” In Progress`);
    expect(curly.said()).toContain('Moved stage 3, Draft review, of *Quoted stage bid* to In progress.');
    const single = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, single, `stage ${reference.toLowerCase()} ‘draft response’ to-do`);
    expect(single.said()).toContain('Moved stage 2, Draft response, of *Quoted stage bid* to Pending.');
    expect(stageAt(await bidNow(harness, bid.id), 2).status).toBe('pending');
  });

  it('status: takes the status as the card shows it and its common spellings, in any case', async () => {
    const bid = await newBid(harness, 'Spelt status bid');
    const reference = await referenceOf(bid.id);
    for (const [typed, status] of [
      ['nobid', 'no_bid'],
      ['On hold', 'on_hold'],
      ['No-Bid', 'no_bid'],
      ['ON_HOLD', 'on_hold'],
      ['"No bid"', 'no_bid'],
      ['Qualifying', 'qualifying'],
    ] as const) {
      const request = harness.request({ channelId: BIDS });
      await pipelineCommand(harness.context, request, `status ${reference.toLowerCase()} ${typed}`);
      expect((await bidNow(harness, bid.id)).status, typed).toBe(status);
      expect(request.said()).not.toContain('Give the bid’s id');
    }
  });

  it('status: an unknown status is named back with the statuses as the card shows them; a missing one is asked for, never the id', async () => {
    const bid = await newBid(harness, 'Mistyped status bid');
    const reference = await referenceOf(bid.id);
    const mistyped = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, mistyped, `status ${reference} nobidd`);
    expect(mistyped.said()).toBe(
      '“nobidd” is not a status. Did you mean No bid? Use one of Draft, Qualifying, Bidding, On hold, Won, Lost, No bid.',
    );
    const missing = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, missing, `status ${reference}`);
    expect(missing.said()).toBe(
      `Which status for \`${reference}\`? Give one after it: Draft, Qualifying, Bidding, On hold, Won, Lost, No bid. For example \`/tender pipeline status BID-7 bidding\`.`,
    );
    const noBid = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, noBid, 'status no bid');
    expect(noBid.said()).toBe(
      'Which bid? Give its reference before the status: `/tender pipeline status BID-7 no bid`.',
    );
    expect((await bidNow(harness, bid.id)).status).toBe(bid.status);
  });

  it('stage: an unknown stage status is named back with the statuses as the menu shows them', async () => {
    const bid = await newBid(harness, 'Mistyped stage status bid', ['Qualify', 'Draft response']);
    const reference = await referenceOf(bid.id);
    const unquoted = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, unquoted, `stage ${reference} Draft response finnished`);
    expect(unquoted.said()).toBe(
      '“finnished” is not a stage status. Use one of Pending, In progress, Blocked, Completed.',
    );
    const quoted = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, quoted, `stage ${reference} "Draft response" in progres`);
    expect(quoted.said()).toBe(
      '“in progres” is not a stage status. Did you mean In progress? Use one of Pending, In progress, Blocked, Completed.',
    );
    const stageOnly = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, stageOnly, `stage ${reference} "Draft response"`);
    expect(stageOnly.said()).toBe(
      'Which status for stage 2, Draft response? Give one after it: Pending, In progress, Blocked, Completed.',
    );
    // Only a status: the stage is asked for, never "“completed” is not a stage status".
    const statusOnly = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, statusOnly, `stage ${reference} completed`);
    expect(statusOnly.said()).toBe(
      `Which stage of \`${reference}\`? Name it before the status, as in \`/tender pipeline stage ${reference} "Draft response" completed\`.`,
    );
    expect((await bidNow(harness, bid.id)).updatedAt).toBe(bid.updatedAt);
  });

  it('/tender pipelines status: takes the card’s spellings too', async () => {
    const bid = await newBid(harness, 'Zephyr held bid');
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    await client.pipelines.update(bid.id, { status: 'on_hold' });
    for (const typed of ['status:on-hold', 'status:"On hold"', 'status:onhold']) {
      const request = harness.request({ channelId: BIDS });
      await pipelinesCommand(harness.context, request, `Zephyr ${typed}`);
      expect(JSON.stringify(request.answers), typed).toContain('Zephyr held bid');
    }
  });
});
