/* Sentences the bid commands, card changes and forms all say. */
import type { SlackRequest } from '../../shared/feature-context.ts';
import { reply } from '../../shared/feature-context.ts';
import type { KeySource } from '../../shared/views/key-identity.ts';
import { sentenceMessage } from '../../shared/views/messages.ts';
import { code, type Mrkdwn, mrkdwn } from '../../shared/views/mrkdwn.ts';

export const say = (request: SlackRequest, sentence: Mrkdwn) => reply(request, sentenceMessage(sentence));

export function notFoundSentence(id: string, source: KeySource): Mrkdwn {
  return source === 'personal'
    ? mrkdwn`No bid with the id ${code(id, 300)} can be seen with your own key: it may be mistyped, or not shared with you. \`/tender pipelines all\` lists the bids you can see.`
    : mrkdwn`No bid with the id ${code(id, 300)} can be seen with this workspace’s key: it may be mistyped, or not shared with the person who made the key. \`/tender pipelines all\` lists the bids it can see.`;
}

export function forbiddenSentence(source: KeySource): Mrkdwn {
  return source === 'personal'
    ? mrkdwn`The service did not let you change this bid with your own key: you can only view it (or are a viewer in the organisation). Nothing was changed. Ask the bid’s owner to give you edit access.`
    : mrkdwn`The service did not let this workspace’s key change this bid: the person who made the key can only view it (or is a viewer in the organisation). Nothing was changed. Ask the bid’s owner to give them edit access, or an admin to connect a key that can edit bids.`;
}
