/*
 * Over 500 lines for now: the workspace key, a person's own key, settings and status live here
 * until the app's rebuild into a folder per feature (the open issue "A house a Bolt maintainer
 * would hold up") splits them with the rest of src/app in one step, rather than moving them twice.
 */
import {
  AuthenticationError,
  ConnectionError,
  MissingScopeError,
  PlanError,
  ProcurementClientError,
  TimeoutError,
} from '../../../client/errors.ts';
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import type { AppSlack } from '../../adapters/app-slack.ts';
import { API_KEY_CHARACTERS } from '../../config.ts';
import { describeFailure } from '../../shared/failure-sentences.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { reply } from '../../shared/feature-context.ts';
import { ConnectIds } from '../../shared/ids.ts';
import { mayManageKey } from '../../shared/key-access.ts';
import { decodeText, encode } from '../../shared/values/codec.ts';
import { formatDayOf } from '../../shared/views/formats.ts';
import { sentenceMessage } from '../../shared/views/messages.ts';
import {
  code,
  escapeMrkdwn,
  joinMrkdwn,
  type Mrkdwn,
  mention,
  mrkdwn,
  text as plain,
} from '../../shared/views/mrkdwn.ts';
import { button, section } from '../../shared/views/tender-card.ts';
import { withinBudget } from '../../shared/within-budget.ts';
import { publishHome } from '../home/index.ts';
import {
  CONNECTED_SENTENCE,
  connectCheckingView,
  connectDoneView,
  connectModal,
  PERSONAL_LINKED_SENTENCE,
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

/** What `/tender connect me` says the key is for, in the connect modal's private_metadata (before the codec's part). */
const FOR_ME = 'me:';

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
  const metadata =
    (forMe ? FOR_ME : '') + encode('connectMetadata', { channelId: args.channelId }, 'metadata');
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

const SERVICE_URL_REFUSED =
  'Tenderbot connects only to the service it was set up with (and addresses its operator allows). Leave this empty to use it.';

export type SubmissionAnswer = { response_action: 'errors'; errors: Record<string, string> } | null;

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
    return ack({ response_action: 'errors', errors: { [ConnectIds.keyBlock]: problemOf(quick) } });
  }
  const { forMe } = safeMetadata(args.privateMetadata);
  await ack({ response_action: 'update', view: connectCheckingView(forMe) });
  const result = await outcome;
  const problem =
    'error' in result
      ? problemOf(result)
      : result.value
        ? Object.values(result.value.errors).join(' ')
        : null;
  if (!args.viewId) return;
  const view = problem
    ? connectModal(
        args.privateMetadata,
        context.config.PROCUREMENT_API_URL,
        escapeMrkdwn(problem),
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

/** A key with a character no key has (API_KEY_CHARACTERS): said, not tried (it read as "the service did not answer"). */
const KEY_MISCOPIED =
  'An API key is letters, digits and punctuation, with no spaces, curly quotes or emoji; this one has something else in it, so it was not copied whole. Copy it again from the service’s developer settings.';

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
    return { response_action: 'errors', errors: { [ConnectIds.keyBlock]: REFUSAL } };
  const key = args.key.trim();
  if (!key) return { response_action: 'errors', errors: { [ConnectIds.keyBlock]: 'Paste the API key.' } };
  if (!API_KEY_CHARACTERS.test(key))
    return { response_action: 'errors', errors: { [ConnectIds.keyBlock]: KEY_MISCOPIED } };
  const serviceUrl = args.serviceUrl.trim() || null;
  if (serviceUrl && !/^https?:\/\/[^\s]+$/.test(serviceUrl)) {
    return {
      response_action: 'errors',
      errors: {
        [ConnectIds.urlBlock]: 'Give the service’s address, such as https://procurement.example.com.',
      },
    };
  }
  // Only the operator's service or the addresses it allows: any other server would receive the
  // key, and would let a workspace admin reach into the network Tenderbot runs in.
  if (serviceUrl && !context.clients.allowsServiceUrl(serviceUrl))
    return { response_action: 'errors', errors: { [ConnectIds.urlBlock]: SERVICE_URL_REFUSED } };
  const trial = context.clients.trial(serviceUrl, key);
  const problem = await tryKey(trial);
  if (problem)
    return {
      response_action: 'errors',
      errors: { [problem.field === 'url' ? ConnectIds.urlBlock : ConnectIds.keyBlock]: problem.sentence },
    };
  // Bookmarks are kept per key creator: read the list before the key changes, to say if it does.
  const bookmarksBefore = await bookmarkIdsOrNull(context, args.teamId);
  await context.clients.forget(args.teamId);
  await context.store.saveConnection({
    teamId: args.teamId,
    encryptedApiKey: context.cipher.encrypt(key),
    serviceUrl,
    connectedBy: args.userId,
    connectedAt: context.clock().toISOString(),
  });
  context.logger.info({ teamId: args.teamId, userId: args.userId }, 'workspace key connected');
  const { channelId } = safeMetadata(args.privateMetadata);
  if (channelId) {
    const bookmarksAfter = await bookmarkIdsOrNull(context, args.teamId);
    const changed =
      bookmarksBefore !== null && bookmarksAfter !== null && !sameIds(bookmarksBefore, bookmarksAfter);
    await slack.chat
      .postEphemeral({
        channel: channelId,
        user: args.userId,
        text: mrkdwn`${CONNECTED_SENTENCE}${
          changed
            ? mrkdwn` The bookmark list has changed: bookmarks belong to whoever made the key, so the workspace now shares this key’s list (${plain(tenders(bookmarksAfter.size))}) instead of the previous one (${plain(tenders(bookmarksBefore.size))}).`
            : mrkdwn``
        }`,
      })
      .catch((error) =>
        context.logger.warn({ err: error, teamId: args.teamId }, 'could not confirm the connection'),
      );
  }
  await publishHome(context, slack, args.teamId, args.userId).catch(() => undefined);
  return null;
}

