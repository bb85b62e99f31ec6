import type { App, BlockAction, GlobalShortcut, MessageShortcut } from '@slack/bolt';
import { cutText } from '../../../shared/cut-text.ts';
import type { ControlRouter } from '../../shared/controls/control-registry.ts';
import { buttonValue, clickRequest, onAction, submissionOf } from '../../shared/controls/on-action.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { withFailures } from '../../shared/feature-context.ts';
import { ReachIds, SEARCH_BUILDER_FIELDS, TENDER_PICKER, UNFURL_IDS } from '../../shared/ids.ts';
import { teamOfRequest } from '../../shared/request-scope.ts';
import { decode } from '../../shared/values/codec.ts';
import { fieldErrors, plainSentence } from '../../shared/views/plain-sentence.ts';
import { answerDirectMessage, directMessageRequest, type RunCommandText } from './direct-messages.ts';
import {
  commentOnMessage,
  type PickerAnswer,
  submitTenderPicker,
  TENDER_SELECT_ACTION,
} from './message-shortcut.ts';
import {
  buyerSuggestions,
  OPTIONS_BUDGET_MS,
  openSearchBuilder,
  type SearchBuilderAnswer,
  submitSearchBuilder,
  tenderSuggestions,
} from './search-builder.ts';
import { toggleUnfurlBookmark, unfurlLinks } from './unfurls.ts';
import { welcomeChannel } from './welcome.ts';

/**
 * Options found within OPTIONS_BUDGET_MS of the request, else none: the service call has that
 * timeout too, but what comes before it (the workspace's key) and a busy process count against
 * Slack's 3 s as well.
 */
