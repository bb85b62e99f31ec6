import { describe, expect, it } from 'vitest';
import { CreationKeys, RETRY_WINDOW_MS } from '../../src/mcp/creation-keys.ts';
import { encodeCursor, offsetOf } from '../../src/mcp/cursor.ts';

describe('creation keys: one per logical creation', () => {
  it('gives a retry within the window the same key, and a later or different call a new one', () => {
    let now = 1_000_000;
    const keys = new CreationKeys(RETRY_WINDOW_MS, () => now);
    const args = { entityType: 'tender', entityId: 't-1', body: 'hello', parentId: undefined };
    const first = keys.keyFor('pis_alice', 'post_comment', args, undefined);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    now += RETRY_WINDOW_MS - 1;
    // The same arguments in another key order are the same call.
    expect(
      keys.keyFor(
        'pis_alice',
        'post_comment',
        { body: 'hello', entityId: 't-1', entityType: 'tender' },
        undefined,
      ),
    ).toBe(first);
    expect(keys.keyFor('pis_bob', 'post_comment', args, undefined)).not.toBe(first);
    expect(keys.keyFor('pis_alice', 'post_comment', { ...args, body: 'hello!' }, undefined)).not.toBe(first);
    expect(keys.keyFor('pis_alice', 'create_bid', args, undefined)).not.toBe(first);
    now += 1;
    expect(keys.keyFor('pis_alice', 'post_comment', args, undefined)).not.toBe(first);
  });

  it('uses the key the assistant gave as it is', () => {
    const keys = new CreationKeys();
    const given = '0b7f6a52-3c1d-4e8f-9a2b-5c6d7e8f9a0b';
    expect(keys.keyFor('pis_alice', 'create_bid', { name: 'x' }, given)).toBe(given);
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
