import { LRUCache } from 'lru-cache';
import { NotFoundError } from '../../../client/errors.ts';
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import type { Pipeline } from '../../../contract/schemas.ts';
import type { AppSlack } from '../../adapters/app-slack.ts';
import { classifySlackError, isMessageGone } from '../../adapters/slack-errors.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { queuePerKey } from '../../shared/queue-per-key.ts';
import { sentenceMessage } from '../../shared/views/messages.ts';
import { type Mrkdwn, mrkdwn } from '../../shared/views/mrkdwn.ts';
import type { PipelineMessage } from '../../storage/message-store.ts';
import { bidReferences } from './bid-references.ts';
import { tenderFactsOf } from './tender-deadlines.ts';
import { pipelineCard } from './views/pipeline-card.ts';

/**
 * One live card per pipeline, everywhere: every message that shows a pipeline is remembered
 * (channel and ts), and any change made through Tenderbot redraws all of them from the service's
 * latest answer. Redraws of one pipeline run one after another, each from a GET made when its turn
 * comes, so an older, slower redraw can never land after a newer one; a copy is also never drawn
 * from an answer older than the one drawn last (updatedAt).
 */
const serialised = queuePerKey();
/**
 * The updatedAt last drawn, per pipeline: bounded (a copy may run for months over many bids);
 * a forgotten entry only means the next redraw is not compared with an older one.
 */
const lastDrawn = new LRUCache<string, string>({ max: 10_000, ttl: 10 * 60_000 });

export const PIPELINE_EVENT = 'tenderbot_pipeline';

/**
 * Reads the pipeline afresh and redraws every remembered message showing it; forgets messages
 * Slack says are gone. Resolves with the pipeline as drawn, or null when the key can no longer see it.
 */
