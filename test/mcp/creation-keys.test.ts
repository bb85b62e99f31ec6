import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/client/errors.ts';
import { CreationKeys, MAX_REMEMBERED_PER_CALLER, RETRY_WINDOW_MS } from '../../src/mcp/creation-keys.ts';
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

  it('makes a new creation, with a new key, when what the remembered key made is gone since (deleted, archived)', async () => {
    const keys = new CreationKeys();
    const args = { entityType: 'tender', entityId: 't-1', body: 'hello' };
    const deleted = new Set<string>();
    const create = () =>
      keys.create(
        'pis_alice',
        'post_comment',
        args,
        undefined,
        async (key) => key,
        (made) => deleted.has(made),
      );
    const first = await create();
    // A retry: the same key, as long as the comment is there.
    expect(await create()).toBe(first);
    deleted.add(first);
    const again = await create();
    expect(again).not.toBe(first);
    expect(again).toMatch(/^[0-9a-f-]{36}$/);
    // And that new creation is the one a retry now gets.
    expect(await create()).toBe(again);
  });

  it('two identical calls that both find the remembered creation gone make one new creation between them', async () => {
    const keys = new CreationKeys();
    const args = { entityType: 'tender', entityId: 't-2', body: 'twice' };
    const deleted = new Set<string>();
    const first = await keys.create('pis_bob', 'post_comment', args, undefined, async (key) => key);
    deleted.add(first);
    // Each call's read of the remembered key is answered; the second's answer comes after the first
    // call has already made (and remembered) its new creation.
    let releaseSecond: () => void = () => {};
    const secondRead = new Promise<void>((resolve) => {
      releaseSecond = resolve;
    });
    const made: string[] = [];
    const call = (slow: boolean) =>
      keys.create(
        'pis_bob',
        'post_comment',
        args,
        undefined,
        async (key) => {
          if (slow && key === first) await secondRead;
          if (key !== first) made.push(key);
          return key;
        },
        (key) => deleted.has(key),
      );
    const slowCall = call(true);
    const quick = await call(false);
    releaseSecond();
    const slow = await slowCall;
    expect(quick).not.toBe(first);
    expect(slow).toBe(quick);
    // One new key was ever used to create: the service made one new comment.
    expect(new Set(made)).toEqual(new Set([quick]));
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

describe('creation keys: the memory is bounded per caller and in all', () => {
  const args = { entityType: 'tender', entityId: 't-1', body: 'Our go/no-go is Friday' };
  /** Keys with small bounds, so that a test fills them. */
  const keysWithin = (bounds: ConstructorParameters<typeof CreationKeys>[2]) =>
    new CreationKeys(RETRY_WINDOW_MS, Date.now, bounds);
  /** A creation whose answer was lost (a timeout): remembered, as the service may have made it. */
  const lostKey = (keys: CreationKeys, caller: string, body: string) =>
    keys
      .create(caller, 'post_comment', { ...args, body }, undefined, async () => {
        throw new Error('the service did not answer in time');
      })
      .catch(() => undefined);

  it('one caller’s flood of real creations pushes out only its own', async () => {
    const keys = new CreationKeys();
    const carol = await keyOf(keys, 'pis_carol', 'post_comment', args);
    const mallory: string[] = [];
    for (let index = 0; index < 10_050; index++)
      mallory.push(await keyOf(keys, 'pis_mallory', 'post_comment', { ...args, body: `spam ${index}` }));
    expect(await keyOf(keys, 'pis_carol', 'post_comment', args)).toBe(carol);
    expect(keys.size).toBeLessThanOrEqual(MAX_REMEMBERED_PER_CALLER + 1);
    // Mallory's latest is still remembered; her oldest were forgotten.
    expect(await keyOf(keys, 'pis_mallory', 'post_comment', { ...args, body: 'spam 10049' })).toBe(
      mallory.at(-1),
    );
    expect(await keyOf(keys, 'pis_mallory', 'post_comment', { ...args, body: 'spam 0' })).not.toBe(
      mallory[0],
    );
  });

  it('a full memory forgets lost answers (all a made-up key can leave) before any accepted creation', async () => {
    const keys = keysWithin({ total: 20, perCaller: 5, underWayPerCaller: 5, underWay: 20 });
    const carol = await keyOf(keys, 'pis_carol', 'post_comment', args);
    for (let index = 0; index < 200; index++) await lostKey(keys, `pis_made_up_${index}`, `spam ${index}`);
    expect(keys.size).toBe(20);
    expect(await keyOf(keys, 'pis_carol', 'post_comment', args)).toBe(carol);
    // Full of accepted creations, the caller holding the most loses its oldest first.
    const mallory: string[] = [];
    for (let index = 0; index < 5; index++)
      mallory.push(await keyOf(keys, 'pis_mallory', 'create_bid', { name: `m${index}` }));
    for (let index = 0; index < 18; index++)
      await keyOf(keys, `pis_colleague_${index}`, 'create_bid', { name: 'x' });
    expect(keys.size).toBe(20);
    expect(await keyOf(keys, 'pis_carol', 'post_comment', args)).toBe(carol);
    // Mallory held the most: four of hers went, her latest stayed.
    expect(await keyOf(keys, 'pis_mallory', 'create_bid', { name: 'm4' })).toBe(mallory[4]);
    expect(await keyOf(keys, 'pis_mallory', 'create_bid', { name: 'm0' })).not.toBe(mallory[0]);
  });

  it('a flood of lost answers from made-up keys (an outage) leaves a known caller’s lost answer in place', async () => {
    const keys = keysWithin({ total: 20, perCaller: 5, underWayPerCaller: 5, underWay: 20 });
    // Carol's key is known real (a creation accepted); her next creation's answer is lost.
    await keyOf(keys, 'pis_carol', 'post_comment', args);
    let carolLost = '';
    await keys
      .create('pis_carol', 'post_comment', { ...args, body: 'lost' }, undefined, async (key) => {
        carolLost = key;
        throw new Error('the service did not answer in time');
      })
      .catch(() => undefined);
    for (let index = 0; index < 200; index++) await lostKey(keys, `pis_made_up_${index}`, `spam ${index}`);
    expect(keys.size).toBe(20);
    // Her retry gets the key the lost creation was sent with: the service answers with it, once.
    expect(await keyOf(keys, 'pis_carol', 'post_comment', { ...args, body: 'lost' })).toBe(carolLost);
  });

  it('a refused call is dropped, and a caller’s shared keys under way are bounded', async () => {
    const keys = keysWithin({ total: 100, perCaller: 100, underWayPerCaller: 2, underWay: 100 });
    const held: (() => void)[] = [];
    const hold = (caller: string, name: string) =>
      keys.create(caller, 'create_bid', { name }, undefined, async (key) => {
        await new Promise<void>((resolve) => held.push(resolve));
        return key;
      });
    const first = [hold('pis_erin', 'a'), hold('pis_erin', 'a'), hold('pis_erin', 'b')];
    // Erin's third creation under way is past her bound: it gets a key of its own, unshared.
    const third = [hold('pis_erin', 'c'), hold('pis_erin', 'c')];
    for (const release of held) release();
    const [a1, a2, b] = await Promise.all(first);
    expect(a1).toBe(a2);
    expect(b).not.toBe(a1);
    const [c1, c2] = await Promise.all(third);
    expect(c1).not.toBe(c2);
    // A refused call leaves nothing: the same call again gets a new key.
    const refused = await refusedKey(keys, 'pis_erin', 'create_bid', { name: 'd' });
    expect(await keyOf(keys, 'pis_erin', 'create_bid', { name: 'd' })).not.toBe(refused);
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
