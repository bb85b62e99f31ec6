import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyWithin, inviteBodiesWithin } from '../../src/shared/request-body.ts';
import { firstAnswerToExpect } from '../support/expect-continue.ts';

const LIMIT = 64 * 1024;
let server: Server;
let url = '';
/** What the last request's body read as: its length, or null. */
let read: number | null | undefined;

beforeAll(async () => {
  server = createServer(async (incoming: IncomingMessage, response: ServerResponse) => {
    // A sender that hangs up mid-body (as the Expect test does once invited) has nothing to answer.
    const body = await bodyWithin(incoming, LIMIT).catch(() => undefined);
    if (body === undefined) return;
    read = body === null ? null : body.length;
    response.writeHead(body === null ? 413 : 200).end(String(read));
  });
  inviteBodiesWithin(server, LIMIT);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('bodyWithin', () => {
  it('reads a body up to the limit whole', async () => {
    const answer = await request(url, { method: 'POST', body: 'a'.repeat(LIMIT) });
    expect(answer.statusCode).toBe(200);
    expect(await answer.body.text()).toBe(String(LIMIT));
  });

  it('reads a body over the limit to its end before the 413, so the sender never meets a broken pipe', async () => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const answer = await request(url, { method: 'POST', body: 'b'.repeat(LIMIT * 4 + attempt) });
      expect(answer.statusCode, `attempt ${attempt}`).toBe(413);
      await answer.body.dump();
    }
  });

  it('answers a body declared far over the limit at once, and cuts the connection past 8 times the limit', async () => {
    read = undefined;
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    let text = '';
    const answered = new Promise<void>((resolve) =>
      socket.on('data', (chunk) => {
        text += chunk.toString();
        resolve();
      }),
    );
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => undefined);
    // 100 MB declared, a few bytes sent: the 413 comes without waiting for the rest.
    socket.write(`POST / HTTP/1.1\r\nhost: x\r\ncontent-length: ${100 * 1024 * 1024}\r\n\r\nabc`);
    await answered;
    expect(text).toMatch(/^HTTP\/1\.1 413/);
    expect(read).toBeNull();
    // The rest is read and thrown away up to 8 times the limit; then the connection is cut.
    const chunk = Buffer.alloc(64 * 1024, 'c');
    for (let sent = 0; sent < LIMIT * 12 && !socket.destroyed; sent += chunk.length) socket.write(chunk);
    await closed;
  });

  it('invites only a body within the limit: Expect: 100-continue over it is answered 413 before a byte is sent', async () => {
    expect(await firstAnswerToExpect(url, LIMIT)).toBe(100);
    // Node alone answers 100 Continue to any size, and the sender uploads it all for a 413.
    expect(await firstAnswerToExpect(url, LIMIT + 1)).toBe(413);
    expect(await firstAnswerToExpect(url, 100 * 1024 * 1024)).toBe(413);
    // Invited, the body is read as any other (undici never sends Expect; node:http's client does).
    const answered = await new Promise<string>((resolve, reject) => {
      const sending = httpRequest(url, {
        method: 'POST',
        headers: { expect: '100-continue', 'content-length': '10' },
      });
      sending.on('continue', () => sending.end('a'.repeat(10)));
      sending.on('response', (response) => {
        response.setEncoding('utf8');
        let text = '';
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve(`${response.statusCode} ${text}`));
      });
      sending.on('error', reject);
    });
    expect(answered).toBe('200 10');
  });
});
