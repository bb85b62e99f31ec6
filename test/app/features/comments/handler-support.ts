import { randomUUID } from 'node:crypto';
import type { CommentTarget } from '../../../../src/app/features/comments/comment-access.ts';
import { openCommentModal } from '../../../../src/app/features/comments/comment-window.ts';
import type { Comment } from '../../../../src/contract/schemas.ts';
import type { FakeView } from '../../../../src/fake-slack/types.ts';
import type { HandlerHarness } from '../../../support/handler-context.ts';
import { textOf } from '../../../support/slack-text.ts';

/** Opens the comment window as `userId` from #bids (a fresh trigger_id, as a click gives) and answers it as Slack holds it. */
export async function openWindow(
  harness: HandlerHarness,
  userId: string,
  target: CommentTarget,
  channelId = 'C0BIDS',
): Promise<FakeView> {
  const before = new Set(harness.slack.openModals(userId).map((view) => view.id));
  await openCommentModal(harness.context, harness.request({ userId, channelId, kind: 'click' }), {
    triggerId: harness.slack.workspaceState.newTrigger(userId),
    target,
  });
  const opened = harness.slack.openModals(userId).find((view) => !before.has(view.id));
  if (!opened) throw new Error('no comment window was opened');
  return opened;
}

/** A window as Slack holds it now (after views.update). */
export function windowNow(harness: HandlerHarness, userId: string, viewId: string): FakeView {
  const view = harness.slack.openModals(userId).find((candidate) => candidate.id === viewId);
  if (!view) throw new Error(`window ${viewId} is not open`);
  return view;
}

/** What a person reads in a window. */
export function windowText(view: FakeView): string {
  return textOf(view.view);
}

/** The action ids of a window's elements, at any depth. */
export function actionIdsOf(view: FakeView): string[] {
  return [...JSON.stringify(view.view).matchAll(/"action_id":"([^"]+)"/g)].map((match) => match[1] as string);
}

/** A comment written through Tenderbot by `userId`: posted with the workspace's key, its Slack author kept. */
export async function commentBy(
  harness: HandlerHarness,
  userId: string,
  target: CommentTarget,
  body: string,
): Promise<Comment> {
  const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
  const comment = await client.comments.create(
    { ...target, body, parentId: null },
    { idempotencyKey: randomUUID() },
  );
  await harness.context.store.recordCommentAuthor({
    commentId: comment.id,
    teamId: harness.slack.teamId,
    userId,
    createdAt: new Date(),
  });
  return comment;
}

/** The thread on an entity as the service holds it, read with the workspace's key. */
export async function threadIn(harness: HandlerHarness, target: CommentTarget): Promise<Comment[]> {
  const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
  return (await client.comments.list({ ...target, limit: 100 })).data;
}
