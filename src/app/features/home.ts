import type { WebClient } from '@slack/web-api';
import { homeView } from '../blocks/messages.ts';
import { keyReadable, mayManageKey } from './connection.ts';
import type { FeatureContext } from './feature-context.ts';

// The App Home tab, in its own module: the pipelines feature adds bookmarks, active pipelines and
// saved searches here (issue 8, item 7) without touching the connection's code.

/** The Home tab: the connection state and the commands. */
export async function publishHome(
  context: FeatureContext,
  slack: WebClient,
  teamId: string,
  userId: string,
): Promise<void> {
  const connection = await context.store.getConnection(teamId);
  const state =
    connection && !(await keyReadable(context, teamId))
      ? 'This workspace’s stored key can no longer be read (the app’s encryption key was changed). A workspace admin must reconnect with `/tender connect`.'
      : connection
        ? `Connected with this workspace’s own key (by <@${connection.connectedBy}>, ${connection.connectedAt.slice(0, 10)}).`
        : context.config.PROCUREMENT_API_KEY
          ? 'Using the app’s default key. A workspace admin can connect the organisation’s own key.'
          : 'Not connected. A workspace admin can connect the organisation’s API key.';
  const canConnect = await mayManageKey(context, teamId, userId);
  await slack.views.publish({ user_id: userId, view: homeView({ connection: state, canConnect }) as never });
}
