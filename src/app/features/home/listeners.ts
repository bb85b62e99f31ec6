import type { App } from '@slack/bolt';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { teamOfRequest } from '../../shared/request-scope.ts';
import { publishHome } from './home.ts';

/** The Home tab, drawn whenever a person opens it. */
export function registerHomeListeners(app: App, context: FeatureContext): void {
  app.event('app_home_opened', async ({ event, body, client, context: bolt }) => {
    if (event.tab !== 'home') return;
    // Slack sends the Home it last drew (`view`) once there is one: without it, this is a first visit.
    await publishHome(context, client, teamOfRequest(bolt, body.team_id), event.user, {
      firstVisit: !('view' in event && event.view),
    });
  });
}
