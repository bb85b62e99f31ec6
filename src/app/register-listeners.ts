import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { registerPipelineListeners } from './features/bids/listeners.ts';
import { pipelineCommand, pipelinesCommand } from './features/bids/pipelines.ts';
import { commentsCommand } from './features/comments/comments.ts';
import { registerCommentListeners } from './features/comments/listeners.ts';
import {
  confirmDisconnect,
  connectCommand,
  disconnectCommand,
  keepKey,
  openConnectModal,
  settingsCommand,
  statusCommand,
  submitConnectWithinBudget,
} from './features/connection/connection.ts';
import {
  directoryCommand,
  runSavedSearch,
  savedSearchesCommand,
  showDirectoryEntry,
} from './features/directories/directories.ts';
import { publishHome } from './features/home/index.ts';
import type { InstallFlow } from './features/install/install-flow.ts';
import { type Departure, forgetWorkspace, revokeTeamAccess } from './features/install/uninstall.ts';
import { directMessageRequest } from './features/links/direct-messages.ts';
import { REACH_EVENTS, registerReachListeners } from './features/links/listeners.ts';
import { registerSubscriptionListeners } from './features/subscriptions/listeners.ts';
import { subscriptionCommand } from './features/subscriptions/subscriptions.ts';
import { searchCommand, showCommand, showSearchPage } from './features/tenders/index.ts';
import {
  bookmarksCommand,
  shareTender,
  toggleBookmark,
  unknownCommandMessage,
} from './features/tenders/search.ts';
import { parseCommand } from './shared/commands/parse-command.ts';
import { type ActionId, ControlRouter } from './shared/controls/control-registry.ts';
import { buttonValue, clickRequest, onAction, SUBMISSION_BUDGET_MS } from './shared/controls/on-action.ts';
import { unknownControlAnswers } from './shared/controls/unknown-controls.ts';
import type { FeatureContext, SlackRequest } from './shared/feature-context.ts';
import { reply, withFailures } from './shared/feature-context.ts';
import {
  ConnectIds,
  DirectoryIds,
  ErrorIds,
  HomeIds,
  ListIds,
  SavedSearchIds,
  SearchIds,
  TenderIds,
} from './shared/ids.ts';
import { teamOfRequest } from './shared/request-scope.ts';
import { decode } from './shared/values/codec.ts';
import { parseConnectSubmission } from './shared/values/modal-submissions.ts';
import { helpMessage } from './shared/views/messages.ts';

export const TENDER_COMMAND = '/tender';
/** The events the app subscribes to; the manifest declares exactly these. */
export const SUBSCRIBED_EVENTS: readonly string[] = [
  'app_home_opened',
  ...REACH_EVENTS,
  'app_uninstalled',
  'tokens_revoked',
  'team_access_granted',
  'team_access_revoked',
];

/**
 * Registers every listener. Each acknowledges first (Slack waits 3 s at most) and only then
 * talks to the service, answering through the response_url or the Web API.
 */
