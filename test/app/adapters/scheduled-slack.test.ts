import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduledSlack } from '../../../src/app/adapters/scheduled-slack.ts';
import { classifySlackError } from '../../../src/app/adapters/slack-errors.ts';
import { mrkdwn } from '../../../src/app/shared/views/mrkdwn.ts';

/** A Web API on loopback that records each call's token and body, and answers as Slack does. */
const seen: { method: string; token: string; body: Record<string, unknown> }[] = [];
const server = createServer(async (request: IncomingMessage, response) => {
  let text = '';
  for await (const chunk of request) text += chunk;
  const method = (request.url ?? '').replace('/api/', '');
  seen.push({
    method,
    token: (request.headers.authorization ?? '').replace('Bearer ', ''),
    body: JSON.parse(text) as Record<string, unknown>,
  });
  const scripted = answers.shift();
  if (scripted) {
    response.writeHead(scripted.status, scripted.headers ?? {}).end(scripted.body);
    return;
  }
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify({ ok: true, ts: '1.000100', messages: [] }));
});
/** Answers to give instead of Slack's usual `ok`, first to last. */
const answers: { status: number; body: string; headers?: Record<string, string> }[] = [];
let apiUrl = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the scheduler’s Slack client', () => {
  it('posts with each workspace’s own token and sends no team id to Slack', async () => {
    const tokens = new Map([
      ['T1', 'xoxb-one'],
      ['T2', 'xoxb-two'],
    ]);
    const { slack, close } = scheduledSlack({
      tokenFor: async (teamId) => tokens.get(teamId) ?? null,
      apiUrl,
      timeoutMs: 2000,
    });
    seen.length = 0;
    await slack.chat.postMessage({ teamId: 'T1', channel: 'C1', text: mrkdwn`one` });
    await slack.conversations.history({ teamId: 'T2', channel: 'C2' });
    expect(seen.map((call) => [call.method, call.token])).toEqual([
      ['chat.postMessage', 'xoxb-one'],
      ['conversations.history', 'xoxb-two'],
    ]);
    expect(seen[0]?.body).toEqual({ channel: 'C1', text: mrkdwn`one` });
    // A workspace without a token (uninstalled) is refused before any request, as Slack would.
    const refused = await slack.chat
      .postMessage({ teamId: 'T9', channel: 'C1', text: mrkdwn`x` })
      .catch((e) => e);
    expect(classifySlackError(refused)).toMatchObject({ kind: 'refused', code: 'not_authed' });
    expect(seen).toHaveLength(2);
    await close();
  });

  it('uses the one bot token in single-workspace mode', async () => {
    const { slack, close } = scheduledSlack({ token: 'xoxb-single', apiUrl, timeoutMs: 2000 });
    seen.length = 0;
    await slack.chat.postMessage({ teamId: 'T1', channel: 'C1', text: mrkdwn`one` });
    expect(seen[0]?.token).toBe('xoxb-single');
    await close();
  });

  it('reads each way a call fails as the WebClient reports it, so a delivery knows what to do', async () => {
    const rateLimited: string[] = [];
    const counted = scheduledSlack({
      token: 'xoxb-single',
      apiUrl,
      timeoutMs: 2000,
      onRateLimited: (method) => rateLimited.push(method),
    });
    const failureOf = (answer: (typeof answers)[number]) => {
      answers.push(answer);
      return counted.slack.chat.postMessage({ teamId: 'T1', channel: 'C1', text: mrkdwn`x` }).catch((e) => e);
    };
    expect(
      classifySlackError(await failureOf({ status: 429, body: '', headers: { 'retry-after': '7' } })),
    ).toEqual({
      kind: 'rate-limited',
      retryAfterSeconds: 7,
    });
    expect(rateLimited).toEqual(['chat.postMessage']);
    expect(classifySlackError(await failureOf({ status: 503, body: '<html>busy</html>' }))).toEqual({
      kind: 'unknown-outcome',
    });
    expect(classifySlackError(await failureOf({ status: 400, body: 'bad' }))).toEqual({
      kind: 'refused',
      code: 'http_400',
    });
    expect(
      classifySlackError(await failureOf({ status: 200, body: '{"ok":false,"error":"is_archived"}' })),
    ).toMatchObject({
      kind: 'channel-gone',
    });
    // A body that is not JSON (a proxy's page, a cut answer): whether it was posted is not known.
    expect(classifySlackError(await failureOf({ status: 200, body: '<html>' }))).toEqual({
      kind: 'unknown-outcome',
    });
    // Past its 8 MiB bound it is not read further, and is not known either.
    const huge = await failureOf({ status: 200, body: `{"ok":true,"x":"${'y'.repeat(9 * 1024 * 1024)}"}` });
    expect(huge).toBeInstanceOf(Error);
    expect(classifySlackError(huge)).toEqual({ kind: 'unknown-outcome' });
    expect(answers).toHaveLength(0);
    await counted.close();
  });
});
