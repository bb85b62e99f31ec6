import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { cutText } from '../shared/cut-text.ts';
import { pipelineCommand, pipelinesCommand } from './features/bids/commands.ts';
import { commentsCommand } from './features/comments/comments-command.ts';
import { settingsCommand } from './features/connection/settings.ts';
import { statusCommand } from './features/connection/status.ts';
import { connectCommand, disconnectCommand } from './features/connection/workspace-key.ts';
import { directoryCommand, savedSearchesCommand } from './features/directories/directories.ts';
import { directMessageRequest, leavePointerToDirectMessages } from './features/links/index.ts';
import { subscriptionCommand } from './features/subscriptions/subscriptions.ts';
import { searchCommand, showCommand } from './features/tenders/index.ts';
import { unknownCommand } from './features/tenders/search.ts';
import { bookmarksCommand } from './features/tenders/tender-detail.ts';
import { parseCommand } from './shared/commands/subcommands.ts';
import type { ControlRouter } from './shared/controls/control-registry.ts';
import { clickRequest, onButton } from './shared/controls/on-action.ts';
import type { FeatureContext, SlackRequest } from './shared/feature-context.ts';
import { reply, withFailures } from './shared/feature-context.ts';
import { ErrorIds, ListIds } from './shared/ids.ts';
import { teamOfRequest } from './shared/request-scope.ts';
import { decode } from './shared/values/codec.ts';
import { helpMessage } from './shared/views/messages.ts';

export const TENDER_COMMAND = '/tender';

/**
 * `/tender …`: one slash command whose first word names the feature that answers it, "Try again"
 * (which runs a failed command's text again), and the Next and Previous of the lists that several
 * commands show. The routing lives here, above the features; each answer is its feature's.
 */
export function registerTenderCommand(
  app: Pick<App, 'command'>,
  controls: ControlRouter,
  context: FeatureContext,
): void {
  app.command(TENDER_COMMAND, async ({ command, ack, respond, client, context: bolt }) => {
    await ack();
    const teamId = teamOfRequest(bolt, command.team_id);
    // Without a response_url (Slack always sends one, a proxy or a replay may not) the answer
    // goes to the person's direct messages, as docs/commands.md says.
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
    if (request.respond !== respond) {
      await leavePointerToDirectMessages(context, client, {
        channelId: command.channel_id ?? '',
        userId: command.user_id,
      });
    }
    // The receiver fills a missing text with ''; a non-string never reaches here, but costs nothing to check.
    await runCommand(
      context,
      request,
      typeof command.text === 'string' ? command.text : '',
      command.trigger_id,
      false,
    );
  });

  // "Try again" runs its command, which has its own failure handling (one slow notice, not two).
  controls.action<BlockAction<ButtonAction>>(
    ErrorIds.tryAgain,
    async ({ ack, body, action, respond, client, context: bolt }) => {
      await ack();
      const request = clickRequest(body, respond, client, bolt);
      await runCommand(context, request, cutText(action.value ?? '', 2000), body.trigger_id, true);
    },
  );

  for (const actionId of [ListIds.next, ListIds.previous]) {
    onButton(controls, context, actionId, async (request, value) => {
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
}

/** `/tender …` (also "Try again", which runs the same text again). */
export async function runCommand(
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
        return unknownCommand(context, request, parsed.word, parsed.rest);
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
