import { createHmac } from 'node:crypto';

/** Slack's request signature: `v0=` + hex HMAC-SHA256 of `v0:TIMESTAMP:BODY` with the signing secret. */
export function slackSignature(
  signingSecret: string,
  timestamp: number | string,
  rawBody: string | Buffer,
): string {
  // Over the exact bytes: a body that is not UTF-8 is signed as Slack would sign what it sent.
  const hmac = createHmac('sha256', signingSecret).update(`v0:${timestamp}:`);
  return `v0=${hmac.update(rawBody).digest('hex')}`;
}

/** The headers Slack sends with a signed request. */
export function signedHeaders(
  signingSecret: string,
  rawBody: string | Buffer,
  contentType: string,
  timestamp = Math.floor(Date.now() / 1000),
): Record<string, string> {
  return {
    'content-type': contentType,
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': slackSignature(signingSecret, timestamp, rawBody),
  };
}
