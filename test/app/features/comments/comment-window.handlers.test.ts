import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCommentModal, showCommentModal } from '../../../../src/app/features/comments/comment-window.ts';
import { CommentIds } from '../../../../src/app/shared/ids.ts';
import { decode } from '../../../../src/app/shared/values/codec.ts';
import { TENDER_A } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';
import { actionIdsOf, commentBy, openWindow, windowNow, windowText } from './handler-support.ts';

let harness: HandlerHarness;
beforeAll(async () => {
  harness = await startHandlerHarness();
}, 60_000);
afterAll(async () => harness?.close());

const TENDER = { entityType: 'tender', entityId: TENDER_A } as const;

describe('openCommentModal ("Comment" on a card)', () => {
  it('opens the window on the tender with its thread and a box to write in, remembering who opened it where', async () => {
    await commentBy(harness, 'U0ADMIN', TENDER, 'Deadline is tight.');
    const window = await openWindow(harness, 'U0MEMBER', TENDER);
    const read = windowText(window);
    expect(read).toContain('Advertising and marketing services: marketing contract');
    expect(read).toContain('Deadline is tight.');
    expect(actionIdsOf(window)).toContain(CommentIds.textInput);
    expect(window.view.callback_id).toBe(CommentIds.callback);
    const state = await decode('commentModal', window.view.private_metadata, harness.context.store);
    expect(state).toMatchObject({ e: 'tender', id: TENDER_A, u: 'U0MEMBER', c: 'C0BIDS' });
  });

  it('an unknown tender: the window says it was not found and offers no box to write in', async () => {
    const window = await openWindow(harness, 'U0MEMBER', {
      entityType: 'tender',
      entityId: 'ocds-tbdemo-9999999',
    });
    expect(windowText(window)).toContain('That tender was not found');
    expect(actionIdsOf(window)).not.toContain(CommentIds.textInput);
    expect(window.view.submit).toBeUndefined();
  });

  it('a guest reads the thread but gets no box to write in, and no Delete even on their own comment', async () => {
    await commentBy(harness, 'U0GUEST', TENDER, 'A guest cannot delete this.');
    const window = await openWindow(harness, 'U0GUEST', TENDER);
    expect(windowText(window)).toContain('A guest cannot delete this.');
    expect(actionIdsOf(window)).not.toContain(CommentIds.textInput);
    expect(actionIdsOf(window)).not.toContain(CommentIds.delete);
  });

  it('a trigger_id Slack no longer takes: the failure reaches the caller and no window opens', async () => {
    const trigger = harness.slack.workspaceState.newTrigger('U0MEMBER');
    harness.slack.workspaceState.takeTrigger(trigger);
    const before = harness.slack.openModals('U0MEMBER').length;
    await expect(
      openCommentModal(harness.context, harness.request({ userId: 'U0MEMBER', kind: 'click' }), {
        triggerId: trigger,
        target: TENDER,
      }),
    ).rejects.toThrow(/invalid_trigger_id/);
    expect(harness.slack.openModals('U0MEMBER')).toHaveLength(before);
  });
});

describe('showCommentModal (the window another window turns into)', () => {
  it('fills the box with the given text (a quoted message) in the window `show` put up', async () => {
    const request = harness.request({ userId: 'U0ADMIN', kind: 'click' });
    let shownId: string | undefined;
    await showCommentModal(
      harness.context,
      request,
      { target: TENDER, text: 'Quoted from #bids' },
      async (view) => {
        const opened = await request.slack.views.open({
          trigger_id: harness.slack.workspaceState.newTrigger('U0ADMIN'),
          view,
        });
        shownId = opened.view?.id;
        return shownId;
      },
    );
    if (!shownId) throw new Error('no view id');
    const window = windowNow(harness, 'U0ADMIN', shownId);
    expect(JSON.stringify(window.view)).toContain('"initial_value":"Quoted from #bids"');
    expect(actionIdsOf(window)).toContain(CommentIds.textInput);
  });

  it('where each person must use their own key to write, says so in place of the box', async () => {
    const teamId = harness.slack.teamId;
    await harness.context.store.saveWorkspaceSettings({ teamId, personalKeysForWrites: true });
    try {
      const window = await openWindow(harness, 'U0MEMBER', TENDER);
      expect(windowText(window)).toContain('comments are written with each person’s own key');
      expect(windowText(window)).toContain('/tender connect me');
      expect(actionIdsOf(window)).not.toContain(CommentIds.textInput);
    } finally {
      await harness.context.store.saveWorkspaceSettings({ teamId, personalKeysForWrites: false });
    }
  });

  it('refuses a `show` that answers no view id (nothing to fill)', async () => {
    await expect(
      showCommentModal(
        harness.context,
        harness.request({ kind: 'click' }),
        { target: TENDER },
        async () => undefined,
      ),
    ).rejects.toThrow('without a view id');
  });
});
