import { describe, expect, it } from 'vitest';
import {
  COMMENT_LABELS,
  commentModal,
  refilledView,
} from '../../../../../src/app/features/comments/views/comment-modal.ts';
import {
  commentsThreadMessage,
  DELETED_LINE,
  MODAL_THREAD_MAX,
  threadOrder,
} from '../../../../../src/app/features/comments/views/comment-thread.ts';
import { blockKitProblems, viewProblems } from '../../../../../src/app/shared/views/block-kit-limits.ts';
import { mrkdwn } from '../../../../../src/app/shared/views/mrkdwn.ts';
import { Comment } from '../../../../../src/contract/schemas.ts';

let clock = Date.parse('2026-11-21T09:30:00Z');

function comment(id: string, parentId: string | null, body: string | null = `Text of ${id}`): Comment {
  clock += 60_000;
  const at = new Date(clock).toISOString();
  return Comment.parse({
    id,
    entityType: 'tender',
    entityId: 'ocds-1',
    parentId,
    body,
    author: { id: 'usr-carol', name: 'Carol <!channel> Member' },
    createdAt: at,
    updatedAt: at,
    deletedAt: body === null ? at : null,
  });
}

describe('threadOrder', () => {
  it('puts replies under their parent, oldest first, and keeps orphans and cycles visible', () => {
    const comments = [
      comment('a', null),
      comment('b', null),
      comment('a1', 'a'),
      comment('a1x', 'a1'),
      comment('a2', 'a'),
      comment('orphan', 'gone'),
      comment('c1', 'c2'),
      comment('c2', 'c1'),
    ];
    const order = threadOrder(comments);
    expect(order.length).toBe(comments.length);
    expect(order.map((entry) => `${entry.comment.id}:${entry.depth}`)).toEqual([
      'a:0',
      'a1:1',
      'a1x:2',
      'a2:1',
      'b:0',
      'orphan:0',
      'c1:0',
      'c2:1',
    ]);
  });
});

describe('commentsThreadMessage', () => {
  it('shows authors (Slack person when known), deleted ones as deleted, escapes outside text', () => {
    const comments = [comment('x', null), comment('y', 'x', null), comment('z', null, '<!here> look')];
    const message = commentsThreadMessage({
      entityType: 'tender',
      entityId: 'ocds-1',
      entityName: 'Cleaning <@U123>',
      comments,
      slackAuthors: new Map([['x', 'U0MEMBER']]),
    });
    const text = JSON.stringify(message.blocks);
    expect(text).toContain('<@U0MEMBER>');
    expect(text).toContain('Carol &lt;!channel&gt; Member');
    expect(text).toContain(DELETED_LINE);
    expect(text).toContain('&lt;!here&gt; look');
    expect(text).not.toContain('<!here>');
    expect(text).not.toContain('<@U123>');
    expect(blockKitProblems(message.blocks, 'message')).toEqual([]);
  });

  it('a thread of 400 long comments stays within a message’s limits and says how many are not shown', () => {
    const comments = Array.from({ length: 400 }, (_, n) => comment(`long${n}`, null, 'w'.repeat(5000)));
    const message = commentsThreadMessage({
      entityType: 'buyer',
      entityId: 'b',
      entityName: 'B',
      comments,
      slackAuthors: new Map(),
    });
    expect(message.blocks.length).toBeGreaterThan(2);
    expect(blockKitProblems(message.blocks, 'message')).toEqual([]);
    expect(JSON.stringify(message.blocks)).toMatch(/\d+ earlier comments are not shown/);
  });
});

