import type { AppSlack } from '../../adapters/app-slack.ts';
import { connectionState } from '../../shared/connection-state.ts';
import { KeyUnreadableError } from '../../shared/errors.ts';
import { describeFailure } from '../../shared/failure-sentences.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { keyReadable, mayManageKey } from '../../shared/key-access.ts';
import { describeSavedSearches, readDefaultValueRuleAhead } from '../../shared/value-rules.ts';
import { formatDayOf } from '../../shared/views/formats.ts';
import { type Mrkdwn, mention, mrkdwn, text as plain } from '../../shared/views/mrkdwn.ts';
import { withBidReferences, withStartedBy } from '../bids/index.ts';
import { HOME_LIST_ROWS, type HomeContent, homeView } from './views/home-view.ts';

/**
 * The App Home tab, drawn afresh each time it is opened: the connection (the workspace's key and
 * the person's own), then what the key's creator sees through the service (bookmarks, current bids
 * with their progress, the organisation's saved searches): the person's own key where linked. A list the service will not give is a sentence in its place.
 */
export async function publishHome(
  context: FeatureContext,
  slack: AppSlack,
  teamId: string,
  userId: string,
  options: { firstVisit?: boolean; notice?: Mrkdwn } = {},
): Promise<void> {
  const connection = await context.store.getConnection(teamId);
  const readable = !connection || (await keyReadable(context, teamId));
  const state = !readable
    ? mrkdwn`Tenderbot can no longer read this workspace’s key (its own settings were changed). A workspace admin must connect it again with \`/tender connect\`.`
    : connection
      ? mrkdwn`Connected with this workspace’s own key (by ${mention(connection.connectedBy)}, ${plain(connectedDay(connection.connectedAt))}).`
      : context.config.PROCUREMENT_API_KEY
        ? mrkdwn`Tenderbot uses the connection to the tender service it was set up with. A workspace admin can connect your organisation’s own with \`/tender connect\`.`
        : mrkdwn`Not connected yet. A workspace admin can connect your organisation’s key with \`/tender connect\`.`;
  const [personal, canConnect, facts] = await Promise.all([
    context.store.getPersonalKey(teamId, userId),
    mayManageKey(context, teamId, userId),
    context.users.facts(userId, teamId),
  ]);
  // A guest's own key changes what they read, never what they may do (guests change nothing).
  const personalLine = personal
    ? facts.isGuest
      ? mrkdwn`You linked your own key (${plain(connectedDay(personal.connectedAt.toISOString()))}): the bookmarks and bids below are those it sees. \`/tender disconnect me\` unlinks it.`
      : mrkdwn`You linked your own key (${plain(connectedDay(personal.connectedAt.toISOString()))}): the bookmarks and bids below are your own, and comments you make are in your name. \`/tender disconnect me\` unlinks it.`
    : facts.isGuest
      ? mrkdwn`Link your own key with \`/tender connect me\` to read the bookmarks and bids it sees here (as a guest you can read them, not change them).`
      : mrkdwn`Link your own key with \`/tender connect me\` to keep bookmarks of your own and comment and start bids in your name.`;
  const content: HomeContent = {
    isGuest: facts.isGuest,
    connection: state,
    canConnect,
    ownKey: { line: personalLine, canLink: !personal },
    ownLists: Boolean(personal),
    now: context.clock(),
  };
  if (options.notice) content.notice = options.notice;
  if (options.firstVisit) content.gettingStarted = await connectionState(context, teamId);
  const reader =
    personal || (readable && (connection || context.config.PROCUREMENT_API_KEY))
      ? await context.clients.forPerson(teamId, userId).catch((error: unknown) => {
          // The person's own key cannot be read: said in its line, and no lists rather than no Home tab.
          if (!(error instanceof KeyUnreadableError)) throw error;
          content.ownKey = { line: describeFailure(error).sentence, canLink: true };
          return null;
        })
      : null;
  if (reader) {
    const { client } = reader;
    const problem = (error: unknown) => {
      context.logger.warn({ err: error, teamId }, 'a list of the Home tab could not be read');
      return { problem: describeFailure(error).sentence };
    };
    const page = { limit: HOME_LIST_ROWS };
    // Saved searches' value bounds are said with the rule the service compares them by: kept a
    // while, and the usual currency's read (when not kept) goes out beside the lists'.
    readDefaultValueRuleAhead(context, client);
    const [bookmarks, pipelines, savedSearches] = await Promise.all([
      client.bookmarks
        .list(page)
        .then((answer) => ({ items: answer.data, total: answer.pagination.total }), problem),
      client.pipelines.list({ ...page, archived: 'active' }).then(
        async (answer) => ({
          items: await withBidReferences(context, teamId, await withStartedBy(context, teamId, answer.data)),
          total: answer.pagination.total,
        }),
        problem,
      ),
      client.savedSearches.list(page).then(
        async (answer) => ({
          items: await describeSavedSearches(context, client, teamId, answer.data),
          total: answer.pagination.total,
        }),
        problem,
      ),
    ]);
    Object.assign(content, { bookmarks, pipelines, savedSearches });
  }
  await slack.views.publish({ user_id: userId, view: homeView(content) });
}

/** `2026-11-21T…` → `21 Nov 2026`. */
function connectedDay(isoInstant: string): string {
  const date = new Date(isoInstant);
  return Number.isNaN(date.getTime()) ? isoInstant.slice(0, 10) : formatDayOf(date);
}
