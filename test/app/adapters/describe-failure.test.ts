import { describe, expect, it } from 'vitest';
import { describeFailure } from '../../../src/app/adapters/describe-failure.ts';
import {
  KeyUnreadableError,
  PERSONAL_KEY_REQUIRED_SENTENCE,
  PersonalKeyRequiredError,
} from '../../../src/app/adapters/workspace-clients.ts';

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
