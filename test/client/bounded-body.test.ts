import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeadlinePassedError, exchange, textOf } from '../../src/client/bounded-body.ts';

/** What the server did with each request: its path, and whether its connection was closed under it. */
const seen: { path: string; closedEarly: boolean }[] = [];
let handle: (request: IncomingMessage, response: ServerResponse) => void = () => {};
const server = createServer((request, response) => {
  const record = { path: request.url ?? '', closedEarly: false };
  seen.push(record);
  response.on('close', () => {
    if (!response.writableFinished) record.closedEarly = true;
  });
  handle(request, response);
});
const agent = new Agent({ keepAliveTimeout: 1000 });
let origin = '';

beforeAll(async () => {
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await agent.close();
  await new Promise((closed) => server.close(closed));
});

const send = async (path: string, extra: Partial<Parameters<typeof exchange>[1]> = {}, through = agent) => {
  const answer = await exchange(through, {
    origin,
    path,
    method: 'GET',
    headers: { accept: 'application/json' },
    maxBytes: 1024,
    ...extra,
  });
  return { ...answer, text: textOf(answer) };
};

/** Writes `parts` one after another, `gapMs` apart, then ends. */
function trickle(response: ServerResponse, parts: string[], gapMs: number, status = 200): void {
  response.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req-1' });
  let index = 0;
  const next = () => {
    if (response.destroyed) return;
    if (index === parts.length) {
      response.end();
      return;
    }
    response.write(parts[index++]);
    setTimeout(next, gapMs);
  };
  next();
}

/** An answer of fifty parts of `part`, 20 ms apart: a second in all. */
const slowly = (part: string) => (_request: IncomingMessage, response: ServerResponse) =>
  trickle(
    response,
    Array.from({ length: 50 }, () => part),
    20,
  );

describe('exchange', () => {
  it('reads an answer that comes in parts whole, with its status and headers', async () => {
    handle = (_request, response) => trickle(response, ['{"a":', '1,"b":', '"ü"}'], 5, 201);
    const answer = await send('/parts');
    expect(answer).toMatchObject({ status: 201, text: '{"a":1,"b":"ü"}' });
    expect(answer.headers['x-request-id']).toBe('req-1');
  });

  it('keeps the bytes as they came (a body that is not text)', async () => {
    const bytes = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff, 0xfe]);
    handle = (_request, response) => response.writeHead(200).end(bytes);
    const answer = await exchange(agent, {
      origin,
      path: '/bytes',
      method: 'GET',
      headers: {},
      maxBytes: 64,
    });
    expect(answer.body?.equals(bytes)).toBe(true);
  });

  it('gives an empty body as the empty string (a 204)', async () => {
    handle = (_request, response) => response.writeHead(204).end();
    expect(await send('/empty')).toMatchObject({ status: 204, text: '' });
  });

  it('stops reading a body past its bound: the text is null and the connection closed', async () => {
    handle = (_request, response) =>
      trickle(
        response,
        Array.from({ length: 40 }, () => 'x'.repeat(100)),
        2,
      );
    const answer = await send('/huge');
    expect(answer).toMatchObject({ status: 200, text: null });
    await expect.poll(() => seen.at(-1)?.closedEarly).toBe(true);
  });

  it("bounds the body by the answer's status when asked to", async () => {
    const body = 'y'.repeat(2000);
    const bound = (status: number) => (status < 300 ? 4096 : 1024);
    handle = (_request, response) => response.writeHead(200).end(body);
    expect((await send('/ok', { maxBytes: bound })).text).toBe(body);
    handle = (_request, response) => response.writeHead(500).end(body);
    expect(await send('/problem', { maxBytes: bound })).toMatchObject({ status: 500, text: null });
  });

  it('skips an informational answer (102) and reads the final one', async () => {
    handle = (_request, response) => {
      response.writeProcessing();
      setTimeout(() => response.writeHead(200).end('{"done":true}'), 10);
    };
    expect(await send('/slow-start')).toMatchObject({ status: 200, text: '{"done":true}' });
  });

  it('sends nothing when the signal is already aborted', async () => {
    const before = seen.length;
    const controller = new AbortController();
    controller.abort(new Error('cancelled by the caller'));
    await expect(send('/never', { signal: controller.signal })).rejects.toThrow('cancelled by the caller');
    expect(seen.length).toBe(before);
  });

  it('sends nothing when the signal aborts before a connection takes the request', async () => {
    handle = (request, response) => setTimeout(() => response.writeHead(200).end(request.url), 150);
    const before = seen.length;
    // While the connection is being made (a new pool has none open yet).
    const fresh = new Agent();
    const one = new Agent({ connections: 1 });
    try {
      const controller = new AbortController();
      const connecting = send(
        '/connecting',
        { method: 'POST', body: '{}', signal: controller.signal },
        fresh,
      );
      controller.abort(new Error('cancelled while connecting'));
      await expect(connecting).rejects.toThrow('cancelled while connecting');
      // Queued behind a slow request on the one connection.
      const first = send('/first', {}, one);
      const waiting = new AbortController();
      const queued = send('/queued', { method: 'DELETE', signal: waiting.signal }, one);
      setTimeout(() => waiting.abort(new Error('cancelled while queued')), 50);
      await expect(queued).rejects.toThrow('cancelled while queued');
      expect((await first).text).toBe('/first');
      await new Promise((settled) => setTimeout(settled, 300));
      expect(seen.slice(before).map((request) => request.path)).toEqual(['/first']);
    } finally {
      await fresh.close();
      await one.close();
    }
  });

  it('ends when the signal aborts while the body arrives, and closes the connection', async () => {
    handle = slowly('z');
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('cancelled midway')), 100);
    await expect(send('/cancelled', { signal: controller.signal })).rejects.toThrow('cancelled midway');
    await expect.poll(() => seen.at(-1)?.closedEarly).toBe(true);
  });

  it('fails with DeadlinePassedError when a part arrives after the deadline', async () => {
    handle = slowly('w');
    const error = await send('/trickle', { deadlineAt: performance.now() + 100 }).catch((caught) => caught);
    expect(error).toBeInstanceOf(DeadlinePassedError);
  });

  it("fails with undici's timeout when the headers do not come in time", async () => {
    handle = () => {};
    const error = await send('/silent', { headersTimeout: 100 }).catch((caught) => caught);
    expect(error).toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
  });

  it('sends the method, headers and body given', async () => {
    let received = '';
    handle = (request, response) => {
      request.setEncoding('utf8');
      request.on('data', (chunk) => {
        received += chunk;
      });
      request.on('end', () =>
        response.writeHead(200).end(`${request.method} ${request.headers['content-type']}`),
      );
    };
    const answer = await send('/post', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"x":1}',
    });
    expect(answer.text).toBe('POST application/json');
    expect(received).toBe('{"x":1}');
  });
});
