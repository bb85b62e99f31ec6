/**
 * A `fetch` for @slack/web-api's WebClient (its `fetch` option) on undici's dispatcher with a
 * keep-alive pool, each answer read whole and bounded (src/client/bounded-body.ts): the same answers
 * (status, headers, body) without the WHATWG streams the built-in fetch runs for every call
 * (bench:digests, when the scheduler still posted through the WebClient: 2.90 ms of CPU per post
 * against 3.79 ms with the built-in fetch, in the same minute).
 */
import { Agent } from 'undici';
import { exchange, originAndPath } from '../../client/bounded-body.ts';

/**
 * The fetch and a way to close its connections (when the app stops). `onRateLimited` is told the
 * Web API method of each answer 429 (the WebClient then waits and retries on its own).
 */
export function slackFetch(onRateLimited?: (method: string) => void): {
  fetch: typeof fetch;
  /** Posts to a response_url over the same pool, as Bolt's `respond` does through `fetch`. */
  respondAt: RespondAt;
  close: () => Promise<void>;
} {
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 256 });
  const fetchOver = (async (input: string | URL | Request, init?: RequestInit) => {
    // A multipart upload (FormData) or a stream is left to the built-in fetch, which sends them as
    // the WebClient expects: the app's calls send text.
    if (init?.body !== undefined && init.body !== null && typeof init.body !== 'string') {
      const answer = await globalThis.fetch(input, init);
      if (answer.status === 429 && onRateLimited) onRateLimited(webApiMethod(answer.url || String(input)));
      return answer;
    }
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const headers: Record<string, string> = {};
    for (const [name, value] of new Headers(init?.headers).entries()) headers[name] = value;
    const answer = await exchange(agent, {
      ...originAndPath(url),
      method: (init?.method ?? 'GET') as 'GET' | 'POST',
      headers,
      ...(typeof init?.body === 'string' ? { body: init.body } : {}),
      ...(init?.signal ? { signal: init.signal } : {}),
      maxBytes: MAX_WEB_API_BYTES,
    });
    if (answer.status === 429 && onRateLimited) onRateLimited(webApiMethod(url));
    if (answer.body === null)
      throw new Error(
        `${webApiMethod(url)}: Slack's answer is larger than ${MAX_WEB_API_BYTES / 1024 / 1024} MiB`,
      );
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (Array.isArray(value)) for (const each of value) responseHeaders.append(name, each);
      else if (value !== undefined) responseHeaders.set(name, value);
    }
    // The bytes as they came (a gzipped file of admin.analytics.getFile stays one).
    return new Response(answer.status === 204 ? null : answer.body, {
      status: answer.status,
      headers: responseHeaders,
    });
  }) as typeof fetch;
  // Bolt's respond reads only the status of fetch's Response: building one (and its Headers) for
  // every answer cost more than the request itself in bench:bot's profile.
  const respondAt: RespondAt = (url) => async (message) => {
    const answer = await exchange(agent, {
      ...originAndPath(url),
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(typeof message === 'string' ? { text: message } : message),
      // Slack answers a response_url with `ok` or a short error: nothing more is read.
      maxBytes: 64 * 1024,
    });
    if (answer.status === 429 && onRateLimited) onRateLimited(webApiMethod(url));
    if (answer.status < 200 || answer.status > 299)
      throw new Error(`Failed to respond to the response_url: ${answer.status}`);
  };
  return { fetch: fetchOver, respondAt, close: () => agent.close() };
}

/** The largest Web API answer read (a page of conversations.history with metadata is far less). */
const MAX_WEB_API_BYTES = 32 * 1024 * 1024;

/** A request's `respond` for its response_url. */
export type RespondAt = (responseUrl: string) => (message: string | object) => Promise<void>;

/** The Web API method a URL calls (its last path segment: `chat.postMessage`), or `other`. */
function webApiMethod(url: string | URL): string {
  const path = typeof url === 'string' ? (url.split('?')[0] ?? '') : url.pathname;
  const method = path.slice(path.lastIndexOf('/') + 1);
  return /^[a-zA-Z]+(\.[a-zA-Z]+)+$/.test(method) ? method : 'other';
}
