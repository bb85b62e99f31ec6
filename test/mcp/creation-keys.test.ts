import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/client/errors.ts';
import { CreationKeys, RETRY_WINDOW_MS } from '../../src/mcp/creation-keys.ts';
import { encodeCursor, offsetOf } from '../../src/mcp/cursor.ts';

/** The key a creation was made with (`make` answers with it). */
const keyOf = (keys: CreationKeys, caller: string, tool: string, args: object, given?: string) =>
  keys.create(caller, tool, args, given, async (key) => key);

/** A creation the service refuses (as a made-up key is: 401), with the key it was sent. */
async function refusedKey(keys: CreationKeys, caller: string, tool: string, args: object): Promise<string> {
  let sent = '';
  await expect(
    keys.create(caller, tool, args, undefined, async (key) => {
      sent = key;
      throw new ApiError({
        status: 401,
        code: 'unauthenticated',
        detail: 'unknown key',
        requestId: null,
        headers: {},
      });
    }),
  ).rejects.toThrow(ApiError);
  return sent;
}

describe('creation keys: one per logical creation', () => {
  it('gives a retry within the window the same key, and a later or different call a new one', async () => {
    let now = 1_000_000;
    const keys = new CreationKeys(RETRY_WINDOW_MS, () => now);
    const args = { entityType: 'tender', entityId: 't-1', body: 'hello', parentId: undefined };
    const first = await keyOf(keys, 'pis_alice', 'post_comment', args);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    now += RETRY_WINDOW_MS - 1;
    // The same arguments in another key order are the same call.
    expect(
      await keyOf(keys, 'pis_alice', 'post_comment', {
        body: 'hello',
        entityId: 't-1',
        entityType: 'tender',
      }),
    ).toBe(first);
    expect(await keyOf(keys, 'pis_bob', 'post_comment', args)).not.toBe(first);
    expect(await keyOf(keys, 'pis_alice', 'post_comment', { ...args, body: 'hello!' })).not.toBe(first);
    expect(await keyOf(keys, 'pis_alice', 'create_bid', args)).not.toBe(first);
    now += 1;
    expect(await keyOf(keys, 'pis_alice', 'post_comment', args)).not.toBe(first);
  });

  it('uses the key the assistant gave as it is', async () => {
    const keys = new CreationKeys();
    const given = '0b7f6a52-3c1d-4e8f-9a2b-5c6d7e8f9a0b';
    expect(await keyOf(keys, 'pis_alice', 'create_bid', { name: 'x' }, given)).toBe(given);
  });

  it('remembers only what the service may have made: refused calls neither fill the memory nor push a creation out', async () => {
    const keys = new CreationKeys();
    const args = { entityType: 'tender', entityId: 't-1', body: 'Our go/no-go is Friday' };
    const carol = await keyOf(keys, 'pis_carol', 'post_comment', args);
    // A flood of made-up keys, more calls than the memory holds: each refused by the service.
    for (let index = 0; index < 10_050; index++)
      await refusedKey(keys, `pis_attacker_${index}`, 'post_comment', { ...args, body: `spam ${index}` });
    expect(await keyOf(keys, 'pis_carol', 'post_comment', args)).toBe(carol);
    // A refused call is not a creation: the same call again gets a new key.
    const refused = await refusedKey(keys, 'pis_dave', 'create_bid', { name: 'x' });
    expect(await keyOf(keys, 'pis_dave', 'create_bid', { name: 'x' })).not.toBe(refused);
  });

  it('keeps the key of a creation whose answer was lost (a timeout, a 5xx), and shares one between calls at once', async () => {
    const keys = new CreationKeys();
    let lost = '';
    await expect(
      keys.create('pis_erin', 'create_bid', { name: 'y' }, undefined, async (key) => {
        lost = key;
        throw new Error('the service did not answer in time');
      }),
    ).rejects.toThrow('in time');
    expect(await keyOf(keys, 'pis_erin', 'create_bid', { name: 'y' })).toBe(lost);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = keys.create('pis_erin', 'create_bid', { name: 'z' }, undefined, async (key) => {
      await held;
      return key;
    });
    const atOnce = keyOf(keys, 'pis_erin', 'create_bid', { name: 'z' });
    release();
    expect(await atOnce).toBe(await slow);
  });
});

describe('cursors', () => {
  it('read back the offset for the same list and filters, and are refused elsewhere', () => {
    const cursor = encodeCursor(40, 'tenders', { q: 'cleaning', status: 'open' });
    expect(offsetOf(cursor, 'tenders', { status: 'open', q: 'cleaning' })).toBe(40);
    expect(() => offsetOf(cursor, 'tenders', { q: 'cleaning' })).toThrow(/another list or to other filters/);
    expect(() => offsetOf(cursor, 'bids', { q: 'cleaning', status: 'open' })).toThrow(/another list/);
    expect(() => offsetOf('%%%', 'tenders', {})).toThrow(/not one this server gave/);
    expect(() => offsetOf(Buffer.from('{"o":-1,"f":"x"}').toString('base64url'), 'tenders', {})).toThrow(
      /not one this server gave/,
    );
    expect(offsetOf(undefined, 'tenders', {})).toBe(0);
    expect(offsetOf(null, 'tenders', {})).toBe(0);
  });
});
