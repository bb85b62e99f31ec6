import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

  it('status with a status it does not know: names the ones to use, writes nothing', async () => {
    const bid = await newBid(harness, 'Command bad status bid');
    const request = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, request, `status ${bid.id} winning`);
    expect(request.said()).toContain('Give the bid’s id and one of these statuses:');
    expect(request.said()).not.toContain('`submitted`');
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
    expect(noStatus.said()).toContain('Give the bid’s id, the stage (its name or number) and one of');
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
