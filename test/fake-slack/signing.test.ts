import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { slackSignature } from '../../src/fake-slack/signing.ts';
import { sharedPath } from '../support/shared.ts';

describe('slackSignature', () => {
  it('reproduces Slack’s documented test vector', () => {
    const body = readFileSync(sharedPath('slack', 'signing-vector.body.txt'), 'utf8');
    expect(slackSignature('8f742231b10e8888abcd99yyyzzz85a5', 1531420618, body)).toBe(
      'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    );
  });
});
