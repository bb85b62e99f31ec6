import type { AppSlack } from '../../adapters/app-slack.ts';
import { API_KEY_CHARACTERS } from '../../config.ts';
import { describeFailure } from '../../shared/failure-sentences.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { reply } from '../../shared/feature-context.ts';
import { ConnectIds } from '../../shared/ids.ts';
import { mayManageKey } from '../../shared/key-access.ts';
import { forgetRegions } from '../../shared/regions.ts';
import { sentenceMessage } from '../../shared/views/messages.ts';
import {
  code,
  escapeMrkdwn,
  type Mrkdwn,
  mention,
  mrkdwn,
  text as plain,
} from '../../shared/views/mrkdwn.ts';
import { fieldErrors, plainOf, plainSentence } from '../../shared/views/plain-sentence.ts';
import { button, section } from '../../shared/views/tender-card.ts';
import { withinBudget } from '../../shared/within-budget.ts';
import { publishHome } from '../home/index.ts';
import { connectMetadata, safeMetadata } from './connect-metadata.ts';
import { KEY_MISCOPIED, type SubmissionAnswer, tryKey } from './key-trial.ts';
import { disconnectPersonalKey, submitPersonalKey } from './personal-key.ts';
import { hiddenBidsSentence, hiddenCount, seenBidIds } from './seen-bids.ts';
import {
  CONNECTED_SENTENCE,
  connectCheckingView,
  connectDoneView,
  connectModal,
} from './views/connect-views.ts';

/** Said to someone who may not change the key, naming the command to ask an admin for, and their own key's. */
function refusal(command: 'connect' | 'disconnect'): Mrkdwn {
  return mrkdwn`Only a workspace owner or admin (or whoever connected the current key) can change the workspace’s API key. Ask one of them to run ${code(`/tender ${command}`)}. ${
    command === 'connect'
      ? mrkdwn`To link a key of your own, use “Link your own key” on Tenderbot’s Home tab, or \`/tender connect me\`.`
      : mrkdwn`A key of your own is unlinked with \`/tender disconnect me\`.`
  }`;
}
const REFUSAL = refusal('connect');

/**
 * `/tender connect [me]`: `me` opens the window for the person's own key (anyone); alone, the
 * workspace's key's window for those who may change it, and for anyone else a sentence naming
 * `/tender connect me` and the Home tab's "Link your own key".
 */
export async function connectCommand(
  context: FeatureContext,
  request: SlackRequest,
  rest: string,
  triggerId: string,
): Promise<void> {
  const word = rest.trim().toLowerCase();
  if (word !== '' && word !== 'me') {
    const sentence = mrkdwn`\`/tender connect\` connects the workspace’s key (owners and admins); \`/tender connect me\` links a key of your own.`;
    await reply(request, sentenceMessage(sentence));
    return;
  }
  await openConnectModal(
    context,
    request.slack,
    {
      teamId: request.teamId,
      userId: request.userId,
      channelId: request.channelId,
      triggerId,
      forMe: word === 'me',
    },
    async (sentence) => reply(request, sentenceMessage(sentence)),
  );
}

/**
 * `/tender connect [me]` (or the Home tab's button): opens the modal at once, while the trigger is
 * fresh. `forMe` opens the window for the person's own key. Without it, those who may change the
 * workspace's key get its window; anyone else is told how to link their own, except from the Home
 * tab (no channel), whose button reads "Link your own key" for them and opens that window.
 */
export async function openConnectModal(
  context: FeatureContext,
  slack: AppSlack,
  args: { teamId: string; userId: string; channelId: string | null; triggerId: string; forMe?: boolean },
  refuse: (sentence: Mrkdwn) => Promise<void>,
): Promise<void> {
  let forMe = args.forMe === true;
  if (!forMe && !(await mayManageKey(context, args.teamId, args.userId))) {
    if (args.channelId !== null) {
      await refuse(REFUSAL);
      return;
    }
    forMe = true;
  }
  const metadata = connectMetadata(args.channelId, forMe);
  await slack.views.open({
    trigger_id: args.triggerId,
    view: connectModal(
      metadata,
      context.config.PROCUREMENT_API_URL,
      undefined,
      forMe,
      context.clients.allowsOtherServiceUrls,
    ),
  });
}

const SERVICE_URL_REFUSED = plainSentence`Tenderbot connects only to the service it was set up with (and addresses its operator allows). Leave this empty to use it.`;

/** Slack closes a submission that is not answered within 3 s; the check gets this long, then "checking…". */
export const CONNECT_ACK_BUDGET_MS = 2000;

/**
 * Submits the connect modal within Slack's 3 s whatever users.info or the service do: the answer
 * itself when the check is quick, else a "checking" view at once, updated with the outcome.
 */
