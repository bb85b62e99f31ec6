import { createHmac, randomBytes } from 'node:crypto';
import { verifySlackRequest } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { SignatureRefusedError, verifySlackSignature } from '../../../src/app/security/slack-signature.ts';

const secret = randomBytes(16).toString('hex');
const nowMilliseconds = Date.UTC(2026, 10, 27, 9, 0, 0);
const nowSeconds = nowMilliseconds / 1000;

function sign(body: string, timestamp: number | string, key = secret): string {
  return `v0=${createHmac('sha256', key).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

/** Whether Bolt's own check (the plain path the receiver used before) takes the request. */
function boltTakes(body: string, signature: string, timestamp: number): boolean {
  try {
    verifySlackRequest({
      signingSecret: secret,
      body,
      headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': timestamp },
      nowMilliseconds,
    });
    return true;
  } catch {
    return false;
  }
}

function takes(body: string, signature: string, timestamp: number): boolean {
  try {
    verifySlackSignature({ signingSecret: secret, body, signature, timestamp, nowMilliseconds });
    return true;
  } catch (error) {
    expect(error).toBeInstanceOf(SignatureRefusedError);
    return false;
  }
}

describe('verifySlackSignature', () => {
  const body = 'command=%2Ftender&text=search+cleaning&team_id=T1&user_id=U1';
  const good = sign(body, nowSeconds);
  /** Requests Bolt's check and this one must answer alike: [what, body, signature, timestamp]. */
  const cases: [string, string, string, number][] = [
    ['a signed request', body, good, nowSeconds],
    ['signed a minute ago', body, sign(body, nowSeconds - 60), nowSeconds - 60],
    ['signed exactly five minutes ago', body, sign(body, nowSeconds - 300), nowSeconds - 300],
    ['signed five minutes and a second ago', body, sign(body, nowSeconds - 301), nowSeconds - 301],
    [
      'dated an hour ahead (the receiver refuses it on its own rule)',
      body,
      sign(body, nowSeconds + 3600),
      nowSeconds + 3600,
    ],
    ['an empty body', '', sign('', nowSeconds), nowSeconds],
    [
      'a body of other scripts',
      'text=%E2%82%AC ü 日本',
      sign('text=%E2%82%AC ü 日本', nowSeconds),
      nowSeconds,
    ],
    ['the body changed', `${body}&x=1`, good, nowSeconds],
    ['another secret', body, sign(body, nowSeconds, 'other'), nowSeconds],
    ['another timestamp', body, good, nowSeconds - 1],
    ['version v1', body, good.replace(/^v0/, 'v1'), nowSeconds],
    ['no version', body, good.slice(3), nowSeconds],
    ['upper-case hex', body, `v0=${good.slice(3).toUpperCase()}`, nowSeconds],
    ['one digit short', body, good.slice(0, -1), nowSeconds],
    ['one digit more', body, `${good}0`, nowSeconds],
    ['the last digit changed', body, `${good.slice(0, -1)}${good.endsWith('0') ? '1' : '0'}`, nowSeconds],
    ['an empty hash', body, 'v0=', nowSeconds],
    ['an empty signature', body, '', nowSeconds],
    ['a character outside Latin-1', body, `${good.slice(0, -1)}\u0161`, nowSeconds],
    ['a timestamp that is not a number', body, good, Number.NaN],
  ];
  it.each(cases)('answers as Bolt does: %s', (_what, text, signature, timestamp) => {
    expect(takes(text, signature, timestamp)).toBe(boltTakes(text, signature, timestamp));
  });

  it('takes a good signature and refuses a changed one (the cases above are not all refusals)', () => {
    expect(takes(body, good, nowSeconds)).toBe(true);
    expect(takes(`${body} `, good, nowSeconds)).toBe(false);
  });

  it('refuses the right hash with anything after a second "=", which Bolt takes (a replay with a new signature)', () => {
    const replay = `${good}=again`;
    expect(boltTakes(body, replay, nowSeconds)).toBe(true);
    expect(takes(body, replay, nowSeconds)).toBe(false);
  });

  it('answers as Bolt does on random bodies and signatures', () => {
    for (let index = 0; index < 200; index++) {
      const text = randomBytes(index % 50).toString('base64');
      const timestamp = nowSeconds - (index % 400);
      const signature = index % 3 === 0 ? sign(text, timestamp) : sign(`${text}!`, timestamp);
      expect(takes(text, signature, timestamp)).toBe(boltTakes(text, signature, timestamp));
    }
  });
});
