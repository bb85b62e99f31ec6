import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  disconnectPersonalKey,
  submitPersonalKey,
} from '../../../../src/app/features/connection/personal-key.ts';
import { ConnectIds } from '../../../../src/app/shared/ids.ts';
import { encode } from '../../../../src/app/shared/values/codec.ts';
import { KEYS } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';
import { textOf } from '../../../support/slack-text.ts';

// A person's own key (`/tender connect me`, `/tender disconnect me`), its handlers called directly.

const MEMBER = 'U0MEMBER';
const GUEST = 'U0GUEST';
const CHANNEL = 'C0BIDS';
/** The personal window's metadata when opened from #bids (connect-metadata.ts). */
const FROM_BIDS = `me:${encode('connectMetadata', { channelId: CHANNEL }, 'metadata')}`;

let harness: HandlerHarness;
let teamId: string;

beforeAll(async () => {
  harness = await startHandlerHarness();
  teamId = harness.slack.teamId;
});
afterAll(async () => {
  await harness?.close();
});
beforeEach(async () => {
  await harness.context.store.removeConnection(teamId);
  for (const user of [MEMBER, GUEST]) await harness.context.store.removePersonalKey(teamId, user);
});

const link = (userId: string, key: string) =>
  submitPersonalKey(harness.context, harness.request({ userId }).slack, {
    teamId,
    userId,
    key,
    privateMetadata: FROM_BIDS,
  });

describe('submitPersonalKey', () => {
  it('saves a member’s own key for the operator’s service, confirms it and redraws their Home tab', async () => {
    expect(await link(MEMBER, KEYS.carolMemberAcme)).toBeNull();
    const saved = await harness.context.store.getPersonalKey(teamId, MEMBER);
    expect(saved?.serviceUrl).toBe(harness.context.clients.operatorServiceUrl);
    expect(harness.context.cipher.decrypt(saved?.encryptedApiKey ?? '')).toBe(KEYS.carolMemberAcme);
    const confirmation = harness.slack.lastMessage(CHANNEL, MEMBER);
    expect(confirmation?.ephemeralTo).toBe(MEMBER);
    expect(confirmation?.text).toMatch(/^Linked\./);
    expect(textOf(harness.slack.homeOf(MEMBER)?.view)).toContain('You linked your own key');
    // The workspace's key is not touched by a person's own.
    expect(await harness.context.store.getConnection(teamId)).toBeNull();
  });

  it('shows an expired key on the key field and saves nothing', async () => {
    const answer = await link(GUEST, KEYS.aliceExpired);
    expect(answer?.errors[ConnectIds.keyBlock]).toContain('This key has expired.');
    expect(await harness.context.store.getPersonalKey(teamId, GUEST)).toBeNull();
  });

  it('refuses an empty key and one that was not copied whole, before trying them', async () => {
    expect((await link(MEMBER, '   '))?.errors[ConnectIds.keyBlock]).toBe('Paste your API key.');
    expect((await link(MEMBER, 'pis_it’s_curly'))?.errors[ConnectIds.keyBlock]).toContain('not copied whole');
    expect(await harness.context.store.getPersonalKey(teamId, MEMBER)).toBeNull();
  });
});

describe('disconnectPersonalKey', () => {
  it('deletes a member’s own key and says their commands now use the key Tenderbot was set up with', async () => {
    await link(MEMBER, KEYS.carolMemberAcme);
    const request = harness.request({ userId: MEMBER });
    await disconnectPersonalKey(harness.context, request);
    expect(request.said()).toContain('Unlinked: your own key is deleted.');
    expect(request.said()).toContain('the key Tenderbot was set up with');
    expect(await harness.context.store.getPersonalKey(teamId, MEMBER)).toBeNull();
    expect(textOf(harness.slack.homeOf(MEMBER)?.view)).toContain('Link your own key');
  });

  it('tells someone with no key of their own that there is nothing to unlink', async () => {
    const request = harness.request({ userId: GUEST });
    await disconnectPersonalKey(harness.context, request);
    expect(request.said()).toBe('You have no key of your own linked. `/tender connect me` links one.');
  });
});
