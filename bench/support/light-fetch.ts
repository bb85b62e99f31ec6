/**
 * A `fetch` for @slack/web-api's WebClient (its `fetch` option) on undici's `request` with a
 * keep-alive pool: the same answers (status, headers, body) without the WHATWG streams that the
 * built-in fetch runs for every call. bench:digests uses it with BENCH_FETCH=undici to measure what
 * the scheduler's Slack client would save (see fanout's notes, request to the lead).
 */
import { Agent, request } from 'undici';

export function lightFetch(agent = new Agent({ keepAliveTimeout: 10_000, connections: 256 })): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' || input instanceof URL ? input : input.url;
    const headers: Record<string, string> = {};
    for (const [name, value] of new Headers(init?.headers).entries()) headers[name] = value;
    const answer = await request(url, {
      method: (init?.method ?? 'GET') as 'GET' | 'POST',
      headers,
      body: (init?.body ?? undefined) as string | Buffer | undefined,
      signal: init?.signal ?? undefined,
      dispatcher: agent,
    });
    const body = Buffer.from(await answer.body.arrayBuffer());
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (Array.isArray(value)) for (const each of value) responseHeaders.append(name, each);
      else if (value !== undefined) responseHeaders.set(name, value);
    }
    return new Response(answer.statusCode === 204 ? null : body, {
      status: answer.statusCode,
      headers: responseHeaders,
    });
  }) as typeof fetch;
}
