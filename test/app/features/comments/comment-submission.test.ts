import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { candidateTargets } from '../../../../src/app/features/comments/comments-command.ts';
import { submissionKey } from '../../../../src/app/features/comments/submit-comment.ts';
import { parseCommentSubmission } from '../../../../src/app/shared/values/modal-submissions.ts';

describe('submissionKey', () => {
  const modalKey = '1b4e28ba-2fa1-41d2-883f-0016d3cca427';
  it('is a valid UUID, the same for the same comment, different for a changed text, reply or modal', () => {
    const key = submissionKey(modalKey, 'hello', null);
    expect(z.uuid().safeParse(key).success).toBe(true);
    expect(submissionKey(modalKey, 'hello', null)).toBe(key);
    const others = [
      submissionKey(modalKey, 'hello!', null),
      submissionKey(modalKey, 'hello', 'c1'),
      submissionKey('2b4e28ba-2fa1-41d2-883f-0016d3cca427', 'hello', null),
    ];
    expect(others.length).toBe(3);
    for (const other of others) {
      expect(other).not.toBe(key);
      expect(z.uuid().safeParse(other).success).toBe(true);
    }
  });
});

describe('parseCommentSubmission', () => {
  it('reads the text and the reply choice; anything unreadable reads as empty', () => {
    expect(
      parseCommentSubmission({
        'comment/text_block': { 'comment/text': { type: 'plain_text_input', value: 'Hi' } },
        'comment/parent_block': { 'comment/parent': { selected_option: { value: 'c9' } } },
      }),
    ).toEqual({ text: 'Hi', parentValue: 'c9' });
    expect(
      parseCommentSubmission({
        'comment/text_block': { 'comment/text': { value: null } },
        'comment/parent_block': { 'comment/parent': { selected_option: null } },
      }),
    ).toEqual({ text: '', parentValue: null });
    for (const broken of [null, 'x', 42, { 'comment/text_block': { 'comment/text': { value: 7 } } }])
      expect(parseCommentSubmission(broken)).toEqual({ text: '', parentValue: null });
  });
});

describe('candidateTargets (/tender comments <id>)', () => {
  it('a prefix names the kind; a UUID is a buyer then a supplier; another id a framework then a tender', () => {
    expect(candidateTargets('supplier:abc')).toEqual([{ entityType: 'supplier', entityId: 'abc' }]);
    expect(candidateTargets('BUYER:abc')).toEqual([{ entityType: 'buyer', entityId: 'abc' }]);
    const uuid = '0b8c2b6e-1d5f-4c1a-9b7e-2f3a4b5c6d7e';
    expect(candidateTargets(uuid).map((target) => target.entityType)).toEqual(['buyer', 'supplier']);
    expect(candidateTargets(' ocds-b5fd17-1 ').map((target) => target.entityType)).toEqual([
      'framework',
      'tender',
    ]);
    for (const bad of ['', '   ', 'two words', 'x'.repeat(301)]) expect(candidateTargets(bad)).toEqual([]);
  });
});