describe('commentModal', () => {
  const metadata = '{"e":"tender"}';
  /** The modal of a thread on tender T, for a person who may write and delete every comment. */
  const writersModal = (comments: Comment[]) =>
    commentModal({
      privateMetadata: metadata,
      entityType: 'tender',
      entityName: 'T',
      comments,
      slackAuthors: new Map(),
      deletable: new Set(comments.map((c) => c.id)),
      canWrite: true,
    });
  it('with 300 comments of 5,000 characters: within a modal’s limits, newest shown, labels as documented', () => {
    const comments = Array.from({ length: 300 }, (_, n) =>
      comment(`m${n}`, n % 3 ? `m${n - 1}` : null, 'y'.repeat(5000)),
    );
    const view = writersModal(comments);
    expect(viewProblems(view)).toEqual([]);
    const sections = view.blocks.filter((block) => JSON.stringify(block).includes('comment/delete'));
    expect(sections.length).toBe(MODAL_THREAD_MAX);
    const text = JSON.stringify(view);
    for (const label of [
      COMMENT_LABELS.title,
      COMMENT_LABELS.submit,
      COMMENT_LABELS.input,
      COMMENT_LABELS.inputHint,
      COMMENT_LABELS.parentLabel,
      COMMENT_LABELS.parentPlaceholder,
      COMMENT_LABELS.tenderNotice,
      COMMENT_LABELS.postedThreadsNotice,
    ])
      expect(text).toContain(label);
  });

  it('shows a long comment whole: every word, escaped once, over consecutive sections', () => {
    const body = `${'Pricing & margins <b> '.repeat(135)}end of the comment`;
    expect(body.length).toBeLessThanOrEqual(3000);
    const long = comment('long', null, body);
    const view = commentModal({
      privateMetadata: metadata,
      entityType: 'tender',
      entityName: 'T',
      comments: [long],
      slackAuthors: new Map(),
      deletable: new Set(),
      canWrite: true,
    });
    expect(viewProblems(view)).toEqual([]);
    const shown = view.blocks
      .filter((block) => block.type === 'section')
      .map((block) => (block as { text: { text: string } }).text.text)
      .join('');
    const escaped = body.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    expect(escaped.length).toBeGreaterThan(3000);
    expect(shown).toContain(escaped);
    // The channel's thread keeps comments short, and says where to read one whole.
    const message = commentsThreadMessage({
      entityType: 'tender',
      entityId: 'ocds-1',
      entityName: 'T',
      comments: [long],
      slackAuthors: new Map(),
    });
    const inChannel = JSON.stringify(message.blocks);
    expect(inChannel).not.toContain('end of the comment');
    expect(inChannel).toContain('(cut: “Comment or reply” shows the newest comments whole)');
  });

  it('keeps every comment reachable: the newest long ones whole, older ones cut and saying so', () => {
    // 370 words of 7 characters: 2,959 characters, within the box’s 3,000, two sections with its heading.
    const words = (n: number) =>
      Array.from(
        { length: 370 },
        (_, i) => `w${String(n).padStart(2, '0')}x${String(i).padStart(3, '0')}`,
      ).join(' ');
    const comments = Array.from({ length: 60 }, (_, n) => comment(`long${n}`, null, words(n)));
    const view = writersModal(comments);
    expect(viewProblems(view)).toEqual([]);
    // Every one of the 60 has its section (with Delete): none is out of reach.
    expect(view.blocks.filter((block) => JSON.stringify(block).includes('comment/delete'))).toHaveLength(60);
    const shown = view.blocks
      .filter((block) => block.type === 'section')
      .map((block) => (block as { text: { text: string } }).text.text)
      .join('');
    // The newest is there whole, cut between words (joined again, every word is whole); the
    // oldest is cut, and says so.
    expect(shown).toContain(words(59));
    expect(shown).not.toContain(words(0));
    expect(shown).toContain('_(cut: this window shows the newest long comments whole)_');
  });

  it('has no reply choice on an empty thread, no notice off tenders, and no box for a guest', () => {
    const empty = commentModal({
      privateMetadata: metadata,
      entityType: 'buyer',
      entityName: 'B',
      comments: [],
      slackAuthors: new Map(),
      deletable: new Set(),
      canWrite: true,
    });
    expect(viewProblems(empty)).toEqual([]);
    expect(JSON.stringify(empty)).not.toContain('comment/parent');
    expect(JSON.stringify(empty)).not.toContain(COMMENT_LABELS.tenderNotice);
    const guest = commentModal({
      privateMetadata: metadata,
      entityType: 'tender',
      entityName: 'T',
      comments: [comment('g', null)],
      slackAuthors: new Map(),
      deletable: new Set(),
      canWrite: false,
    });
    expect(JSON.stringify(guest)).not.toContain('comment/text');
    expect('submit' in guest).toBe(false);
  });

  it('refilledView keeps the text and the reply choice and replaces (not adds) the sentence', () => {
    const comments = [comment('p', null)];
    const view = commentModal({
      privateMetadata: metadata,
      entityType: 'tender',
      entityName: 'T',
      comments,
      slackAuthors: new Map(),
      deletable: new Set(),
      canWrite: true,
    });
    const select = view.blocks.find((block) => JSON.stringify(block).includes('comment/parent')) as {
      element: { options: { value: string }[] };
    };
    const parentValue = select.element.options[0]?.value ?? '';
    expect(parentValue).toBe('p');
    const once = refilledView(view, {
      text: 'kept words',
      parentId: parentValue,
      problem: mrkdwn`First problem.`,
    });
    const twice = refilledView(once, {
      text: 'kept words',
      parentId: parentValue,
      problem: mrkdwn`Second problem.`,
    });
    const text = JSON.stringify(twice);
    expect(text).toContain('"initial_value":"kept words"');
    expect(text).toContain('"initial_option"');
    expect(text).toContain('Second problem.');
    expect(text).not.toContain('First problem.');
    expect(twice.private_metadata).toBe(metadata);
    expect(viewProblems(twice)).toEqual([]);
  });
});
