import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackFetch } from '../../../src/app/adapters/slack-fetch.ts';

/** A Web API and response_url on loopback: each call recorded, answered as scripted or `ok`. */
const seen: { path: string; method: string; contentType: string; body: string }[] = [];
const answers: { status: number; body: string; headers?: Record<string, string> }[] = [];
const server = createServer(async (request, response) => {
  let body = '';
  for await (const chunk of request) body += chunk;
  seen.push({
    path: request.url ?? '',
    method: request.method ?? '',
    contentType: request.headers['content-type'] ?? '',
    body,
  });
  const answer = answers.shift() ?? {
    status: 200,
    body: '{"ok":true}',
    headers: { 'content-type': 'application/json', 'x-slack-req-id': 'r-1' },
  };
  response.writeHead(answer.status, answer.headers ?? {}).end(answer.body);
});
let base = '';
beforeAll(async () => {
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

describe("the app's fetch for Slack", () => {
  it('answers as fetch does: status, headers and body, for the WebClient', async () => {
    const { fetch, close } = slackFetch();
    seen.length = 0;
    const answer = await fetch(`${base}/api/chat.postMessage?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'channel=C1&text=hi',
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-slack-req-id')).toBe('r-1');
    expect(await answer.json()).toEqual({ ok: true });
    expect(seen).toEqual([
      {
        path: '/api/chat.postMessage?x=1',
        method: 'POST',
        contentType: 'application/x-www-form-urlencoded',
        body: 'channel=C1&text=hi',
      },
    ]);
    await close();
  });

  it('counts a 429 by Web API method and hands it back to the WebClient to wait and retry', async () => {
    const limited: string[] = [];
    const { fetch, close } = slackFetch((method) => limited.push(method));
    answers.push({
      status: 429,
      body: '{"ok":false,"error":"ratelimited"}',
      headers: { 'retry-after': '3' },
    });
    const answer = await fetch(`${base}/api/conversations.history`, { method: 'POST', body: 'channel=C1' });
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('3');
    expect(limited).toEqual(['conversations.history']);
    await close();
  });

  it('sends a multipart upload through the built-in fetch, as the WebClient would', async () => {
    const { fetch, close } = slackFetch();
    seen.length = 0;
    const form = new FormData();
    form.append('channel', 'C1');
    const answer = await fetch(`${base}/api/files.upload`, { method: 'POST', body: form });
    expect(answer.status).toBe(200);
    expect(seen[0]?.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(seen[0]?.body).toContain('name="channel"');
    await close();
  });

  it('posts an answer to a response_url as JSON, and fails when Slack refuses it', async () => {
    const { respondAt, close } = slackFetch();
    seen.length = 0;
    await respondAt(`${base}/commands/T1/123/abc`)({ text: 'hello', response_type: 'ephemeral' });
    await respondAt(`${base}/commands/T1/123/abc`)('plain words');
    expect(seen.map(({ path, contentType, body }) => [path, contentType, JSON.parse(body)])).toEqual([
      ['/commands/T1/123/abc', 'application/json', { text: 'hello', response_type: 'ephemeral' }],
      ['/commands/T1/123/abc', 'application/json', { text: 'plain words' }],
    ]);
    answers.push({ status: 404, body: 'expired_url' });
    await expect(respondAt(`${base}/commands/T1/123/abc`)('late')).rejects.toThrow(/response_url: 404/);
    await close();
  });
});
