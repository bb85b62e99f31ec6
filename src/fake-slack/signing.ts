import { createHmac } from 'node:crypto';

/** Slack's request signature: `v0=` + hex HMAC-SHA256 of `v0:TIMESTAMP:BODY` with the signing secret. */
export function slackSignature(signingSecret: string, timestamp: number | string, rawBody: string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`;
}

/** The headers Slack sends with a signed request. */
export function signedHeaders(
  signingSecret: string,
  rawBody: string,
  contentType: 'application/x-www-form-urlencoded' | 'application/json',
  timestamp = Math.floor(Date.now() / 1000),
): Record<string, string> {
  return {
    'content-type': contentType,
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': slackSignature(signingSecret, timestamp, rawBody),
  };
}