export async function submitConnectWithinBudget(
  context: FeatureContext,
  slack: AppSlack,
  args: Parameters<typeof submitConnectModal>[2] & { viewId: string | undefined },
  ack: (answer?: unknown) => Promise<void>,
  budgetMs = CONNECT_ACK_BUDGET_MS,
): Promise<void> {
  const { quick, outcome } = await withinBudget(submitConnectModal(context, slack, args), budgetMs);
  const problemOf = (result: { error: unknown }) => {
    context.logger.warn({ err: result.error, teamId: args.teamId }, 'the connect check failed');
    return describeFailure(result.error).sentence;
  };
  if (quick) {
    if ('value' in quick) return ack(quick.value ?? undefined);
    return ack(fieldErrors({ [ConnectIds.keyBlock]: plainOf(problemOf(quick)) }));
  }
  const { forMe } = safeMetadata(args.privateMetadata);
  await ack({ response_action: 'update', view: connectCheckingView(forMe) });
  const result = await outcome;
  // A failure is one of the app's mrkdwn sentences; the fields' refusals are plain sentences.
  const problem =
    'error' in result
      ? problemOf(result)
      : result.value
        ? escapeMrkdwn(Object.values(result.value.errors).join(' '))
        : null;
  if (!args.viewId) return;
  const view = problem
    ? connectModal(
        args.privateMetadata,
        context.config.PROCUREMENT_API_URL,
        problem,
        forMe,
        context.clients.allowsOtherServiceUrls,
      )
    : connectDoneView(forMe);
  await slack.views
    .update({ view_id: args.viewId, view: view })
    .catch((error) =>
      context.logger.warn({ err: error, teamId: args.teamId }, 'could not update the connect modal'),
    );
}

/**
 * The connect modal's submission: the key is tried against the service before it is saved; a
 * refusal shows on the field. Saved encrypted; never logged or sent back into Slack.
 */
export async function submitConnectModal(
  context: FeatureContext,
  slack: AppSlack,
  args: { teamId: string; userId: string; key: string; serviceUrl: string; privateMetadata: string },
): Promise<SubmissionAnswer> {
  if (safeMetadata(args.privateMetadata).forMe) return submitPersonalKey(context, slack, args);
  if (!(await mayManageKey(context, args.teamId, args.userId)))
    return fieldErrors({ [ConnectIds.keyBlock]: plainOf(REFUSAL) });
  const key = args.key.trim();
  if (!key) return fieldErrors({ [ConnectIds.keyBlock]: plainSentence`Paste the API key.` });
  if (!API_KEY_CHARACTERS.test(key)) return fieldErrors({ [ConnectIds.keyBlock]: KEY_MISCOPIED });
  const serviceUrl = args.serviceUrl.trim() || null;
  if (serviceUrl && !/^https?:\/\/[^\s]+$/.test(serviceUrl)) {
    return fieldErrors({
      [ConnectIds.urlBlock]: plainSentence`Give the service’s address, such as https://procurement.example.com.`,
    });
  }
  // Only the operator's service or the addresses it allows: any other server would receive the
  // key, and would let a workspace admin reach into the network Tenderbot runs in.
  if (serviceUrl && !context.clients.allowsServiceUrl(serviceUrl))
    return fieldErrors({ [ConnectIds.urlBlock]: SERVICE_URL_REFUSED });
  const trial = context.clients.trial(serviceUrl, key);
  const problem = await tryKey(trial);
  if (problem)
    return fieldErrors({
      [problem.field === 'url' ? ConnectIds.urlBlock : ConnectIds.keyBlock]: problem.sentence,
    });
  // Bookmarks and bids are seen per key creator: read both before the key changes, to say if they do.
  const [bookmarksBefore, bidsBefore] = await Promise.all([
    bookmarkIdsOrNull(context, args.teamId),
    seenBidIds(() => context.clients.forTeam(args.teamId)),
  ]);
  await context.clients.forget(args.teamId);
  await context.store.saveConnection({
    teamId: args.teamId,
    encryptedApiKey: context.cipher.encrypt(key),
    serviceUrl,
    connectedBy: args.userId,
    connectedAt: context.clock().toISOString(),
  });
  // The regions are read again with the new key (and service).
  forgetRegions(context, args.teamId);
  context.logger.info({ teamId: args.teamId, userId: args.userId }, 'workspace key connected');
  const { channelId } = safeMetadata(args.privateMetadata);
  if (channelId) {
    const [bookmarksAfter, bidsAfter] = await Promise.all([
      bookmarkIdsOrNull(context, args.teamId),
      seenBidIds(() => context.clients.forTeam(args.teamId)),
    ]);
    const changed =
      bookmarksBefore !== null && bookmarksAfter !== null && !sameIds(bookmarksBefore, bookmarksAfter);
    const bidsHidden = hiddenCount(bidsBefore, bidsAfter);
    await slack.chat
      .postEphemeral({
        channel: channelId,
        user: args.userId,
        text: mrkdwn`${CONNECTED_SENTENCE}${
          changed
            ? mrkdwn` The bookmark list has changed: bookmarks belong to whoever made the key, so the workspace now shares this key’s list (${plain(tenders(bookmarksAfter.size))}) instead of the previous one (${plain(tenders(bookmarksBefore.size))}).`
            : mrkdwn``
        }${bidsHidden > 0 ? hiddenBidsSentence(bidsHidden, 'workspace') : mrkdwn``}`,
      })
      .catch((error) =>
        context.logger.warn({ err: error, teamId: args.teamId }, 'could not confirm the connection'),
      );
  }
  await publishHome(context, slack, args.teamId, args.userId).catch(() => undefined);
  return null;
}

