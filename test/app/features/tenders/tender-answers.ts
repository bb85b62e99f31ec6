import type { HandlerHarness } from '../../../support/handler-context.ts';

/** The action ids of every element of the answers. */
export function actionIds(answers: unknown): string[] {
  return [...JSON.stringify(answers).matchAll(/"action_id":"([^"]+)"/g)].map((match) => match[1] as string);
}

/** The workspace's bookmarks (Acme's, through the workspace's key), as the service holds them. */
export async function bookmarksOf(harness: HandlerHarness): Promise<string[]> {
  const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
  return (await client.bookmarks.list({ limit: 100 })).data.map((bookmark) => bookmark.tenderId);
}
