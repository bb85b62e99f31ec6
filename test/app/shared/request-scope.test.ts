import { describe, expect, it } from 'vitest';
import { teamOfRequest } from '../../../src/app/shared/request-scope.ts';

describe('the workspace of a request', () => {
  it('is the one Bolt found the token for, before anything the body says', () => {
    // A modal opened through a shared channel: the token is the installing workspace's.
    expect(teamOfRequest({ teamId: 'T0INSTALLED' }, 'T0PERSON', 'T0OTHER')).toBe('T0INSTALLED');
  });

  it('falls back to the body’s team, skipping what is missing (an org-wide install’s `team: null`)', () => {
    expect(teamOfRequest({}, null, undefined, '', 'T0USER')).toBe('T0USER');
    expect(teamOfRequest({ teamId: '' }, 'T0BODY')).toBe('T0BODY');
    expect(teamOfRequest({})).toBe('');
  });
});