/**
 * The personal modal's submission: the same checks as the workspace's key, with the workspace's
 * service (a person's key cannot point elsewhere); saved encrypted for this person alone.
 */
async function submitPersonalKey(
  context: FeatureContext,
  slack: AppSlack,
  args: { teamId: string; userId: string; key: string; privateMetadata: string },
): Promise<SubmissionAnswer> {
  const key = args.key.trim();
  if (!key) return { response_action: 'errors', errors: { [ConnectIds.keyBlock]: 'Paste your API key.' } };
  if (!API_KEY_CHARACTERS.test(key))
    return { response_action: 'errors', errors: { [ConnectIds.keyBlock]: KEY_MISCOPIED } };
  // Only ever the operator's service: never the address chosen for the workspace's key.
  const serviceUrl = context.clients.operatorServiceUrl;
  const problem = await tryKey(context.clients.trial(serviceUrl, key));
  if (problem)
    return {
      response_action: 'errors',
      errors: {
        [ConnectIds.keyBlock]:
          problem.field === 'url'
            ? 'The service did not answer just now, so the key could not be checked. Try again in a few minutes.'
            : problem.sentence,
      },
    };
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
  if (channelId)
    await slack.chat
      .postEphemeral({ channel: channelId, user: args.userId, text: PERSONAL_LINKED_SENTENCE })
      .catch((error) =>
        context.logger.warn({ err: error, teamId: args.teamId }, 'could not confirm the personal key'),
      );
  await publishHome(context, slack, args.teamId, args.userId).catch(() => undefined);
  return null;
}

