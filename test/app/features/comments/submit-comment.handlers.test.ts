import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CommentSubmissionAnswer,
  GUEST_WRITE_REFUSAL,
  STALE_MODAL_SENTENCE,
  submitComment,
} from '../../../../src/app/features/comments/submit-comment.ts';
import { COMMENT_INPUT_MAX } from '../../../../src/app/features/comments/views/comment-modal.ts';
import { PERSONAL_KEY_REQUIRED_SENTENCE } from '../../../../src/app/shared/failure-sentences.ts';
import { CommentIds } from '../../../../src/app/shared/ids.ts';
import { plainOf } from '../../../../src/app/shared/views/plain-sentence.ts';
import type { FakeView } from '../../../../src/fake-slack/types.ts';
import { TENDER_B } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';
import { textOf } from '../../../support/slack-text.ts';
import { openWindow, threadIn } from './handler-support.ts';

let harness: HandlerHarness;
beforeAll(async () => {
  harness = await startHandlerHarness();
}, 60_000);
afterAll(async () => harness?.close());

const TENDER = { entityType: 'tender', entityId: TENDER_B } as const;
/** Long enough that the local service always answers within it: the quick path, whatever the machine's load. */
const PATIENT_BUDGET_MS = 60_000;

/** Submits `text` in `window` as `userId`; answers what the submission was acknowledged with. */
async function submit(
  userId: string,
  window: FakeView,
  text: string,
  metadata: string = window.view.private_metadata,
): Promise<{ acks: (CommentSubmissionAnswer | undefined)[] }> {
  const acks: (CommentSubmissionAnswer | undefined)[] = [];
  await submitComment(
    harness.context,
    harness.request({ userId }).slack,
    {
      teamId: harness.slack.teamId,
      userId,
      text,
      parentValue: null,
      privateMetadata: metadata,
      viewId: window.id,
      view: window.view,
    },
    async (answer) => {
      acks.push(answer);
    },
    PATIENT_BUDGET_MS,
  );
  return { acks };
}

function fieldErrorOf(answer: CommentSubmissionAnswer | undefined): string | undefined {
  return answer?.response_action === 'errors' ? answer.errors[CommentIds.textBlock] : undefined;
}

describe('submitComment (the window’s Post comment)', () => {
  it('posts the comment once, keeps who wrote it, closes the window and says so in the channel', async () => {
    const window = await openWindow(harness, 'U0MEMBER', TENDER);
    const { acks } = await submit('U0MEMBER', window, '  Worth a look: the lots are small.  ');
    expect(acks).toEqual([undefined]);
    const posted = (await threadIn(harness, TENDER)).filter(
      (comment) => comment.body === 'Worth a look: the lots are small.',
    );
    expect(posted).toHaveLength(1);
    const authors = await harness.context.store.commentAuthors(harness.slack.teamId, [posted[0]?.id ?? '']);
    expect(authors.get(posted[0]?.id ?? '')).toBe('U0MEMBER');
    const told = harness.slack.messagesIn('C0BIDS', 'U0MEMBER').at(-1);
    expect(told?.ephemeralTo).toBe('U0MEMBER');
    expect(textOf(told)).toContain('Your comment on the tender');

    // The same text submitted again (a double click, a retry) makes no second comment.
    await submit('U0MEMBER', window, 'Worth a look: the lots are small.');
    expect(
      (await threadIn(harness, TENDER)).filter(
        (comment) => comment.body === 'Worth a look: the lots are small.',
      ),
    ).toHaveLength(1);
  });

  it('refuses a comment longer than the box holds, on the field, and posts nothing', async () => {
    const window = await openWindow(harness, 'U0MEMBER', TENDER);
    const before = (await threadIn(harness, TENDER)).length;
    const { acks } = await submit('U0MEMBER', window, 'x'.repeat(COMMENT_INPUT_MAX + 1));
    expect(fieldErrorOf(acks[0])).toBe(
      'A comment can be at most 3,000 characters here; this one has 3,001. Shorten it.',
    );
    // Blank, or only invisible characters (zero-width space, joiner, direction marks): nothing to read.
    for (const blank of ['   ', '\u200B', ' \u200D\u200E\u2060 ', '\uFEFF\u202E']) {
      const empty = await submit('U0MEMBER', window, blank);
      expect(fieldErrorOf(empty.acks[0]), JSON.stringify(blank)).toBe('Write your comment first.');
    }
    expect(await threadIn(harness, TENDER)).toHaveLength(before);
  });

  it('refuses a guest, and someone submitting a window another person opened', async () => {
    const before = (await threadIn(harness, TENDER)).length;
    const guestWindow = await openWindow(harness, 'U0GUEST', TENDER);
    expect(fieldErrorOf((await submit('U0GUEST', guestWindow, 'Hello')).acks[0])).toBe(GUEST_WRITE_REFUSAL);
    const membersWindow = await openWindow(harness, 'U0MEMBER', TENDER);
    const forged = await submit('U0ADMIN', membersWindow, 'Hello', membersWindow.view.private_metadata);
    expect(fieldErrorOf(forged.acks[0])).toBe(STALE_MODAL_SENTENCE);
    const tampered = await submit('U0MEMBER', membersWindow, 'Hello', '{"e":"tender"}');
    expect(fieldErrorOf(tampered.acks[0])).toBe(STALE_MODAL_SENTENCE);
    expect(await threadIn(harness, TENDER)).toHaveLength(before);
  });

  it('refuses a person without their own key where the workspace asks for one', async () => {
    const teamId = harness.slack.teamId;
    const window = await openWindow(harness, 'U0MEMBER', TENDER);
    const before = (await threadIn(harness, TENDER)).length;
    await harness.context.store.saveWorkspaceSettings({ teamId, personalKeysForWrites: true });
    try {
      const { acks } = await submit('U0MEMBER', window, 'Hello');
      // A field's error is plain text in Slack: the sentence without its code marks.
      expect(fieldErrorOf(acks[0])).toBe(String(plainOf(PERSONAL_KEY_REQUIRED_SENTENCE)));
      expect(fieldErrorOf(acks[0])).toContain('Run /tender connect me to link it');
    } finally {
      await harness.context.store.saveWorkspaceSettings({ teamId, personalKeysForWrites: false });
    }
    expect(await threadIn(harness, TENDER)).toHaveLength(before);
  });
});