export function registerListeners(
  app: App,
  context: FeatureContext,
  install: InstallFlow | null = null,
): void {
  // Every control (buttons, windows, shortcuts, options) goes through the registry's table.
  const controls = new ControlRouter();
  app.command(TENDER_COMMAND, async ({ command, ack, respond, client, context: bolt }) => {
    await ack();
    const teamId = teamOfRequest(bolt, command.team_id);
    // Without a response_url (Slack always sends one, a proxy or a replay may not) the answer
    // goes to the person's direct messages, as the README says.
    const request: SlackRequest =
      typeof command.response_url === 'string' && command.response_url !== ''
        ? {
            teamId,
            userId: command.user_id,
            channelId: command.channel_id ?? '',
            respond,
            slack: client,
            kind: 'command',
          }
        : directMessageRequest(client, { teamId, userId: command.user_id });
    // The receiver fills a missing text with ''; a non-string never reaches here, but costs nothing to check.
    await runCommand(
      context,
      request,
      typeof command.text === 'string' ? command.text : '',
      command.trigger_id,
      false,
    );
  });

  const onButton = (
    actionId: ActionId,
    handle: (request: SlackRequest, value: string | undefined, body: BlockAction) => Promise<void>,
  ) =>
    // Every value is parsed with its schema inside `handle`: a broken one is a sentence about the click.
    onAction(controls, context, actionId, (request, action, body) =>
      handle(request, buttonValue(action), body),
    );

  const stateOf = (kind: 'searchPage', value: string | undefined) =>
    decode(kind, value, context.store, context.clock());
  const idOf = (value: string | undefined) => decode('record', value, context.store, context.clock());
  // `search/other_buyer/0`… are one numbered row of the registry.
  for (const actionId of [SearchIds.next, SearchIds.previous, SearchIds.otherBuyer]) {
    onButton(actionId, async (request, value) =>
      showSearchPage(context, request, await stateOf('searchPage', value), true),
    );
  }
  for (const [actionId, add] of [
    [TenderIds.bookmark, true],
    [TenderIds.removeBookmark, false],
  ] as const) {
    onButton(actionId, async (request, value, body) => {
      // Who shared the card travels in the value: state is never read back from rendered text.
      const { t, c, s } = await decode('bookmark', value, context.store, context.clock());
      await toggleBookmark(context, request, { tenderId: t, place: c, ...(s ? { sharedBy: s } : {}) }, add, {
        isEphemeral: Boolean(body.container?.is_ephemeral),
        messageTs: body.container?.message_ts ?? body.message?.ts ?? null,
      });
    });
  }
  onButton(TenderIds.share, async (request, value) => shareTender(context, request, await idOf(value)));
  // "Open" on a notice in a buyer's, supplier's or framework's panel: the tender in full.
  onButton(TenderIds.show, async (request, value) => showCommand(context, request, await idOf(value)));
  // A URL button still sends an action; there is nothing more to do than acknowledge it.
  controls.action(TenderIds.openOriginal, async ({ ack }) => ack());
  onButton(DirectoryIds.showBuyer, async (request, value) =>
    showDirectoryEntry(context, request, 'buyer', await idOf(value)),
  );
  onButton(DirectoryIds.showSupplier, async (request, value) =>
    showDirectoryEntry(context, request, 'supplier', await idOf(value)),
  );
  onButton(DirectoryIds.showFramework, async (request, value) =>
    showDirectoryEntry(context, request, 'framework', await idOf(value)),
  );
  onButton(ConnectIds.disconnect, async (request) => confirmDisconnect(context, request));
  onButton(ConnectIds.keepKey, async (request) => keepKey(request));
  for (const actionId of [ListIds.next, ListIds.previous]) {
    onButton(actionId, async (request, value) => {
      const {
        l: list,
        t: typed,
        o: offset,
      } = await decode('listPage', value, context.store, context.clock());
      const page = { offset, replace: true };
      switch (list) {
        case 'pipelines':
          return pipelinesCommand(context, request, typed, page);
        case 'buyers':
        case 'suppliers':
        case 'frameworks':
          return directoryCommand(context, request, list, typed, page);
        case 'bookmarks':
          return bookmarksCommand(context, request, true, offset);
        case 'saved':
          return savedSearchesCommand(context, request, page);
      }
    });
  }
  onButton(SavedSearchIds.run, async (request, value) => runSavedSearch(context, request, await idOf(value)));
  // "Try again" runs its command, which has its own failure handling (one slow notice, not two).
  controls.action<BlockAction<ButtonAction>>(
    ErrorIds.tryAgain,
    async ({ ack, body, action, respond, client, context: bolt }) => {
      await ack();
      const request = clickRequest(body, respond, client, bolt);
      await runCommand(context, request, (action.value ?? '').slice(0, 2000), body.trigger_id, true);
    },
  );

  // One action for the Home tab's two buttons: the workspace's key, or (value 'me') the person's own.
  controls.action<BlockAction<ButtonAction>>(
    HomeIds.connect,
    async ({ ack, body, action, client, context: bolt }) => {
      await ack();
      await openConnectModal(
        context,
        client,
        {
          // An org-wide install's Home has `team: null`: Bolt's team is the one the token was found for.
          teamId: teamOfRequest(bolt, body.team?.id, body.user.team_id),
          userId: body.user.id,
          channelId: null,
          triggerId: body.trigger_id,
          forMe: action.value === 'me',
        },
        async (sentence) => {
          await client.chat.postMessage({ channel: body.user.id, text: sentence });
        },
      );
    },
  );

  controls.view(ConnectIds.callback, async ({ ack, body, view, client, context: bolt }) => {
    const submitted = parseConnectSubmission(view.state?.values);
    await submitConnectWithinBudget(
      context,
      client,
      {
        teamId: teamOfRequest(bolt, body.team?.id, body.user.team_id),
        userId: body.user.id,
        key: submitted.key,
        serviceUrl: submitted.serviceUrl,
        privateMetadata: typeof view.private_metadata === 'string' ? view.private_metadata : '',
        viewId: view.id,
      },
      // Bolt types ack by listener; a view's ack takes a response_action or nothing.
      ack as (answer?: unknown) => Promise<void>,
      SUBMISSION_BUDGET_MS,
    );
  });

  registerCommentListeners(controls, context);
  registerPipelineListeners(controls, context);
  registerSubscriptionListeners(controls, context);
  // A direct message can run the read-only commands as typed (no trigger: nothing opens a window).
  registerReachListeners(app, controls, context, (request, text) =>
    runCommand(context, request, text, '', false),
  );
  // Refuses to start with a row of the table left without a listener; any other id is answered.
  controls.attach(app, unknownControlAnswers(context.logger));

  // Removed from a workspace, or its bot token revoked: that workspace's data goes, the others' stays
  // (with an org-wide install, every workspace it covered). Bolt runs the first two without
  // authorize: the token may be gone already.
  const hooks = {
    forgetTeam: (teamId: string) => context.users.forgetTeam(teamId),
    ...(install ? { coveredTeams: (enterpriseId: string) => install.coveredTeams(enterpriseId) } : {}),
  };
  app.event('app_uninstalled', async ({ body }) => {
    await forgetWorkspace(context.store, context.logger, departureOf(body, 'app_uninstalled'), hooks);
  });
  app.event('tokens_revoked', async ({ event, body }) => {
    // A revoked person's token (none is ever asked for) leaves the bot working.
    if ((event.tokens.bot ?? []).length === 0) return;
    await forgetWorkspace(context.store, context.logger, departureOf(body, 'tokens_revoked'), hooks);
  });
  // An organisation-ready install removed from (or added to) some workspaces of the organisation.
  // Only workspaces that organisation's install covered go; a workspace standing alone stays.
  app.event('team_access_revoked', async ({ event, body }) => {
    const revocation = { enterpriseId: body.enterprise_id ?? null, teamIds: event.team_ids };
    await revokeTeamAccess(context.store, context.logger, revocation, install, hooks);
  });
  app.event('team_access_granted', async ({ event, body }) => {
    if (install && body.enterprise_id)
      await install.recordCoverage(body.enterprise_id, { add: event.team_ids });
  });

  app.event('app_home_opened', async ({ event, body, client, context: bolt }) => {
    if (event.tab !== 'home') return;
    // Slack sends the Home it last drew (`view`) once there is one: without it, this is a first visit.
    await publishHome(context, client, teamOfRequest(bolt, body.team_id), event.user, {
      firstVisit: !('view' in event && event.view),
    });
  });
}

