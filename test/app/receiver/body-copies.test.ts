import { describe, expect, it } from 'vitest';
import { NOT_KEPT } from '../../../src/app/receiver/answer-worker-settings.ts';
import { parseSlackBody } from '../../../src/app/receiver/slack-body.ts';
import { keptFields } from '../../../src/app/receiver/worker-messages.ts';

const FORM = 'application/x-www-form-urlencoded';

/** The plain way the receiver kept a command before: Object.entries, filtered. */
function keptFieldsPlainly(body: Record<string, unknown>): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(body).filter(([name]) => !NOT_KEPT.includes(name))),
  );
}

/** The plain way it read a form before: a Map of first values, then Object.fromEntries. */
function firstValuesPlainly(text: string): Record<string, string> {
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(text)) if (!fields.has(name)) fields.set(name, value);
  return Object.fromEntries(fields);
}

const forms = [
  'command=%2Ftender&text=search+cleaning&user_id=U1&team_id=T1&token=old&trigger_id=1.2&response_url=https%3A%2F%2Fhooks',
  'command=%2Ftender&user_id=U1&text=first&text=second&user_id=U2',
  'command=%2Ftender&user_id=U1&__proto__=x&constructor=y&toString=z&hasOwnProperty=w',
  'command=%2Ftender&user_id=U1&1=one&0=zero&b=2&a=1',
  'command=%2Ftender&user_id=U1&text=%E2%82%AC+%C3%BC+%E6%97%A5&empty=&=nameless',
];

describe('the receiver’s copies of a command', () => {
  it.each(forms)('reads a form as the plain way did, field for field and in order: %s', (text) => {
    const parsed = parseSlackBody(text, FORM);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    // The schema's copy leaves a field named __proto__ out, either way; it never becomes the prototype.
    const plainly = Object.fromEntries(
      Object.entries({ text: '', ...firstValuesPlainly(text) }).filter(([name]) => name !== '__proto__'),
    );
    expect(parsed.body).toStrictEqual(plainly);
    expect(Object.keys(parsed.body).sort()).toEqual(Object.keys(plainly).sort());
    expect(Object.getPrototypeOf(parsed.body)).toBe(Object.prototype);
  });

  it.each(forms)('keeps the same JSON for a worker as the plain way did: %s', (text) => {
    const parsed = parseSlackBody(text, FORM);
    if (!parsed.ok) throw new Error(parsed.problem);
    const kept = keptFields(parsed.body);
    expect(kept).toBe(keptFieldsPlainly(parsed.body));
    for (const name of NOT_KEPT) expect(Object.hasOwn(JSON.parse(kept), name)).toBe(false);
  });

  it('keeps what was given, leaves out only the fields not kept, and ignores inherited fields', () => {
    const inherited = Object.assign(Object.create({ inherited: 'no' }), {
      command: '/tender',
      token: 't',
      a: 1,
    });
    expect(keptFields(inherited)).toBe('{"command":"/tender","a":1}');
    expect(keptFields(inherited)).toBe(keptFieldsPlainly(inherited));
  });
});