async function inOptionsTime<T extends { options: unknown[] }>(
  found: Promise<T>,
): Promise<T | { options: [] }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ options: [] }>((resolve) => {
    timer = setTimeout(() => resolve({ options: [] }), OPTIONS_BUDGET_MS);
  });
  try {
    return await Promise.race([found, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The events these listeners subscribe to, as the manifest names them (`message.im` is Bolt's
 * `message` event, kept to direct messages below).
 */
export const REACH_EVENTS: readonly string[] = ['link_shared', 'member_joined_channel', 'message.im'];

/** Unfurls, shortcuts, the search builder, direct messages and the welcome (issue 12). */
export function registerReachListeners(
  app: Pick<App, 'event'>,
  controls: ControlRouter,
  context: FeatureContext,
  /** The `/tender` router, so a direct message can run a command as typed. */
  runCommandText?: RunCommandText,
): void {
  // Link unfurls: acknowledged by Bolt's receiver at once; the look-ups follow.
  app.event('link_shared', async ({ event, body, client, context: bolt }) => {
    const shared = event as typeof event & { unfurl_id?: string; source?: string };
    await unfurlLinks(context, client, {
      teamId: teamOfRequest(bolt, body.team_id),
      channel: shared.channel,
      messageTs: shared.message_ts,
      ...(typeof shared.user === 'string' ? { userId: shared.user } : {}),
      ...(typeof shared.thread_ts === 'string' ? { threadTs: shared.thread_ts } : {}),
      ...(shared.unfurl_id ? { unfurlId: shared.unfurl_id } : {}),
      ...(shared.source ? { source: shared.source } : {}),
      links: Array.isArray(shared.links) ? shared.links.filter((link) => typeof link?.url === 'string') : [],
    }).catch((error) =>
      context.logger.warn({ err: error, teamId: body.team_id }, 'links could not be unfurled'),
    );
  });

  // Bookmark and remove on a link preview: the preview is drawn again with the new state.
  for (const [actionId, add] of [
    [UNFURL_IDS.bookmark, true],
    [UNFURL_IDS.removeBookmark, false],
  ] as const) {
    onAction(controls, context, actionId, async (request, action, body) => {
      const tenderId = await decode('record', buttonValue(action), context.store, context.clock());
      const container = (body.container ?? {}) as { app_unfurl_url?: unknown; message_ts?: unknown };
      await toggleUnfurlBookmark(context, request, {
        tenderId,
        add,
        url: typeof container.app_unfurl_url === 'string' ? container.app_unfurl_url : null,
        messageTs: typeof container.message_ts === 'string' ? container.message_ts : null,
      });
    });
  }

  // The welcome, when Tenderbot itself joins a channel (Bolt lets this event through for the bot).
  app.event('member_joined_channel', async ({ event, body, client, context: bolt }) => {
    if (!bolt.botUserId || event.user !== bolt.botUserId) return;
    await welcomeChannel(context, client, {
      teamId: teamOfRequest(bolt, body.team_id),
      channelId: event.channel,
    }).catch((error) => context.logger.warn({ err: error, teamId: body.team_id }, 'the welcome failed'));
  });

  // Direct messages: a person's words in the Messages tab (never the bot's own, nor edits and joins).
  app.event('message', async ({ event, body, client, context: bolt }) => {
    const message = event as {
      channel_type?: string;
      subtype?: string;
      bot_id?: string;
      user?: string;
      text?: string;
      channel: string;
    };
    if (message.channel_type !== 'im' || message.subtype || message.bot_id || !message.user) return;
    await answerDirectMessage(
      context,
      client,
      {
        teamId: teamOfRequest(bolt, body.team_id),
        userId: message.user,
        channelId: message.channel,
        text: typeof message.text === 'string' ? cutText(message.text, 4000) : '',
      },
      runCommandText,
    ).catch((error) =>
      context.logger.warn({ err: error, teamId: body.team_id }, 'a direct message went unanswered'),
    );
  });

  // "Search tenders": the global shortcut, and the button on the help card and the Home tab.
  controls.shortcut<GlobalShortcut>(
    ReachIds.searchShortcut,
    async ({ ack, shortcut, client, context: bolt }) => {
      await ack();
      const teamId = teamOfRequest(bolt, shortcut.team?.id, shortcut.user.team_id);
      const request = directMessageRequest(client, { teamId, userId: shortcut.user.id });
      await withFailures(context, request, 'search builder', null, () =>
        openSearchBuilder(context, client, {
          teamId,
          userId: shortcut.user.id,
          triggerId: shortcut.trigger_id,
        }),
      );
    },
  );
  controls.action<BlockAction>(
    ReachIds.openSearchBuilder,
    async ({ ack, body, client, respond, context: bolt }) => {
      await ack();
      // From the Home tab (no response_url), a failure is said in direct messages (request-router.ts).
      const request = clickRequest(body, respond, client, bolt);
      await withFailures(context, request, 'search builder', null, () =>
        openSearchBuilder(context, client, {
          teamId: request.teamId,
          userId: body.user.id,
          triggerId: body.trigger_id,
          ...(body.channel?.id ? { channelId: body.channel.id } : {}),
        }),
      );
    },
  );
  controls.view(ReachIds.searchBuilderCallback, async ({ ack, body, view, client, context: bolt }) => {
    await submitSearchBuilder(
      context,
      client,
      {
        teamId: teamOfRequest(bolt, body.team?.id, body.user.team_id),
        userId: body.user.id,
        values: view.state?.values,
        privateMetadata: view.private_metadata,
      },
      ack as (answer?: SearchBuilderAnswer) => Promise<void>,
    );
  });

  // Options as one types: buyers for the search builder, tenders for "Which tender?".
  controls.options(SEARCH_BUILDER_FIELDS.buyer.action, async ({ ack, body, payload, context: bolt }) => {
    const teamId = teamOfRequest(bolt, body.team?.id, body.user?.team_id);
    const typed = typeof payload.value === 'string' ? payload.value : '';
    await ack(await inOptionsTime(buyerSuggestions(context, teamId, typed)));
  });
  controls.options(TENDER_SELECT_ACTION, async ({ ack, body, payload, context: bolt }) => {
    const teamId = teamOfRequest(bolt, body.team?.id, body.user?.team_id);
    const typed = typeof payload.value === 'string' ? payload.value : '';
    await ack(await inOptionsTime(tenderSuggestions(context, teamId, typed)));
  });

  // "Comment on a tender" on any message.
  controls.shortcut<MessageShortcut>(
    ReachIds.commentShortcut,
    async ({ ack, shortcut, client, respond, context: bolt }) => {
      await ack();
      const teamId = teamOfRequest(bolt, shortcut.team?.id, shortcut.user.team_id);
      const request: SlackRequest = {
        teamId,
        userId: shortcut.user.id,
        channelId: shortcut.channel.id,
        respond,
        slack: client,
        kind: 'click',
      };
      await withFailures(context, request, 'comment on a message', null, () =>
        commentOnMessage(context, request, { triggerId: shortcut.trigger_id, message: shortcut.message }),
      );
    },
  );
  controls.view(TENDER_PICKER.callback, async ({ ack, body, view, client, context: bolt }) => {
    const answer = ack as (answer?: PickerAnswer) => Promise<void>;
    let acked = false;
    const ackOnce = async (reply?: PickerAnswer) => {
      acked = true;
      await answer(reply);
    };
    try {
      await submitTenderPicker(context, client, submissionOf(body, view, bolt), ackOnce);
    } catch (error) {
      context.logger.error({ err: error, what: 'tender picker' }, 'the tender picker failed');
      if (!acked)
        await answer(
          fieldErrors({
            [TENDER_PICKER.block]: plainSentence`Tenderbot could not open the comment window. Try again in a moment.`,
          }),
        );
    }
  });
}