export async function redrawEverywhere(
  context: FeatureContext,
  slack: AppSlack,
  teamId: string,
  pipelineId: string,
  /**
   * Who reads the bid: whoever made the change (their own key where linked, which may be the only
   * one that sees the bid); the workspace's key when not given. Every card shows the same bid.
   */
  reader?: ProcurementClient,
  /**
   * The change to tell, as a line under every live card (its thread): one line per card, whatever
   * card, command or form the change came from. Told after the redraw, in the same turn, so two
   * changes' lines come in the order the changes were drawn.
   */
  told?: (pipeline: Pipeline) => Mrkdwn,
): Promise<{ pipeline: Pipeline; copies: number } | null> {
  const key = `${teamId}\u0000${pipelineId}`;
  return serialised(key, async () => {
    const { client } = reader ? { client: reader } : await context.clients.forTeam(teamId);
    let pipeline: Pipeline;
    try {
      pipeline = await client.pipelines.get(pipelineId);
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
    const places = await context.store.pipelineMessages(teamId, pipelineId);
    const drawn = lastDrawn.get(key);
    if (drawn && Date.parse(drawn) > Date.parse(pipeline.updatedAt)) {
      // An answer older than the one already on the cards (another copy of the app read later): keep those.
      if (told) tellUnder(context, slack, places, told(pipeline));
      return { pipeline, copies: 0 };
    }
    lastDrawn.set(key, pipeline.updatedAt);
    const message = await cardOf(context, teamId, pipeline, client);
    let copies = 0;
    const live: PipelineMessage[] = [];
    await Promise.all(
      places.map(async (place) => {
        try {
          await slack.chat.update({
            channel: place.channelId,
            ts: place.ts,
            text: message.text,
            blocks: message.blocks,
            metadata: { event_type: PIPELINE_EVENT, event_payload: { pipeline_id: pipeline.id } },
          });
          copies++;
          live.push(place);
        } catch (error) {
          if (isMessageGone(error)) {
            await context.store.forgetPipelineMessage(teamId, place.channelId, place.ts);
            context.logger.info(
              { teamId, pipelineId, channel: place.channelId },
              'forgot a pipeline card that is gone',
            );
          } else {
            context.logger.warn(
              { err: error, teamId, pipelineId, channel: place.channelId },
              'could not redraw a pipeline card',
            );
            // Still there (Slack was only busy): the change is still told under it.
            live.push(place);
          }
        }
      }),
    );
    // In the order the cards were posted, so each channel's line comes in a steady order.
    if (told)
      tellUnder(
        context,
        slack,
        places.filter((place) => live.includes(place)),
        told(pipeline),
      );
    return { pipeline, copies };
  });
}

/**
 * Posts the pipeline's card in a channel for everyone and remembers it. Throws Slack's error. In a
 * direct message (a `D…` channel: the Home tab's Open) the new card takes the earlier one's place,
 * so one person's messages hold one live card of a bid, and a change is told there once.
 */
export async function postPipelineCard(
  context: FeatureContext,
  slack: AppSlack,
  teamId: string,
  channelId: string,
  pipeline: Pipeline,
  /** Who reads the bid's tender (for its deadline): the workspace's key when not given. */
  reader?: ProcurementClient,
): Promise<string> {
  const message = await cardOf(context, teamId, pipeline, reader);
  const posted = await slack.chat.postMessage({
    channel: channelId,
    text: message.text,
    blocks: message.blocks,
    unfurl_links: false,
    metadata: { event_type: PIPELINE_EVENT, event_payload: { pipeline_id: pipeline.id } },
  });
  const ts = posted.ts as string;
  await context.store.rememberPipelineMessage({ pipelineId: pipeline.id, teamId, channelId, ts });
  if (channelId.startsWith('D'))
    await replaceEarlierCopies(context, slack, teamId, channelId, pipeline.id, ts);
  return ts;
}

/** Forgets the bid's earlier cards in a direct message and says there that the newer card is below; a failure to say so is only logged. */
async function replaceEarlierCopies(
  context: FeatureContext,
  slack: AppSlack,
  teamId: string,
  channelId: string,
  pipelineId: string,
  kept: string,
): Promise<void> {
  const earlier = (await context.store.pipelineMessages(teamId, pipelineId)).filter(
    (place) => place.channelId === channelId && place.ts !== kept,
  );
  for (const place of earlier) {
    await context.store.forgetPipelineMessage(teamId, channelId, place.ts);
    const moved = sentenceMessage(mrkdwn`This bid’s card is now the newer one below.`);
    await slack.chat
      .update({ channel: channelId, ts: place.ts, text: moved.text, blocks: moved.blocks })
      .catch((error: unknown) =>
        context.logger.warn({ err: error, teamId }, 'could not retire an earlier bid card'),
      );
  }
}

/** The card as drawn now, naming who started the bid where Tenderbot knows it, and its dates after the tender closes. */
async function cardOf(
  context: FeatureContext,
  teamId: string,
  pipeline: Pipeline,
  reader: ProcurementClient | undefined,
) {
  const starter = (await context.store.bidStarters(teamId, [pipeline.id])).get(pipeline.id);
  const reference = (await bidReferences(context, teamId, [pipeline.id])).get(pipeline.id) as string;
  const tender = await tenderFactsOf(
    context,
    teamId,
    pipeline.tenderId,
    async () => reader ?? (await context.clients.forTeam(teamId)).client,
  );
  return pipelineCard(pipeline, context.store, context.clock(), {
    reference,
    ...(starter ? { starter } : {}),
    tenderDeadline: tender.deadline,
    tenderTitle: tender.title,
  });
}

/**
 * Tells a change under each card (a line in its thread, "<@alice> moved stage 2, Pricing, of Hospital
 * cleaning to Completed"): one line per card. A card that is itself a thread reply gets it in that thread.
 * Returns once the lines are queued, not posted: a channel's lines go one after another, in the
 * order they were queued (Slack takes about one post a second a channel: four cards' lines at once
 * were three 429s, their retries collided, and lines were lost; waiting for them held the next
 * change's redraw and brought "slow" notices). A failure is only logged.
 */
export function tellUnder(
  context: FeatureContext,
  slack: AppSlack,
  places: readonly Pick<PipelineMessage, 'channelId' | 'ts' | 'threadTs'>[],
  text: Mrkdwn,
): void {
  for (const place of places) {
    void serialised(`lines\u0000${place.channelId}`, () =>
      postLine(slack, place, text).catch((error) =>
        context.logger.warn(
          { err: error, channel: place.channelId },
          'could not add a line to the card’s thread',
        ),
      ),
    );
  }
}

/** Tries a line this many times in all when Slack still says to slow down after its client's own retries. */
const LINE_ATTEMPTS = 4;

async function postLine(
  slack: AppSlack,
  place: Pick<PipelineMessage, 'channelId' | 'ts' | 'threadTs'>,
  text: Mrkdwn,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await slack.chat.postMessage({
        channel: place.channelId,
        thread_ts: place.threadTs ?? place.ts,
        text,
        unfurl_links: false,
      });
      return;
    } catch (error) {
      const failure = classifySlackError(error);
      if (attempt >= LINE_ATTEMPTS || failure.kind !== 'rate-limited') throw error;
      await new Promise((resolve) =>
        setTimeout(resolve, 1000 * Math.max(attempt, failure.retryAfterSeconds)),
      );
    }
  }
}
