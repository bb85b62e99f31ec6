/** What a failed Slack call means: for a scheduled post, and for a bid's thread line. */
export type SlackFailure =
  /** Refused for now: nothing was posted; try again after Retry-After. */
  | { kind: 'rate-limited'; retryAfterSeconds: number }
  /** The channel cannot take posts any more (archived, the app removed, deleted): pause it. */
  | { kind: 'channel-gone'; reason: string }
  /** No answer (a timeout, a dropped connection, a 5xx): Slack may or may not have stored it. */
  | { kind: 'unknown-outcome' }
  /** The app lacks a scope (history, most likely). */
  | { kind: 'missing-scope' }
  /** Refused for good (a bug in the message, most likely). */
  | { kind: 'refused'; code: string };

/** The plain reason a subscriber reads, by Slack's error code. */
export const CHANNEL_GONE_REASONS: Record<string, string> = {
  is_archived: 'the channel was archived',
  not_in_channel: 'Tenderbot is no longer a member of the channel',
  channel_not_found: 'Tenderbot can no longer find the channel (deleted, or Tenderbot was removed from it)',
};

/** Classifies an error of @slack/web-api's WebClient (by its documented `code` and `data.error`). */
export function classifySlackError(error: unknown): SlackFailure {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: string;
    retryAfter?: number;
    statusCode?: number;
    data?: { error?: string };
  };
  switch (fields.code) {
    case 'slack_webapi_rate_limited_error':
      return { kind: 'rate-limited', retryAfterSeconds: fields.retryAfter ?? 1 };
    case 'slack_webapi_platform_error': {
      const code = fields.data?.error ?? 'unknown';
      if (code === 'ratelimited') return { kind: 'rate-limited', retryAfterSeconds: 1 };
      const reason = CHANNEL_GONE_REASONS[code];
      if (reason) return { kind: 'channel-gone', reason };
      if (code === 'missing_scope') return { kind: 'missing-scope' };
      if (code === 'internal_error' || code === 'fatal_error' || code === 'service_unavailable')
        return { kind: 'unknown-outcome' };
      return { kind: 'refused', code };
    }
    case 'slack_webapi_http_error':
      return (fields.statusCode ?? 500) >= 500
        ? { kind: 'unknown-outcome' }
        : { kind: 'refused', code: `http_${fields.statusCode}` };
    case 'slack_webapi_request_error':
      // The interactive client's own retries spent on 429s end as a request error: still refused.
      if (/rate limit/i.test((error as { original?: { message?: string } }).original?.message ?? ''))
        return { kind: 'rate-limited', retryAfterSeconds: 1 };
      return { kind: 'unknown-outcome' };
    default:
      // A timeout, or anything unexpected: the outcome is not known.
      return { kind: 'unknown-outcome' };
  }
}

/**
 * Whether a Slack refusal says a message can never be changed again: it was deleted, or its
 * channel is gone (archived, deleted, the app removed). A card remembered there is forgotten.
 */
export function isMessageGone(error: unknown): boolean {
  const code = (error as { data?: { error?: string } } | null)?.data?.error ?? '';
  return code === 'message_not_found' || code in CHANNEL_GONE_REASONS;
}