async function tryKey(client: ProcurementClient): Promise<{ field: 'key' | 'url'; sentence: string } | null> {
  try {
    await client.tenders.search({ limit: 1 });
    return null;
  } catch (error) {
    if (error instanceof AuthenticationError) {
      const reasons: Record<string, string> = {
        expired_api_key: 'This key has expired. Make a new one in the service’s developer settings.',
        disabled_api_key: 'This key is disabled: its creator is no longer in the organisation.',
      };
      return {
        field: 'key',
        sentence:
          reasons[error.code] ?? 'The service does not recognise this key. Check that it was copied whole.',
      };
    }
    if (error instanceof MissingScopeError)
      return {
        field: 'key',
        sentence:
          'This key is not allowed to read tenders. Make a key that may read tenders (and what your team needs besides) and paste that one.',
      };
    if (error instanceof PlanError)
      return { field: 'key', sentence: 'This organisation’s plan has no API access.' };
    if (error instanceof ConnectionError || error instanceof TimeoutError) {
      return {
        field: 'url',
        sentence: 'The service did not answer at this address. Check it, or leave it empty for the default.',
      };
    }
    // The answer's own words are not shown: they come from a server, not from Tenderbot.
    if (error instanceof ProcurementClientError)
      return {
        field: 'key',
        sentence: 'The service refused the key. Check that it was copied whole, or make a new one.',
      };
    throw error;
  } finally {
    await client.close();
  }
}