/** The workspace's bookmarked tender ids, or null when they cannot be read now or are more than 100. */
async function bookmarkIdsOrNull(context: FeatureContext, teamId: string): Promise<Set<string> | null> {
  try {
    const { client } = await context.clients.forTeam(teamId);
    const page = await client.bookmarks.list({ limit: 100 }, { timeoutMs: 1500 });
    if (page.pagination.total > page.data.length) return null;
    return new Set(page.data.map((bookmark) => bookmark.tenderId));
  } catch {
    return null;
  }
}

const tenders = (count: number) => `${count} ${count === 1 ? 'tender' : 'tenders'}`;

function sameIds(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((id) => b.has(id));
}

/**
 * `/tender disconnect [me]`. `me` (and the word alone, from someone who may not change the
 * workspace's key but linked their own) unlinks the person's own key at once: it is theirs, and
 * nothing changes for anyone else. The workspace's key is asked about first, since every command
 * in the workspace changes with it.
 */
export async function disconnectCommand(
  context: FeatureContext,
  request: SlackRequest,
  rest = '',
): Promise<void> {
  const word = rest.trim().toLowerCase();
  if (word !== '' && word !== 'me') {
    const sentence = mrkdwn`\`/tender disconnect\` removes the workspace’s key (owners and admins); \`/tender disconnect me\` unlinks your own.`;
    await reply(request, sentenceMessage(sentence));
    return;
  }
  const mayManage = await mayManageKey(context, request.teamId, request.userId);
  if (word === 'me' || (!mayManage && (await context.store.getPersonalKey(request.teamId, request.userId))))
    return disconnectPersonalKey(context, request);
  if (!mayManage) {
    const sentence = refusal('disconnect');
    await reply(request, sentenceMessage(sentence));
    return;
  }
  const connection = await context.store.getConnection(request.teamId);
  if (!connection) {
    const sentence = mrkdwn`This workspace has no key of its own to disconnect.${(await context.store.getPersonalKey(request.teamId, request.userId)) ? mrkdwn` Your own key is unlinked with \`/tender disconnect me\`.` : mrkdwn``}`;
    await reply(request, sentenceMessage(sentence));
    return;
  }
  const after = context.config.PROCUREMENT_API_KEY
    ? mrkdwn`every \`/tender\` command here will use the key Tenderbot was set up with, and the bookmark list will be that key’s`
    : mrkdwn`no \`/tender\` command will work here until someone runs \`/tender connect\``;
  const sentence = mrkdwn`Disconnect this workspace’s key, connected by ${mention(connection.connectedBy)}? Then ${after}.`;
  await reply(request, {
    text: sentence,
    blocks: [
      section(sentence),
      {
        type: 'actions',
        elements: [
          button('Disconnect', ConnectIds.disconnect, 'disconnect', 'danger'),
          button('Keep it', ConnectIds.keepKey, 'keep'),
        ],
      },
    ],
  });
}

/** "Disconnect" under the question: the key is deleted (if the clicker still may), the question replaced. */
export async function confirmDisconnect(context: FeatureContext, request: SlackRequest): Promise<void> {
  if (!(await mayManageKey(context, request.teamId, request.userId))) {
    const sentence = refusal('disconnect');
    await reply(request, sentenceMessage(sentence), true);
    return;
  }
  // The decrypted key and its client leave memory with the connection.
  await context.clients.forget(request.teamId);
  const removed = await context.store.removeConnection(request.teamId);
  forgetRegions(context, request.teamId);
  const sentence = removed
    ? mrkdwn`Disconnected: the workspace’s key is deleted.${context.config.PROCUREMENT_API_KEY ? mrkdwn` Commands now use the key Tenderbot was set up with.` : mrkdwn` Commands will not work until someone runs \`/tender connect\`.`}`
    : mrkdwn`This workspace had no key of its own to disconnect.`;
  context.logger.info(
    { teamId: request.teamId, userId: request.userId, removed },
    'workspace key disconnected',
  );
  await reply(request, sentenceMessage(sentence), true);
}

/** "Keep it": the question is replaced by what stays. */
export async function keepKey(request: SlackRequest): Promise<void> {
  const sentence = mrkdwn`Kept: the workspace’s key is still connected.`;
  await reply(request, sentenceMessage(sentence), true);
}
