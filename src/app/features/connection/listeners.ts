import type { BlockAction, ButtonAction } from '@slack/bolt';
import type { ControlRouter } from '../../shared/controls/control-registry.ts';
import { onButton, SUBMISSION_BUDGET_MS } from '../../shared/controls/on-action.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { ConnectIds, HomeIds } from '../../shared/ids.ts';
import { teamOfRequest } from '../../shared/request-scope.ts';
import { parseConnectSubmission } from '../../shared/values/modal-submissions.ts';
import { confirmDisconnect, keepKey, openConnectModal, submitConnectWithinBudget } from './workspace-key.ts';

/** Disconnecting (and keeping) a key, the Home tab's connect buttons, and the connect window. */
export function registerConnectionListeners(controls: ControlRouter, context: FeatureContext): void {
  onButton(controls, context, ConnectIds.disconnect, async (request) => confirmDisconnect(context, request));
  onButton(controls, context, ConnectIds.keepKey, async (request) => keepKey(request));

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
}
