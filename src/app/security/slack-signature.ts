import { createHmac, timingSafeEqual } from 'node:crypto';

/** Slack's rule, as Bolt's `verifySlackRequest` applies it: a timestamp older than this is refused. */
const STALE_AFTER_SECONDS = 5 * 60;
const VERSION = 'v0';
/** `v0=` and 64 hex digits: the only signature that can match. */
const SIGNATURE_LENGTH = VERSION.length + 1 + 64;

/** A request whose signature does not verify; the message says why (it is logged, never answered). */
export class SignatureRefusedError extends Error {}

/**
 * Checks a Slack request's signature by the rules of Bolt's `verifySlackRequest` (which the receiver
 * used before), with the same answer for every input (test/app/security/slack-signature.test.ts
 * holds the two side by side): the timestamp at most five minutes old, version `v0`, and the HMAC
 * of `v0:<timestamp>:<body>` under the signing secret, in lower-case hex. Cheaper on the
 * acknowledging path: one HMAC and a constant-time comparison, where Bolt's comparison (tsscmp)
 * draws 32 random bytes and computes two more HMACs for every request.
 *
 * One difference, on purpose: Bolt reads only the part between the first and the second `=`, so it
 * also takes `v0=<the right hash>=anything`. Such a copy of a signed request is a new signature to
 * the replay memory (which keeps whole signatures), so it is refused here: the signature must be
 * exactly `v0=<hash>`.
 */
export function verifySlackSignature(options: {
  signingSecret: string;
  body: string;
  signature: string;
  /** Seconds since the epoch, as the X-Slack-Request-Timestamp header gives it. */
  timestamp: number;
  nowMilliseconds: number;
}): void {
  const { signingSecret, body, signature, timestamp, nowMilliseconds } = options;
  if (!signingSecret) throw new SignatureRefusedError('the signing secret is empty');
  if (Number.isNaN(timestamp)) throw new SignatureRefusedError('the timestamp is not a number');
  if (timestamp < Math.floor(nowMilliseconds / 1000) - STALE_AFTER_SECONDS)
    throw new SignatureRefusedError('the timestamp is more than five minutes old');
  const [version] = signature.split('=', 1);
  if (version !== VERSION) throw new SignatureRefusedError('unknown signature version');
  const hash = createHmac('sha256', signingSecret).update(`${VERSION}:${timestamp}:${body}`).digest('hex');
  const expected = Buffer.from(`${VERSION}=${hash}`);
  const given = Buffer.from(signature);
  // Any other length cannot match (and the length of a correct signature is no secret).
  if (given.length !== SIGNATURE_LENGTH || !timingSafeEqual(given, expected))
    throw new SignatureRefusedError('signature mismatch');
}