/** The workspace's bookmarked tender ids (the first 100), or null when they cannot be read now. */
async function bookmarkIdsOrNull(context: FeatureContext, teamId: string): Promise<Set<string> | null> {
  try {
    const { client } = await context.clients.forTeam(teamId);
    const page = await client.bookmarks.list({ limit: 100 }, { timeoutMs: 1500 });
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

/** Unlinks the person's own key: deleted from the store (so from every copy of the app) and from memory. */
async function disconnectPersonalKey(context: FeatureContext, request: SlackRequest): Promise<void> {
  await context.clients.forgetPerson(request.teamId, request.userId);
  const removed = await context.store.removePersonalKey(request.teamId, request.userId);
  context.logger.info({ teamId: request.teamId, userId: request.userId, removed }, 'personal key unlinked');
  const sentence = removed
    ? mrkdwn`Unlinked: your own key is deleted. ${await afterUnlinking(context, request.teamId)}`
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
  if (!(await context.users.facts(request.userId)).isAdmin) {
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

/** What `/tender status` tries to read once each, named as people know them. */
const PROBES: { what: string; probe: (client: ProcurementClient) => Promise<unknown> }[] = [
  { what: 'Tenders', probe: (client) => client.tenders.search({ limit: 1 }) },
  { what: 'Buyers', probe: (client) => client.buyers.list({ limit: 1 }) },
  { what: 'Suppliers', probe: (client) => client.suppliers.list({ limit: 1 }) },
  { what: 'Frameworks', probe: (client) => client.frameworks.list({ limit: 1 }) },
  { what: 'Bookmarks', probe: (client) => client.bookmarks.list({ limit: 1 }) },
  { what: 'Saved searches', probe: (client) => client.savedSearches.list({ limit: 1 }) },
  { what: 'Bids', probe: (client) => client.pipelines.list({ limit: 1 }) },
];

/** `/tender status`: whose key is used, whether the service answers, and what the key can read. */
export async function statusCommand(context: FeatureContext, request: SlackRequest): Promise<void> {
  const [connection, personal, settings] = await Promise.all([
    context.store.getConnection(request.teamId),
    context.store.getPersonalKey(request.teamId, request.userId),
    context.store.getWorkspaceSettings(request.teamId),
  ]);
  const lines: Mrkdwn[] = [];
  if (connection)
    lines.push(
      mrkdwn`*Key*: this workspace’s own, connected by ${mention(connection.connectedBy)} on ${plain(connectedOn(connection.connectedAt))}.`,
    );
  else if (context.config.PROCUREMENT_API_KEY)
    lines.push(mrkdwn`*Key*: the one Tenderbot was set up with (this workspace has not connected its own).`);
  else if (!personal) {
    const sentence = mrkdwn`*Key*: none. A workspace admin can add one with \`/tender connect\`, and anyone can link their own with \`/tender connect me\`.`;
    await reply(request, sentenceMessage(sentence));
    return;
  } else
    lines.push(
      mrkdwn`*Key*: none for the workspace yet. A workspace admin can add one with \`/tender connect\`.`,
    );
  lines.push(
    personal
      ? mrkdwn`*Your key*: your own, linked on ${plain(formatDayOf(personal.connectedAt))}. Your commands use it: your bookmarks are your own, and comments and bids you make are in your name. \`/tender disconnect me\` unlinks it.`
      : mrkdwn`*Your key*: none of your own, so your commands use the workspace’s. \`/tender connect me\` links yours.`,
  );
  if (settings.personalKeysForWrites)
    lines.push(
      mrkdwn`*Changes*: this workspace asks everyone to make changes (bookmarks, comments, bids) with their own key.`,
    );
  const { client } = await context.clients.forPerson(request.teamId, request.userId);
  const results = await Promise.all(
    PROBES.map(async ({ what, probe }) => {
      try {
        await probe(client);
        return { what, ok: true, reason: mrkdwn`` };
      } catch (error) {
        return { what, ok: false, reason: reasonOf(error), error };
      }
    }),
  );
  const unreachable = results.every(
    (result) =>
      !result.ok && (result.error instanceof ConnectionError || result.error instanceof TimeoutError),
  );
  if (unreachable) {
    lines.push(
      mrkdwn`*Tender service*: not answering right now. Searches and cards will work again once it is back; try \`/tender status\` in a few minutes.`,
    );
  } else {
    lines.push(mrkdwn`*Tender service*: answering.`);
    const refused = results.filter((result) => !result.ok);
    lines.push(
      refused.length === 0
        ? mrkdwn`*${plain(personal ? 'Your own key' : 'This key')} can read*: ${plain(results.map((result) => result.what.toLowerCase()).join(', '))}. Everything Tenderbot offers will work.`
        : mrkdwn`*${plain(personal ? 'Your own key' : 'This key')} can read*: ${plain(results.map((result) => `${result.ok ? '✅' : '❌'} ${result.what}`).join('  '))}`,
    );
    for (const result of refused) lines.push(mrkdwn`• ${plain(result.what)}: ${result.reason}`);
  }
  const auth = results.find((result) => result.error instanceof AuthenticationError);
  if (auth)
    lines.push(
      personal
        ? mrkdwn`The service refuses your own key itself: make a new one and run \`/tender connect me\`.`
        : mrkdwn`The service refuses the key itself: an admin must make a new one and run \`/tender connect\`.`,
    );
  const said = joinMrkdwn(lines, mrkdwn`\n`);
  await reply(request, { text: said, blocks: [section(said)] });
}

/** `2026-11-21T…` → `21 Nov 2026`, as dates read on the cards. */
function connectedOn(isoInstant: string): string {
  const date = new Date(isoInstant);
  return Number.isNaN(date.getTime()) ? isoInstant.slice(0, 10) : formatDayOf(date);
}

/** Why a read failed and what to do, in words a bid lead reads (never an error's or a scope's name). */
function reasonOf(error: unknown): Mrkdwn {
  if (error instanceof MissingScopeError)
    return mrkdwn`this key is not allowed to read them; ask whoever made the key for one that can, then \`/tender connect\` it.`;
  if (error instanceof AuthenticationError) return mrkdwn`the service refuses this key.`;
  if (error instanceof PlanError) return mrkdwn`not part of your organisation’s plan with the service.`;
  if (error instanceof ConnectionError || error instanceof TimeoutError)
    return mrkdwn`the service did not answer; try again in a few minutes.`;
  return mrkdwn`could not be read just now; try again in a few minutes.`;
}

/**
 * The modal's private_metadata: the channel to answer in, and whether the key is the person's own.
 * A forged or broken one means "no channel to answer in"; `me:` only ever narrows what is saved
 * (a person's own key), and the workspace's key is saved only for those who may change it.
 */
function safeMetadata(text: string): { channelId: string | null; forMe: boolean } {
  const forMe = text.startsWith(FOR_ME);
  try {
    return { ...decodeText('connectMetadata', forMe ? text.slice(FOR_ME.length) : text), forMe };
  } catch {
    return { channelId: null, forMe };
  }
}
