import type { BlockAction, BlockElementAction } from '@slack/bolt';
import { respondWithoutResponseUrl } from '../../adapters/tell-person.ts';
import type { FeatureContext, SlackRequest } from '../feature-context.ts';
import { withFailures } from '../feature-context.ts';
import { teamOfRequest } from '../request-scope.ts';
import type { ActionId, ControlRouter } from './control-registry.ts';

/**
 * How long a window's submission waits for the service before answering with what it knows
 * ("checking…", "posting…") and finishing in the open window: Slack waits 3 s, the trip from
 * Slack and back is part of them, and the app's own work before the call needs its share.
 */
export const SUBMISSION_BUDGET_MS = 1500;

/**
 * The person, place and answer channel of a click (in a message, a modal or the Home tab). Bolt
 * gives no `respond` where Slack sent no response_url, whatever its types say: the request router
 * fills one in, and so does this, so a click's answers always reach the person.
 */
export function clickRequest(
  body: BlockAction,
  respond: SlackRequest['respond'] | undefined,
  slack: SlackRequest['slack'],
  /** Bolt's context: the workspace it found the token for comes before what the body says. */
  bolt: { teamId?: string },
): SlackRequest {
  return {
    teamId: teamOfRequest(bolt, body.team?.id, body.user.team_id),
    userId: body.user.id,
    channelId: body.channel?.id ?? body.container?.channel_id ?? '',
    respond: respond ?? respondWithoutResponseUrl(slack, body),
    slack,
    kind: 'click',
  };
}

/**
 * Listens to one action (a button, select, overflow or date picker): acknowledges first (Slack
 * waits 3 s at most), then runs `handle` inside withFailures, so a stale or forged value (a
 * StaleValueError from the codec) is a sentence about the click and a failure is said plainly.
 */
export function onAction(
  controls: ControlRouter,
  context: FeatureContext,
  actionId: ActionId,
  handle: (request: SlackRequest, action: BlockElementAction, body: BlockAction) => Promise<void>,
): void {
  controls.action<BlockAction>(actionId, async ({ ack, body, action, respond, client, context: bolt }) => {
    await ack();
    const request = clickRequest(body, respond, client, bolt);
    await withFailures(context, request, actionId, null, (guarded) => handle(guarded, action, body));
  });
}

/**
 * Listens to one button: its value (parsed with its schema inside `handle`: a broken one is a
 * sentence about the click) and the click's body.
 */
export function onButton(
  controls: ControlRouter,
  context: FeatureContext,
  actionId: ActionId,
  handle: (request: SlackRequest, value: string | undefined, body: BlockAction) => Promise<void>,
): void {
  onAction(controls, context, actionId, (request, action, body) =>
    handle(request, buttonValue(action), body),
  );
}

/** The value a button carries (other elements carry none). */
export function buttonValue(action: BlockElementAction): string | undefined {
  return action.type === 'button' ? action.value : undefined;
}

/** What every modal submission hands its feature: who, where, the view's values and its metadata. */
export function submissionOf(
  body: { team?: { id?: string } | null; user: { id: string; team_id?: string } },
  view: { id: string; private_metadata?: unknown; state?: { values?: unknown } },
  bolt: { teamId?: string },
) {
  return {
    teamId: teamOfRequest(bolt, body.team?.id, body.user.team_id),
    userId: body.user.id,
    values: view.state?.values,
    privateMetadata: typeof view.private_metadata === 'string' ? view.private_metadata : '',
    viewId: view.id,
  };
}