/** The workspace an uninstall or a revocation is about, from the Events API envelope. */
function departureOf(
  body: { team_id?: string; enterprise_id?: string; authorizations?: { is_enterprise_install?: boolean }[] },
  why: 'app_uninstalled' | 'tokens_revoked',
): Departure {
  return {
    teamId: body.team_id ?? '',
    enterpriseId: body.enterprise_id ?? null,
    isEnterpriseInstall: body.authorizations?.[0]?.is_enterprise_install === true,
    why,
  };
}

/** `/tender …` (also "Try again", which runs the same text again). */
async function runCommand(
  context: FeatureContext,
  asked: SlackRequest,
  text: string,
  triggerId: string,
  replace: boolean,
): Promise<void> {
  const parsed = parseCommand(text);
  // "Try again" redraws the failure message it was clicked in with whatever answers now.
  const request: SlackRequest = replace
    ? {
        ...asked,
        respond: (message) =>
          asked.respond(
            typeof message === 'string'
              ? { text: message, replace_original: true }
              : { ...message, replace_original: true },
          ),
      }
    : asked;
  await withFailures(context, request, parsed.kind, text, async (request) => {
    switch (parsed.kind) {
      case 'help':
        return reply(request, helpMessage());
      case 'unknown':
        return reply(request, unknownCommandMessage(parsed.word, parsed.rest) ?? helpMessage(parsed.word));
      case 'search':
        return searchCommand(context, request, parsed.rest);
      case 'show':
        return showCommand(context, request, parsed.rest);
      case 'bookmarks':
        return bookmarksCommand(context, request);
      case 'buyers':
      case 'suppliers':
      case 'frameworks':
        return directoryCommand(context, request, parsed.kind, parsed.rest);
      case 'saved':
        return savedSearchesCommand(context, request);
      case 'comments':
        return commentsCommand(context, request, parsed.rest);
      case 'pipelines':
        return pipelinesCommand(context, request, parsed.rest);
      case 'pipeline':
        return pipelineCommand(context, request, parsed.rest);
      case 'subscribe':
      case 'subscriptions':
      case 'unsubscribe':
        return subscriptionCommand(context, request, parsed.kind, parsed.rest);
      case 'connect':
        return connectCommand(context, request, parsed.rest, triggerId);
      case 'disconnect':
        return disconnectCommand(context, request, parsed.rest);
      case 'settings':
        return settingsCommand(context, request, parsed.rest);
      case 'status':
        return statusCommand(context, request);
    }
  });
}
