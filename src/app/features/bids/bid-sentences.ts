/* Sentences the bid commands, card changes and forms all say. */
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { reply } from '../../shared/feature-context.ts';
import type { KeySource } from '../../shared/views/key-identity.ts';
import { sentenceMessage } from '../../shared/views/messages.ts';
import { code, type Mrkdwn, mrkdwn } from '../../shared/views/mrkdwn.ts';
import { bidReferenceText } from './bid-references.ts';

export const say = (request: SlackRequest, sentence: Mrkdwn) => reply(request, sentenceMessage(sentence));

/**
 * A bid not found, named as the person named it (`BID-7`, or the id they typed): never an id they
 * did not see. Null: one nobody was shown (a stale or forged button's), named by nothing.
 */
export function notFoundSentence(named: string | null, source: KeySource): Mrkdwn {
  const bid = named === null ? mrkdwn`That bid cannot` : mrkdwn`No bid ${code(named, 300)} can`;
  const which = named === null ? mrkdwn`deleted` : mrkdwn`mistyped`;
  return source === 'personal'
    ? mrkdwn`${bid} be seen with your own key: it may be ${which}, or not shared with you. \`/tender pipelines all\` lists the bids you can see.`
    : mrkdwn`${bid} be seen with this workspace’s key: it may be ${which}, or not shared with the person who made the key. \`/tender pipelines all\` lists the bids it can see.`;
}

const SERVICE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A bid not found by its id (a button's, or one resolved from what was typed), named as its card
 * names it (`BID-7`), so no one is shown an id they never saw.
 */
export async function bidNotFoundSentence(
  context: FeatureContext,
  teamId: string,
  pipelineId: string,
  source: KeySource,
): Promise<Mrkdwn> {
  // A bid's reference only if it was given one when it was shown or started: a bid the service does
  // not know (deleted, or a forged or stale id) is never given one now, so no BID-n names nothing.
  // Anything but a service id is what was typed (or a forged value), shown as it is.
  if (!SERVICE_ID.test(pipelineId)) return notFoundSentence(pipelineId, source);
  const number = (await context.store.givenBidReferenceNumbers(teamId, [pipelineId])).get(pipelineId);
  return notFoundSentence(number === undefined ? null : bidReferenceText(number), source);
}

export function forbiddenSentence(source: KeySource): Mrkdwn {
  return source === 'personal'
    ? mrkdwn`The service did not let you change this bid with your own key: you can only view it (or are a viewer in the organisation). Nothing was changed. Ask the bid’s owner to give you edit access.`
    : mrkdwn`The service did not let this workspace’s key change this bid: the person who made the key can only view it (or is a viewer in the organisation). Nothing was changed. Ask the bid’s owner to give them edit access, or an admin to connect a key that can edit bids.`;
}
