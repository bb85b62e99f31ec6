import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcurementClient } from '../../../src/client/procurement-client.ts';
import { KEYS } from '../../support/fixture.ts';
import { Harness, type Instance } from './harness.ts';

/**
 * A subscription is read with its subscriber's key: their own where they linked one. Max linked
 * Alice's key (his own bookmarks); Ada uses the workspace's (Carol's) key.
 */
const harness = new Harness('2027-05-03T08:00:00Z', mkdtempSync(join(tmpdir(), 'tenderbot-sub-personal-')));
let a: Instance;
let tenderId: string;

beforeAll(async () => {
  await harness.start();
  a = await harness.instance('A');
  // A tender closing in five days, bookmarked with Alice's key only.
  [tenderId] = (await harness.importTenders(
    ['Harbour wall repairs'],
    new Date('2027-05-01T08:00:00Z'),
    new Date('2027-05-08T12:00:00Z'),
  )) as [string];
  await new ProcurementClient({ baseUrl: harness.sandbox.baseUrl, apiKey: KEYS.aliceAcme }).bookmarks.add(
    tenderId,
  );
  await harness.linkPersonalKey(a.store, 'U0MEMBER', KEYS.aliceAcme);
});
afterAll(async () => {
  await a?.stop();
  await harness.stop();
});

describe('a subscription and its subscriber’s own key', () => {
  it('follows the subscriber’s own bookmarks, and says so; the workspace’s list is not theirs', async () => {
    const own = await harness.command('U0MEMBER', 'C0BIDS', 'subscribe deadlines 7');
    expect(own.ephemeralTo).toBeNull();
    expect(own.text + JSON.stringify(own.blocks)).toContain('<@U0MEMBER>’s own bookmarks');
    const workspace = await harness.command('U0ADMIN', 'C0GENERAL', 'subscribe deadlines 7');
    expect(JSON.stringify(workspace.blocks)).toContain('the workspace’s bookmarks');

    // Due at 09:00 in each subscriber's zone: run through the day.
    await harness.runUntil(Date.parse('2027-05-04T08:00:00Z'), () => [a], 30 * 60_000);
    const [ownSubscription] = await a.store.channelSubscriptions(harness.slack.teamId, 'C0BIDS');
    const ownPosts = harness.postsOf('C0BIDS', ownSubscription?.id as string);
    expect(ownPosts).toHaveLength(1);
    expect(JSON.stringify(ownPosts[0]?.blocks)).toContain('Harbour wall repairs');
    // Carol's (the workspace's) list has no such bookmark: nothing due, so nothing posted.
    const [workspaceSubscription] = await a.store.channelSubscriptions(harness.slack.teamId, 'C0GENERAL');
    const workspacePosts = harness.postsOf('C0GENERAL', workspaceSubscription?.id as string);
    expect(workspacePosts.map((post) => JSON.stringify(post.blocks)).join()).not.toContain(
      'Harbour wall repairs',
    );
  });
});
