import type { AppSlack } from '../../adapters/app-slack.ts';
import { API_KEY_CHARACTERS } from '../../config.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { reply } from '../../shared/feature-context.ts';
import { ConnectIds } from '../../shared/ids.ts';
import { sentenceMessage } from '../../shared/views/messages.ts';
import { type Mrkdwn, mrkdwn } from '../../shared/views/mrkdwn.ts';
import { fieldErrors, plainSentence } from '../../shared/views/plain-sentence.ts';
import { publishHome } from '../home/index.ts';
import { safeMetadata } from './connect-metadata.ts';
import { KEY_MISCOPIED, type SubmissionAnswer, tryKey } from './key-trial.ts';
import { hiddenBidsSentence, hiddenCount, seenBidIds } from './seen-bids.ts';
import { GUEST_LINKED_SENTENCE, PERSONAL_LINKED_SENTENCE } from './views/connect-views.ts';

/**
 * The personal modal's submission (`/tender connect me`): the same checks as the workspace's key,
 * with the workspace's service (a person's key cannot point elsewhere); saved encrypted for this
 * person alone.
 */
export async function submitPersonalKey(
  context: FeatureContext,
  slack: AppSlack,
  args: { teamId: string; userId: string; key: string; privateMetadata: string },
): Promise<SubmissionAnswer> {
  const key = args.key.trim();
  if (!key) return fieldErrors({ [ConnectIds.keyBlock]: plainSentence`Paste your API key.` });
  if (!API_KEY_CHARACTERS.test(key)) return fieldErrors({ [ConnectIds.keyBlock]: KEY_MISCOPIED });
  // Only ever the operator's service: never the address chosen for the workspace's key.
  const serviceUrl = context.clients.operatorServiceUrl;
  const problem = await tryKey(context.clients.trial(serviceUrl, key));
  if (problem)
    return fieldErrors({
      [ConnectIds.keyBlock]:
        problem.field === 'url'
          ? plainSentence`The service did not answer just now, so the key could not be checked. Try again in a few minutes.`
          : problem.sentence,
    });
  // The bids this person sees before and after: their own key may hide some the shared key showed.
  const bidsBefore = await seenBidIds(() => context.clients.forPerson(args.teamId, args.userId));
  await context.clients.forgetPerson(args.teamId, args.userId);
  await context.store.savePersonalKey({
    teamId: args.teamId,
    userId: args.userId,
    encryptedApiKey: context.cipher.encrypt(key),
    serviceUrl,
    connectedAt: context.clock(),
  });
  context.logger.info({ teamId: args.teamId, userId: args.userId }, 'personal key linked');
  const { channelId } = safeMetadata(args.privateMetadata);
  const hidden = hiddenCount(
    bidsBefore,
    await seenBidIds(() => context.clients.forPerson(args.teamId, args.userId)),
  );
  // A guest's own key changes what they read, never what they may do.
  const guest = await context.users
    .facts(args.userId, args.teamId)
    .then((facts) => facts.isGuest)
    .catch(() => false);
  const linked = guest ? GUEST_LINKED_SENTENCE : PERSONAL_LINKED_SENTENCE;
  if (channelId)
    await slack.chat
      .postEphemeral({
        channel: channelId,
        user: args.userId,
        text: mrkdwn`${linked}${hidden > 0 ? hiddenBidsSentence(hidden, 'linked') : mrkdwn``}`,
      })
      .catch((error) =>
        context.logger.warn({ err: error, teamId: args.teamId }, 'could not confirm the personal key'),
      );
  await publishHome(context, slack, args.teamId, args.userId).catch(() => undefined);
  return null;
}

/**
 * `/tender disconnect me`: unlinks the person's own key, deleted from the store (so from every
 * copy of the app) and from memory.
 */
export async function disconnectPersonalKey(context: FeatureContext, request: SlackRequest): Promise<void> {
  const seen = () => seenBidIds(() => context.clients.forPerson(request.teamId, request.userId));
  const bidsBefore = await seen();
  await context.clients.forgetPerson(request.teamId, request.userId);
  const removed = await context.store.removePersonalKey(request.teamId, request.userId);
  context.logger.info({ teamId: request.teamId, userId: request.userId, removed }, 'personal key unlinked');
  const hidden = removed ? hiddenCount(bidsBefore, await seen()) : 0;
  const sentence = removed
    ? mrkdwn`Unlinked: your own key is deleted. ${await afterUnlinking(context, request.teamId)}${hidden > 0 ? hiddenBidsSentence(hidden, 'unlinked') : mrkdwn``}`
    : mrkdwn`You have no key of your own linked. \`/tender connect me\` links one.`;
  await reply(request, sentenceMessage(sentence));
  await publishHome(context, request.slack, request.teamId, request.userId).catch(() => undefined);
}

/** What a person's commands use once their own key is gone. */
async function afterUnlinking(context: FeatureContext, teamId: string): Promise<Mrkdwn> {
  if (await context.store.getConnection(teamId))
    return mrkdwn`Your commands now use the workspace’s key, with its shared bookmark list.`;
  if (context.config.PROCUREMENT_API_KEY)
    return mrkdwn`Your commands now use the key Tenderbot was set up with, with its shared bookmark list.`;
  return mrkdwn`This workspace has no key yet, so your commands will not work until an admin runs \`/tender connect\` or you link a key again with \`/tender connect me\`.`;
}
