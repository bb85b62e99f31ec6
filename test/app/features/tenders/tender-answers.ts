import { TenderIds } from '../../../../src/app/shared/ids.ts';
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

/** A message's blocks without Share in channel, which an answer in direct messages does not offer. */
export function withoutShare(blocks: unknown): unknown {
  return (blocks as { elements?: { action_id?: string }[] }[] | undefined)?.map((block) =>
    block.elements
      ? { ...block, elements: block.elements.filter((each) => each.action_id !== TenderIds.share) }
      : block,
  );
}
