import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebClient } from '@slack/web-api';
import { expect, it } from 'vitest';
import { classifySlackError, isMessageGone } from '../../../src/app/adapters/slack-errors.ts';

it('reads a 429 as rate-limited also when the interactive client has spent its own retries on it', async () => {
  let calls = 0;
  const server = createServer((_request, response) => {
    calls++;
    response.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' });
    response.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    // As the app's client is made (src/cli/compose-bot.ts): it retries 429s itself, then gives up.
    const client = new WebClient('xoxb-test', {
      slackApiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`,
      retryConfig: { retries: 1, minTimeout: 10, maxTimeout: 20 },
    });
    const failure = await client.chat.postMessage({ channel: 'C1', text: 'x' }).catch((error) => error);
    expect(calls).toBe(2);
    expect(classifySlackError(failure)).toEqual({ kind: 'rate-limited', retryAfterSeconds: 1 });
    // Any other request error (no answer at all) is still an unknown outcome.
    expect(
      classifySlackError({ code: 'slack_webapi_request_error', original: { message: 'socket hang up' } }),
    ).toEqual({ kind: 'unknown-outcome' });
  } finally {
    server.close();
  }
});

it('knows a message that can never be changed again: deleted, or its channel gone', () => {
  const refused = (code: string) => ({
    code: 'slack_webapi_platform_error',
    data: { ok: false, error: code },
  });
  for (const code of ['message_not_found', 'channel_not_found', 'is_archived', 'not_in_channel'])
    expect(isMessageGone(refused(code)), code).toBe(true);
  for (const code of ['ratelimited', 'cant_update_message', 'invalid_blocks'])
    expect(isMessageGone(refused(code)), code).toBe(false);
  expect(isMessageGone(new Error('timeout'))).toBe(false);
  expect(isMessageGone(null)).toBe(false);
});
