import { Agent } from 'undici';
import { exchange, parseJson, textOf } from '../../client/bounded-body.ts';
import type { Mrkdwn } from '../shared/views/mrkdwn.ts';
import type { Block } from '../shared/views/safe-blocks.ts';

/**
 * The two Web API calls the scheduler makes, as @slack/web-api's WebClient shapes them, each naming
 * the workspace it is for (its token is found per call: one app may be installed in many).
 */
export interface ScheduledSlack {
  chat: {
    postMessage(args: {
      teamId: string;
      channel: string;
      /** Slack reads it as mrkdwn (and notifies from it): only escaped text. */
      text: Mrkdwn;
      blocks?: Block[];
      unfurl_links?: boolean;
      unfurl_media?: boolean;
      metadata?: { event_type: string; event_payload: Record<string, unknown> };
    }): Promise<{ ok?: boolean; ts?: string; channel?: string }>;
  };
  conversations: {
    history(args: {
      teamId: string;
      channel: string;
      oldest?: string;
      latest?: string;
      include_all_metadata?: boolean;
      limit?: number;
      cursor?: string;
    }): Promise<{
      messages?: { ts?: string; metadata?: unknown }[];
      has_more?: boolean;
      response_metadata?: { next_cursor?: string };
    }>;
  };
}

/** The largest answer read: a page of conversations.history with metadata is far less. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** A failed call, with the fields @slack/web-api's errors carry (src/app/adapters/slack-errors.ts reads them). */
class SlackCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly extra: { retryAfter?: number; statusCode?: number; data?: { error?: string } },
  ) {
    super(message);
    Object.assign(this, extra);
  }
}

/**
 * Scheduled posts straight over a keep-alive undici pool, one JSON POST each: no queue, no retries,
 * no request logging (the WebClient spent about half of a post's CPU there, and a burst of 200
 * posts due at one moment leaves one after another). A 429 comes back at once as the WebClient's
 * rate-limited error does, so only that delivery waits Retry-After.
 */
export function scheduledSlack(options: {
  /** The bot token of single-workspace mode. */
  token?: string;
  /** The workspace's bot token, found per call (installed to many workspaces); wins over `token`. */
  tokenFor?: (teamId: string) => Promise<string | null>;
  apiUrl: string;
  timeoutMs: number;
  /** Told of each 429 (the app's metrics count them by method). */
  onRateLimited?: (method: string) => void;
}): {
  slack: ScheduledSlack;
  close: () => Promise<void>;
} {
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 256 });
  const api = new URL(options.apiUrl.endsWith('/') ? options.apiUrl : `${options.apiUrl}/`);
  const tokenOf = async (teamId: string): Promise<string> => {
    const token = options.tokenFor ? await options.tokenFor(teamId) : (options.token ?? null);
    // No token: the app is not (or no longer) installed there; Slack would say the same.
    if (!token)
      throw new SlackCallError('slack_webapi_platform_error', 'not installed', {
        data: { error: 'not_authed' },
      });
    return token;
  };
  const call = async <T>(method: string, { teamId, ...args }: { teamId: string }): Promise<T> => {
    const token = await tokenOf(teamId);
    const answer = await exchange(agent, {
      origin: api.origin,
      path: `${api.pathname}${method}`,
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json; charset=utf-8',
      },
      body: JSON.stringify(args),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      maxBytes: MAX_ANSWER_BYTES,
    });
    if (answer.status === 429) {
      options.onRateLimited?.(method);
      const retryAfter = Number(answer.headers['retry-after'] ?? 1);
      throw new SlackCallError('slack_webapi_rate_limited_error', `${method} was rate limited`, {
        retryAfter: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 1,
      });
    }
    if (answer.status !== 200) {
      throw new SlackCallError('slack_webapi_http_error', `${method} answered HTTP ${answer.status}`, {
        statusCode: answer.status,
      });
    }
    const body = parseJson(textOf(answer) ?? '') as { ok?: boolean; error?: string } | null;
    if (body === null) {
      // Not JSON, or cut past its bound: whether Slack posted it is not known (classified so, as
      // any error without a Web API code is: the delivery looks in the channel before posting again).
      throw new Error(
        `${method} answered with a body that is not JSON or larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`,
      );
    }
    if (!body.ok) {
      throw new SlackCallError('slack_webapi_platform_error', `${method} failed: ${body.error}`, {
        data: { error: body.error ?? 'unknown' },
      });
    }
    return body as T;
  };
  return {
    slack: {
      chat: { postMessage: (args) => call('chat.postMessage', args) },
      conversations: { history: (args) => call('conversations.history', args) },
    },
    close: () => agent.close(),
  };
}
