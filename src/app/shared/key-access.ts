import type { WorkspaceClient } from '../adapters/workspace-clients.ts';
import { KeyUnreadableError, PersonalKeyRequiredError, ServiceUrlRefusedError } from './errors.ts';
import { PERSONAL_KEY_REQUIRED_SENTENCE } from './failure-sentences.ts';
import type { FeatureContext, SlackRequest } from './feature-context.ts';
import { reply } from './feature-context.ts';
import { sentenceMessage } from './views/messages.ts';
import type { Mrkdwn } from './views/mrkdwn.ts';

/** Workspace owners and admins may connect a key, and so may whoever connected the current one. */
export async function mayManageKey(
  context: FeatureContext,
  teamId: string,
  userId: string,
): Promise<boolean> {
  if ((await context.users.facts(userId, teamId)).isAdmin) return true;
  return (await context.store.getConnection(teamId))?.connectedBy === userId;
}

/** Whether the workspace's stored key can be decrypted with this ENCRYPTION_KEY. */
export async function keyReadable(context: FeatureContext, teamId: string): Promise<boolean> {
  try {
    await context.clients.forTeam(teamId);
    return true;
  } catch (error) {
    // Unreadable, or stored with a service address that is not allowed: either way, to connect again.
    if (error instanceof KeyUnreadableError || error instanceof ServiceUrlRefusedError) return false;
    throw error;
  }
}

/**
 * The client a person's change is made with, or null once they were told why not: the workspace
 * asks for personal keys to change anything and they have not linked one (nothing is written).
 */
export async function writerOrSentence(
  context: FeatureContext,
  request: SlackRequest,
): Promise<WorkspaceClient | null> {
  return writerOr(context, request.teamId, request.userId, (sentence) =>
    reply(request, sentenceMessage(sentence)),
  );
}

/**
 * The client a person's change is made with, or null once `refuse` said why not (the workspace
 * requires each person's own key for changes and this person has none): a reply, a field error
 * of a window's submission, or a window's text.
 */
export async function writerOr(
  context: FeatureContext,
  teamId: string,
  userId: string,
  refuse: (sentence: Mrkdwn) => Promise<unknown>,
): Promise<WorkspaceClient | null> {
  try {
    return await context.clients.forWrite(teamId, userId);
  } catch (error) {
    if (!(error instanceof PersonalKeyRequiredError)) throw error;
    await refuse(PERSONAL_KEY_REQUIRED_SENTENCE);
    return null;
  }
}
