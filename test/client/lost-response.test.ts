import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcurementClient } from '../../src/client/procurement-client.ts';
import { KEYS, TENDER_A } from '../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.ts';

/**
 * A proxy that forwards every request to the service, and for the first POST of each path waits
 * for the service's answer (so the record is committed) and then drops the connection instead of
 * passing the answer on: the response is lost after the fact.
 */
async function startLossyProxy(upstream: string) {
  const dropped = new Set<string>();
  const posts: { path: string; body: string }[] = [];
  const server: Server = createServer(async (incoming, outgoing) => {
    let body = '';
    for await (const chunk of incoming) body += chunk;
    const answer = await request(`${upstream}${incoming.url}`, {
      method: incoming.method as 'GET',
      headers: {
        authorization: incoming.headers.authorization ?? '',
        'content-type': incoming.headers['content-type'] ?? 'application/json',
      },
      body: body || undefined,
    });
    const text = await answer.body.text();
    if (incoming.method === 'POST') {
      posts.push({ path: incoming.url ?? '', body });
      if (!dropped.has(incoming.url ?? '')) {
        dropped.add(incoming.url ?? '');
        incoming.socket.destroy();
        return;
      }
    }
    outgoing.writeHead(answer.statusCode, {
      'content-type': String(answer.headers['content-type'] ?? 'application/json'),
    });
    outgoing.end(text);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts,
    stop: () => new Promise<void>((done) => server.close(() => done())),
  };
}

let sandbox: TestSandbox;
let proxy: Awaited<ReturnType<typeof startLossyProxy>>;
beforeAll(async () => {
  sandbox = await startTestSandbox();
  proxy = await startLossyProxy(sandbox.baseUrl);
});
afterAll(async () => {
  await proxy.stop();
  await sandbox.stop();
});

describe('a creation whose response is lost after the service committed it', () => {
  it('is retried with the same key and leaves exactly one comment', async () => {
    const client = new ProcurementClient({
      baseUrl: proxy.baseUrl,
      apiKey: KEYS.carolMemberAcme,
      retryDelay: { initialMs: 5 },
    });
    const comment = await client.comments.create({
      entityType: 'tender',
      entityId: TENDER_A,
      body: 'Lost and found',
    });
    expect(comment.body).toBe('Lost and found');
    expect(client.attempts).toBe(2);
    const keys = proxy.posts
      .filter((post) => post.path === '/v1/comments')
      .map((post) => JSON.parse(post.body).idempotencyKey);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
    const direct = new ProcurementClient({ baseUrl: sandbox.baseUrl, apiKey: KEYS.carolMemberAcme });
    const thread = await direct.comments.list({ entityType: 'tender', entityId: TENDER_A, limit: 100 });
    expect(thread.data.filter((entry) => entry.body === 'Lost and found')).toHaveLength(1);
    await Promise.all([client.close(), direct.close()]);
  });

  it('is retried with the same key and leaves exactly one pipeline', async () => {
    const client = new ProcurementClient({
      baseUrl: proxy.baseUrl,
      apiKey: KEYS.carolMemberAcme,
      retryDelay: { initialMs: 5 },
    });
    const pipeline = await client.pipelines.create({ name: 'Exactly once', stages: [{ name: 'One' }] });
    expect(client.attempts).toBe(2);
    const direct = new ProcurementClient({ baseUrl: sandbox.baseUrl, apiKey: KEYS.carolMemberAcme });
    const all = await direct.pipelines.list({ q: 'exactly once', archived: 'all' });
    expect(all.data.map((item) => item.id)).toEqual([pipeline.id]);
    await Promise.all([client.close(), direct.close()]);
  });
});
