import type { App } from '@slack/bolt';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { teamOfRequest } from '../../shared/request-scope.ts';
import { presentEntityDetails } from './flexpane.ts';

/** The events these listeners subscribe to, as the manifest names them. */
export const WORK_OBJECT_EVENTS: readonly string[] = ['entity_details_requested'];

/** What `entity_details_requested` carries (docs.slack.dev/reference/events/entity_details_requested). */
interface EntityDetailsRequested {
  user?: unknown;
  trigger_id?: unknown;
  external_ref?: { id?: unknown; type?: unknown };
  entity_url?: unknown;
  app_unfurl_url?: unknown;
}

/** Work Objects (issue 26): the flexpane a click on a tender's or bid's entity opens. */
export function registerWorkObjectListeners(app: Pick<App, 'event'>, context: FeatureContext): void {
  // Acknowledged by Bolt's receiver at once; the look-up and entity.presentDetails follow.
  app.event('entity_details_requested', async ({ event, body, client, context: bolt }) => {
    const requested = event as unknown as EntityDetailsRequested;
    const ref = requested.external_ref;
    if (typeof requested.user !== 'string' || typeof requested.trigger_id !== 'string') return;
    if (typeof ref?.id !== 'string') return;
    const entityUrl =
      typeof requested.entity_url === 'string'
        ? requested.entity_url
        : typeof requested.app_unfurl_url === 'string'
          ? requested.app_unfurl_url
          : '';
    await presentEntityDetails(context, client, {
      teamId: teamOfRequest(bolt, body.team_id),
      userId: requested.user,
      triggerId: requested.trigger_id,
      externalRef: { id: ref.id, ...(typeof ref.type === 'string' ? { type: ref.type } : {}) },
      entityUrl,
    }).catch((error) =>
      context.logger.warn({ err: error, teamId: body.team_id }, 'an entity’s details went unshown'),
    );
  });
}
