import { describe, expect, it } from 'vitest';
import { parseSlackBody } from '../../../src/app/receiver/slack-body.ts';

const FORM = 'application/x-www-form-urlencoded';
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const payload = (value: unknown) => form({ payload: JSON.stringify(value) });

describe('parseSlackBody', () => {
  it('reads Slack’s shapes', () => {
    const command = parseSlackBody(form({ command: '/tender', user_id: 'U1', text: 'help' }), FORM);
    expect(command).toEqual({
      ok: true,
      body: expect.objectContaining({ command: '/tender', text: 'help' }),
    });
    const click = parseSlackBody(
      payload({ type: 'block_actions', user: { id: 'U1' }, actions: [{ action_id: 'a', value: 'v' }] }),
      FORM,
    );
    expect(click.ok).toBe(true);
    const event = parseSlackBody(
      JSON.stringify({ type: 'event_callback', event_id: 'Ev1', event: { type: 'app_home_opened' } }),
      'application/json',
    );
    expect(event.ok).toBe(true);
  });

  it('gives a command without text an empty text, and takes the first of a repeated field', () => {
    const missing = parseSlackBody(form({ command: '/tender', user_id: 'U1' }), FORM);
    expect(missing.ok && missing.body.text).toBe('');
    const twice = parseSlackBody('command=%2Ftender&user_id=U1&text=a&text=b', FORM);
    expect(twice.ok && twice.body.text).toBe('a');
  });

  it('keeps a field named __proto__ a plain field', () => {
    const parsed = parseSlackBody('command=%2Ftender&user_id=U1&__proto__=x', FORM);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(Object.getPrototypeOf(parsed.body)).toBe(Object.prototype);
  });

  it('refuses, with a reason, everything else', () => {
    const refused: [string, string | undefined][] = [
      ['payload=null', FORM],
      ['payload=%5B%5D', FORM],
      ['payload=%22x%22', FORM],
      [payload({ type: 'block_actions', user: { id: 'U1' }, actions: [] }), FORM],
      [payload({ type: 'block_actions', user: null, actions: [{ action_id: 'a' }] }), FORM],
      [payload({ type: 'view_submission', user: { id: 'U1' }, view: null }), FORM],
      [payload({ type: 'something_else', user: { id: 'U1' } }), FORM],
      [form({ text: 'help' }), FORM],
      ['null', 'application/json'],
      ['[1,2]', 'application/json'],
      ['7', 'application/json'],
      ['{"type":"event_callback","event":"x"}', 'application/json'],
      ['{}', 'application/json'],
      ['{"type":"url_verification"}', 'application/json'],
      [form({ command: '/tender', user_id: 'U1' }), 'text/plain'],
      [form({ command: '/tender', user_id: 'U1' }), `${FORM}; charset=utf-8`],
      [form({ command: '/tender', user_id: 'U1' }), undefined],
    ];
    expect(refused.length).toBeGreaterThan(0);
    for (const [body, type] of refused) {
      const parsed = parseSlackBody(body, type);
      expect(parsed.ok, `${type} ${body}`).toBe(false);
      if (!parsed.ok) expect(parsed.problem.length).toBeGreaterThan(10);
    }
  });

  it('is linear in the body: ten times the fields take about ten times as long, not a hundred', () => {
    const fields = (count: number) =>
      Array.from({ length: count }, (_, index) => `f${index}=${'x'.repeat(20)}`).join('&');
    const once = (body: string, repeats: number) => {
      const started = performance.now();
      for (let repeat = 0; repeat < repeats; repeat++) parseSlackBody(body, FORM);
      return performance.now() - started;
    };
    const small = fields(2000);
    const large = fields(20_000);
    // Each the best of rounds taken in turn, so that a collection or load from the rest of the
    // machine (a single 3-parse sample once read 40x) falls on both sizes alike.
    const best = { small: Number.POSITIVE_INFINITY, large: Number.POSITIVE_INFINITY };
    for (let round = 0; round < 7; round++) {
      best.small = Math.min(best.small, once(small, 10));
      best.large = Math.min(best.large, once(large, 1) * 10);
    }
    expect(best.large / best.small).toBeLessThan(40);
  });
});
