import { describe, expect, it } from 'vitest';
import { KeyUnreadableError, PersonalKeyRequiredError } from '../../../src/app/shared/errors.ts';
import {
  describeFailure,
  EXPIRED_TRIGGER_SENTENCE,
  PERSONAL_KEY_REQUIRED_SENTENCE,
} from '../../../src/app/shared/failure-sentences.ts';
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
    // Words that look like an API key: said as that, in any field, never as words too many.
    for (const field of ['q', 'region']) {
      const key = describeFailure(
        new ValidationError(answer, [
          {
            field,
            message:
              'must not carry an API key: send the key in the header "Authorization: Bearer <key>", and make a new key if this one was shared',
          },
        ]),
      );
      expect(key.sentence).toContain('looks like an API key');
      expect(key.sentence).toContain(
        'make a new one, connect it with `/tender connect`, then delete this one',
      );
      expect(key.sentence).not.toContain('too many');
    }
    // Another refusal of the words is named in words, not as too many.
    expect(
      describeFailure(new ValidationError(answer, [{ field: 'q', message: 'Invalid input' }])).sentence,
    ).toBe('The tender service did not accept the search words. Change them and try again.');
    // Any other field is named in words, with what is wrong with it: never the validator's own words.
    const other = describeFailure(new ValidationError(answer, [{ field: 'limit', message: 'too big' }]));
    expect(other.sentence).toBe(
      'The tender service did not accept the number of results (too large). Change it and try again.',
    );
    const refused = (field: string, message: string) =>
      describeFailure(new ValidationError(answer, [{ field, message }])).sentence;
    expect(refused('region', 'Too big: expected string to have <=200 characters')).toBe(
      'The tender service did not accept the region (too long: 200 characters at most). Change it and try again.',
    );
    expect(refused('region', 'Too small: expected string to have >=1 characters')).toBe(
      'The tender service did not accept the region (empty). Change it and try again.',
    );
    expect(refused('id', 'Too big: expected string to have <=300 characters')).toBe(
      'The tender service did not accept the id (too long: 300 characters at most). Change it and try again.',
    );
    // A field Tenderbot has no word for is named as code, escaped.
    expect(refused('<!channel>', 'Invalid input: expected number')).toBe(
      'The tender service did not accept the field `&lt;!channel&gt;`. Change it and try again.',
    );
    const several = describeFailure(
      new ValidationError(answer, [
        { field: 'region', message: 'Too big: expected string to have <=200 characters' },
        { field: 'cpv', message: 'Invalid string: must match pattern /^\\d+$/' },
      ]),
    ).sentence;
    expect(several).toBe(
      'The tender service did not accept the region (too long: 200 characters at most) or the CPV code. Change them and try again.',
    );
    expect(several).not.toMatch(/Too big|expected|Invalid/);
    // A number's bounds are not an empty field.
    expect(refused('valueMin', 'Too small: expected number to be >=0')).toBe(
      'The tender service did not accept the lowest value (too small). Change it and try again.',
    );
    expect(refused('limit', 'Too big: expected number to be <=100')).toBe(
      'The tender service did not accept the number of results (too large). Change it and try again.',
    );
    // A bid's dates by their names on the forms (a trial met `dueDate` and `targetSubmissionDate`).
    expect(refused('dueDate', 'must be a real calendar date')).toBe(
      'The tender service did not accept the due date (not a day the calendar has). Change it and try again.',
    );
    expect(refused('targetSubmissionDate', 'must be a real calendar date')).toBe(
      'The tender service did not accept the target date (not a day the calendar has). Change it and try again.',
    );
  });
});

describe('a window Slack would not open, in words', () => {
  it('an expired trigger is said as taking too long, not as a fault of Tenderbot', () => {
    // What @slack/web-api throws when views.open answers `expired_trigger_id`.
    const expired = Object.assign(new Error('An API error occurred: expired_trigger_id'), {
      code: 'slack_webapi_platform_error',
      data: { ok: false, error: 'expired_trigger_id' },
    });
    const said = describeFailure(expired);
    expect(said.sentence).toBe(EXPIRED_TRIGGER_SENTENCE);
    expect(said.sentence).toContain('took too long');
    expect(said.sentence).not.toContain('Tenderbot’s side');
    // Another refusal by Slack is still a fault of Tenderbot's.
    const other = Object.assign(new Error('An API error occurred: invalid_arguments'), {
      code: 'slack_webapi_platform_error',
      data: { ok: false, error: 'invalid_arguments' },
    });
    expect(describeFailure(other).sentence).toContain('Tenderbot’s side');
  });
});
