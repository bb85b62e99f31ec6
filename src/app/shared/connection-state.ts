import type { FeatureContext } from './feature-context.ts';
import { keyReadable } from './key-access.ts';
import type { ConnectionState } from './views/getting-started.ts';

/** Whether the workspace can search: its own key, the app's default, none, or one that cannot be read. */
export async function connectionState(context: FeatureContext, teamId: string): Promise<ConnectionState> {
  const connection = await context.store.getConnection(teamId);
  if (connection) return (await keyReadable(context, teamId)) ? 'workspace' : 'unreadable';
  return context.config.PROCUREMENT_API_KEY ? 'default' : 'none';
}
