import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postPipelineCard, redrawEverywhere } from '../../../../src/app/features/bids/pipeline-live.ts';
import { mrkdwn } from '../../../../src/app/shared/views/mrkdwn.ts';
import { BOT_TOKEN, eventually } from '../../../support/bot.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';
import { textOf } from '../../../support/slack-text.ts';
import { cardsOf, newBid } from './handler-support.ts';

const BIDS = 'C0BIDS';
const GENERAL = 'C0GENERAL';

let harness: HandlerHarness;
beforeAll(async () => {
  harness = await startHandlerHarness();
}, 60_000);
afterAll(async () => harness?.close());

/* pipeline-live holds no listener: these are the parts every bid handler ends in, called as they call them. */

describe('postPipelineCard and redrawEverywhere', () => {
  it('redraws every card of the bid from a fresh read and tells the change under each', async () => {
    const bid = await newBid(harness, 'Live card bid');
    const slack = harness.request().slack;
    const inBids = await postPipelineCard(harness.context, slack, harness.slack.teamId, BIDS, bid);
    const inGeneral = await postPipelineCard(harness.context, slack, harness.slack.teamId, GENERAL, bid);
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    await client.pipelines.update(bid.id, { name: 'Live card bid, renamed' });
    const drawn = await redrawEverywhere(
      harness.context,
      slack,
      harness.slack.teamId,
      bid.id,
      undefined,
      () => mrkdwn`renamed by a test`,
    );
    expect(drawn?.copies).toBe(2);
    expect(textOf(cardsOf(harness, BIDS, bid.id)[0])).toContain('Live card bid, renamed');
    expect(textOf(cardsOf(harness, GENERAL, bid.id)[0])).toContain('Live card bid, renamed');
    // Queued behind each channel's other lines (Slack's pace), posted after the redraw.
    for (const [channel, ts] of [
      [BIDS, inBids],
      [GENERAL, inGeneral],
    ] as const)
      await eventually(
        () => harness.slack.threadOf(channel, ts).at(-1)?.text === 'renamed by a test',
        `the line under the card in ${channel}`,
      );
  });

  it('a card deleted in Slack is forgotten; a bid the key cannot see draws nothing', async () => {
    const bid = await newBid(harness, 'Deleted card bid');
    const slack = harness.request().slack;
    const ts = await postPipelineCard(harness.context, slack, harness.slack.teamId, BIDS, bid);
    // Someone deletes the card in Slack (the app's own client has no chat.delete).
    await new WebClient(BOT_TOKEN, { slackApiUrl: harness.slack.apiUrl }).chat.delete({ channel: BIDS, ts });
    const drawn = await redrawEverywhere(harness.context, slack, harness.slack.teamId, bid.id);
    expect(drawn?.copies).toBe(0);
    expect(await harness.context.store.pipelineMessages(harness.slack.teamId, bid.id)).toEqual([]);
    expect(await redrawEverywhere(harness.context, slack, harness.slack.teamId, 'pl-beta')).toBeNull();
  });
});
