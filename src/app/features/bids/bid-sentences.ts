/* Sentences the bid commands, card changes and forms all say. */
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { reply } from '../../shared/feature-context.ts';
import type { KeySource } from '../../shared/views/key-identity.ts';
import { sentenceMessage } from '../../shared/views/messages.ts';
import { code, type Mrkdwn, mrkdwn } from '../../shared/views/mrkdwn.ts';
import { bidReferences } from './bid-references.ts';

export const say = (request: SlackRequest, sentence: Mrkdwn) => reply(request, sentenceMessage(sentence));

/** A bid not found, named as the person named it (`BID-7`, or the id they typed): never an id they did not see. */
export function notFoundSentence(named: string, source: KeySource): Mrkdwn {
  return source === 'personal'
    ? mrkdwn`No bid ${code(named, 300)} can be seen with your own key: it may be mistyped, or not shared with you. \`/tender pipelines all\` lists the bids you can see.`
    : mrkdwn`No bid ${code(named, 300)} can be seen with this workspace’s key: it may be mistyped, or not shared with the person who made the key. \`/tender pipelines all\` lists the bids it can see.`;
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
  // Only a service id gets a reference: anything else is what was typed (or a forged value), shown as it is.
  const reference = SERVICE_ID.test(pipelineId)
    ? (await bidReferences(context, teamId, [pipelineId])).get(pipelineId)
    : undefined;
  return notFoundSentence(reference ?? pipelineId, source);
}

export function forbiddenSentence(source: KeySource): Mrkdwn {
  return source === 'personal'
    ? mrkdwn`The service did not let you change this bid with your own key: you can only view it (or are a viewer in the organisation). Nothing was changed. Ask the bid’s owner to give you edit access.`
    : mrkdwn`The service did not let this workspace’s key change this bid: the person who made the key can only view it (or is a viewer in the organisation). Nothing was changed. Ask the bid’s owner to give them edit access, or an admin to connect a key that can edit bids.`;
}
