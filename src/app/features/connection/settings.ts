import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { reply } from '../../shared/feature-context.ts';
import { sentenceMessage } from '../../shared/views/messages.ts';
import { mrkdwn } from '../../shared/views/mrkdwn.ts';

const SETTINGS_USAGE = mrkdwn`\`/tender settings personal-keys required\` makes everyone use their own key to change anything (bookmarks, comments, bids); \`/tender settings personal-keys optional\` lets the workspace’s key make changes again. Only workspace owners and admins can change this.`;

/**
 * `/tender settings [personal-keys required|optional]`: whether changes need each person's own key.
 * Anyone may read the setting; only workspace owners and admins (users.info) may change it. Not
 * whoever connected the workspace's key: that lets them change the key, not the workspace's rules.
 */
export async function settingsCommand(
  context: FeatureContext,
  request: SlackRequest,
  rest: string,
): Promise<void> {
  const words = rest.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const settings = await context.store.getWorkspaceSettings(request.teamId);
  if (words.length === 0) {
    const now = settings.personalKeysForWrites
      ? mrkdwn`*Personal keys*: required for changes. Everyone makes changes (bookmarks, comments, bids) with their own key, linked with \`/tender connect me\`; without one, they can still search and read.`
      : mrkdwn`*Personal keys*: optional. People who linked their own key make changes with it; everyone else uses the workspace’s key.`;
    await reply(request, sentenceMessage(mrkdwn`${now}\n${SETTINGS_USAGE}`));
    return;
  }
  const [what, choice] = words;
  if (what !== 'personal-keys' || (choice !== 'required' && choice !== 'optional') || words.length > 2) {
    await reply(request, sentenceMessage(SETTINGS_USAGE));
    return;
  }
  if (!(await context.users.facts(request.userId, request.teamId)).isAdmin) {
    const sentence = mrkdwn`Only a workspace owner or admin can change whether changes need each person’s own key. Nothing was changed.`;
    await reply(request, sentenceMessage(sentence));
    return;
  }
  const required = choice === 'required';
  await context.store.saveWorkspaceSettings({ teamId: request.teamId, personalKeysForWrites: required });
  context.logger.info(
    { teamId: request.teamId, userId: request.userId, personalKeysForWrites: required },
    'workspace settings changed',
  );
  const sentence = required
    ? mrkdwn`Done: from now on, changes (bookmarks, comments, bids) need each person’s own key. People without one can still search and read, and are told to run \`/tender connect me\` when they try to change something.`
    : mrkdwn`Done: people without a key of their own can make changes again, with the workspace’s key.`;
  await reply(request, sentenceMessage(sentence));
}
