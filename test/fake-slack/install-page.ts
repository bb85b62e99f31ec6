import { request } from 'undici';
import { expect } from 'vitest';
import type { FakeSlack } from '../../src/fake-slack/fake-slack.ts';

/**
 * A person's Allow or Cancel on the fake Slack's install page, as the browser posts it (`fields`:
 * the page's hidden fields, `target` and `decision`): where Slack sends the browser next.
 */
export async function decideOnInstallPage(slack: FakeSlack, fields: URLSearchParams): Promise<URL> {
  const answer = await request(slack.authorizeUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: fields.toString(),
  });
  await answer.body.dump();
  expect(answer.statusCode).toBe(302);
  return new URL(String(answer.headers.location));
}
