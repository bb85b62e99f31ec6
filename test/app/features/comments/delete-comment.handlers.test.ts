import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELETE_REFUSAL, deleteFromModal } from '../../../../src/app/features/comments/delete-comment.ts';
import { encode } from '../../../../src/app/shared/values/codec.ts';
import type { FakeView } from '../../../../src/fake-slack/types.ts';
import { TENDER_A } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';
import { commentBy, openWindow, threadIn, windowNow, windowText } from './handler-support.ts';

let harness: HandlerHarness;
beforeAll(async () => {
  harness = await startHandlerHarness();
}, 60_000);
afterAll(async () => harness?.close());

const TENDER = { entityType: 'tender', entityId: TENDER_A } as const;

/** "Delete" clicked in `window` by `userId` on `commentId` (or with a raw button value). */
async function clickDelete(userId: string, window: FakeView, value: string): Promise<FakeView> {
  await deleteFromModal(harness.context, harness.request({ userId }).slack, {
    teamId: harness.slack.teamId,
    userId,
    viewId: window.id,
    privateMetadata: window.view.private_metadata,
    value,
    typedText: 'half-written reply',
    view: window.view,
  });
  return windowNow(harness, userId, window.id);
}

async function stillThere(commentId: string): Promise<boolean> {
  const comment = (await threadIn(harness, TENDER)).find((candidate) => candidate.id === commentId);
  if (!comment) throw new Error(`comment ${commentId} is not in the thread`);
  return comment.deletedAt === null;
}

describe('deleteFromModal ("Delete" in the comment window)', () => {
  it('deletes the author’s own comment and redraws the window saying so, keeping what they typed', async () => {
    const comment = await commentBy(harness, 'U0MEMBER', TENDER, 'Posted by mistake.');
    const window = await openWindow(harness, 'U0MEMBER', TENDER);
    const after = await clickDelete('U0MEMBER', window, encode('commentDelete', { d: comment.id }));
    expect(await stillThere(comment.id)).toBe(false);
    expect(windowText(after)).toContain('The comment was deleted.');
    expect(JSON.stringify(after.view)).toContain('half-written reply');
  });

  it('an admin may delete anyone’s comment', async () => {
    const comment = await commentBy(harness, 'U0MEMBER', TENDER, 'An admin tidies this up.');
    const window = await openWindow(harness, 'U0ADMIN', TENDER);
    await clickDelete('U0ADMIN', window, encode('commentDelete', { d: comment.id }));
    expect(await stillThere(comment.id)).toBe(false);
  });

  it('refuses a member deleting another person’s comment (a forged click): nothing deleted, the window says why', async () => {
    const comment = await commentBy(harness, 'U0ADMIN', TENDER, 'The admin’s own note.');
    const window = await openWindow(harness, 'U0MEMBER', TENDER);
    const after = await clickDelete('U0MEMBER', window, encode('commentDelete', { d: comment.id }));
    expect(await stillThere(comment.id)).toBe(true);
    expect(windowText(after)).toContain(String(DELETE_REFUSAL));
  });

  it('refuses a guest, even on a comment kept as theirs, and a click from a window someone else opened', async () => {
    const guests = await commentBy(harness, 'U0GUEST', TENDER, 'A guest’s note.');
    const guestWindow = await openWindow(harness, 'U0GUEST', TENDER);
    await clickDelete('U0GUEST', guestWindow, encode('commentDelete', { d: guests.id }));
    expect(await stillThere(guests.id)).toBe(true);

    const admins = await commentBy(harness, 'U0ADMIN', TENDER, 'Only from the admin’s own window.');
    const membersWindow = await openWindow(harness, 'U0MEMBER', TENDER);
    // The admin clicking in the member's window: the window is not theirs, so nothing is deleted.
    await deleteFromModal(harness.context, harness.request({ userId: 'U0ADMIN' }).slack, {
      teamId: harness.slack.teamId,
      userId: 'U0ADMIN',
      viewId: membersWindow.id,
      privateMetadata: membersWindow.view.private_metadata,
      value: encode('commentDelete', { d: admins.id }),
      typedText: undefined,
      view: membersWindow.view,
    });
    expect(await stillThere(admins.id)).toBe(true);
    expect(windowText(windowNow(harness, 'U0MEMBER', membersWindow.id))).toContain(String(DELETE_REFUSAL));
  });

  it('refuses a changed button value: nothing deleted, the window says the button is out of date', async () => {
    const comment = await commentBy(harness, 'U0MEMBER', TENDER, 'Kept.');
    const window = await openWindow(harness, 'U0MEMBER', TENDER);
    const after = await clickDelete('U0MEMBER', window, '{"d":');
    expect(await stillThere(comment.id)).toBe(true);
    expect(windowText(after)).toContain('That button is out of date or was changed, so nothing was deleted.');
  });
});
