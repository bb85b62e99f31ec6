import { expect, it } from 'vitest';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { at } from './contract-fixtures.ts';

/** What every KeptValueStore must do (seen requests and kept states); `open` as in botStoreContract. */
export function keptValueStoreContract(open: (name: string) => BotStore | Promise<BotStore>): void {
  it('remembers a request until it expires, once for every store on the same data', async () => {
    const one = await open('seen');
    const two = await open('seen');
    const until = new Date(at.getTime() + 6 * 60_000);
    expect(await one.rememberRequest('signature:v0=aa', until, at)).toBe(true);
    expect(await one.rememberRequest('signature:v0=aa', until, at)).toBe(false);
    expect(await two.rememberRequest('signature:v0=aa', until, at)).toBe(false);
    expect(await two.rememberRequest('signature:v0=bb', until, at)).toBe(true);
    // Past its expiry the row is pruned, and the same id is new again.
    const later = new Date(until.getTime() + 1);
    expect(await two.rememberRequest('signature:v0=aa', new Date(later.getTime() + 60_000), later)).toBe(
      true,
    );
    // An expired entry counts as unseen at once, whether or not it has been pruned yet.
    const soon = new Date(at.getTime() + 1000);
    expect(await one.rememberRequest('signature:v0=cc', soon, at)).toBe(true);
    const justAfter = new Date(soon.getTime() + 1);
    expect(
      await one.rememberRequest('signature:v0=cc', new Date(justAfter.getTime() + 1000), justAfter),
    ).toBe(true);
    expect(
      await one.rememberRequest('signature:v0=cc', new Date(justAfter.getTime() + 1000), justAfter),
    ).toBe(false);
    await one.close();
    await two.close();
  });

  it('forgets a remembered request only while it is the same entry (its expiry), for every store', async () => {
    const one = await open('forget');
    const two = await open('forget');
    const until = new Date(at.getTime() + 60_000);
    expect(await one.rememberRequest('turn:bid', until, at)).toBe(true);
    // Another expiry is another holder's entry: left as it is.
    await two.forgetRequest('turn:bid', new Date(until.getTime() + 1));
    expect(await two.rememberRequest('turn:bid', until, at)).toBe(false);
    await two.forgetRequest('turn:bid', until);
    expect(await one.rememberRequest('turn:bid', until, at)).toBe(true);
    // Expired and taken again by another: the first holder's forgetting does not undo the new claim.
    const later = new Date(until.getTime() + 1);
    const laterUntil = new Date(later.getTime() + 60_000);
    expect(await two.rememberRequest('turn:bid', laterUntil, later)).toBe(true);
    await one.forgetRequest('turn:bid', until);
    expect(await one.rememberRequest('turn:bid', laterUntil, later)).toBe(false);
    await one.close();
    await two.close();
  });

  it('keeps a state under its token until it expires, for every store on the same data', async () => {
    const one = await open('states');
    const two = await open('states');
    const token = '~abcdefghijklmnopqrstuv';
    const until = new Date(at.getTime() + 30 * 86_400_000);
    expect(await one.loadState(token, at)).toBeNull();
    await one.saveState(token, '{"e":"tender","id":"ocds-1"}', until);
    expect(await one.loadState(token, at)).toBe('{"e":"tender","id":"ocds-1"}');
    expect(await two.loadState(token, at)).toBe('{"e":"tender","id":"ocds-1"}');
    expect(await two.loadState(token, until)).toBeNull();
    expect(await two.loadState('~another', at)).toBeNull();
    await one.close();
    await two.close();
  });
}
