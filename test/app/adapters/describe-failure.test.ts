import { describe, expect, it } from 'vitest';
import { describeFailure } from '../../../src/app/adapters/describe-failure.ts';
import {
  KeyUnreadableError,
  PERSONAL_KEY_REQUIRED_SENTENCE,
  PersonalKeyRequiredError,
} from '../../../src/app/adapters/workspace-clients.ts';
import { ValidationError } from '../../../src/client/errors.ts';

describe('failures of personal keys, in words', () => {
  it('a change without one’s own key where the workspace requires it: what to run, nothing to retry', () => {
    expect(describeFailure(new PersonalKeyRequiredError('T1', 'U1'))).toEqual({
      sentence: PERSONAL_KEY_REQUIRED_SENTENCE,
      retryable: false,
    });
  });

  it('an unreadable key is the person’s own (link it again) or the workspace’s (an admin reconnects)', () => {
    const own = describeFailure(new KeyUnreadableError('T1', 'U1'));
    expect(own.sentence).toContain('your own API key');
    expect(own.sentence).toContain('`/tender connect me`');
    expect(own.retryable).toBe(false);
    const workspace = describeFailure(new KeyUnreadableError('T1'));
    expect(workspace.sentence).toContain('this workspace’s stored API key');
    expect(workspace.sentence).not.toContain('connect me');
  });
});

describe('a search the service refuses, in words', () => {
  it('too many words: what to do, no field name or validator wording', () => {
    const answer = { status: 400, code: 'invalid_request', detail: 'invalid', requestId: null, headers: {} };
    const tooLong = describeFailure(
      new ValidationError(answer, [
        { field: 'q', message: 'Too big: expected string to have <=500 characters' },
      ]),
    );
    expect(tooLong).toEqual({
      sentence: 'Those words are too many for one search (500 characters at most). Use fewer words.',
      retryable: false,
    });
    // Any other field is still named (it comes from Tenderbot itself, not from what was typed).
    const other = describeFailure(new ValidationError(answer, [{ field: 'limit', message: 'too big' }]));
    expect(other.sentence).toBe('The service refused the request: limit too big.');
  });
});
