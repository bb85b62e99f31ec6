import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookmarkedIds } from '../../../src/app/shared/bookmarked-ids.ts';
import { ProcurementClient } from '../../../src/client/procurement-client.ts';
import { KEYS } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox?.stop());

describe('the tenders a key’s owner has bookmarked', () => {
  it('are read across the list’s pages, and only the owner’s', async () => {
    const alice = new ProcurementClient({ baseUrl: sandbox.baseUrl, apiKey: KEYS.aliceAcme });
    const bob = new ProcurementClient({ baseUrl: sandbox.baseUrl, apiKey: KEYS.bobAdminAcme });
    const page = await alice.tenders.search({ limit: 100 });
    const more = await alice.tenders.search({ limit: 100, offset: 100 });
    const ids = [...page.data, ...more.data].map((tender) => tender.id).slice(0, 130);
    expect(ids).toHaveLength(130);
    for (const id of ids) await alice.bookmarks.add(id);
    // Bob's own (the fixture gives him some): his list, not Alice's.
    const bobs = more.data.at(-1)?.id ?? '';
    const bobsBefore = await bookmarkedIds(bob);
    await bob.bookmarks.add(bobs);

    expect([...(await bookmarkedIds(alice))].sort()).toEqual([...ids].sort());
    expect([...(await bookmarkedIds(bob))].sort()).toEqual([...bobsBefore, bobs].sort());
  });
});
