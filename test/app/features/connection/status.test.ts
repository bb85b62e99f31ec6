import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { statusCommand } from '../../../../src/app/features/connection/status.ts';
import type { FeatureContext } from '../../../../src/app/shared/feature-context.ts';
import { KEYS } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';

// `/tender status`, its handler called directly against the local service on loopback.

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
  await harness.context.clients.forget(teamId);
  await harness.context.store.removeConnection(teamId);
  await harness.context.clients.forgetPerson(teamId, 'U0MEMBER');
  await harness.context.store.removePersonalKey(teamId, 'U0MEMBER');
});

const status = async (userId: string, context: FeatureContext = harness.context) => {
  const request = harness.request({ userId });
  await statusCommand(context, request);
  return request.said();
};
const connectWorkspace = (key: string) =>
  harness.context.store.saveConnection({
    teamId,
    encryptedApiKey: harness.context.cipher.encrypt(key),
    serviceUrl: null,
    connectedBy: 'U0ADMIN',
    connectedAt: '2026-11-21T09:00:00.000Z',
  });

describe('statusCommand', () => {
  it('names the workspace’s key and who connected it, and that it can read everything', async () => {
    await connectWorkspace(KEYS.aliceAcme);
    const said = await status('U0MEMBER');
    expect(said).toContain('*Key*: this workspace’s own, connected by <@U0ADMIN> on 21 Nov 2026.');
    expect(said).toContain('*Your key*: none of your own');
    expect(said).toContain('*Tender service*: answering.');
    expect(said).toContain('*This key can read*: tenders, buyers, suppliers, frameworks, bookmarks');
  });

  it('speaks of a person’s own key when they linked one', async () => {
    await harness.context.store.savePersonalKey({
      teamId,
      userId: 'U0MEMBER',
      encryptedApiKey: harness.context.cipher.encrypt(KEYS.carolMemberAcme),
      serviceUrl: harness.context.clients.operatorServiceUrl,
      connectedAt: new Date('2026-11-22T10:00:00Z'),
    });
    const said = await status('U0MEMBER');
    expect(said).toContain('*Key*: the one Tenderbot was set up with');
    expect(said).toContain('*Your key*: your own, linked on 22 Nov 2026.');
    expect(said).toContain('*Your own key can read*');
  });

  it('says the service refuses an expired workspace key, and that an admin must connect a new one', async () => {
    await connectWorkspace(KEYS.aliceExpired);
    const said = await status('U0ADMIN');
    expect(said).toContain('❌ Tenders');
    expect(said).toContain('• Tenders: the service refuses this key.');
    expect(said).toContain('an admin must make a new one and run `/tender connect`');
  });

  it('with no key anywhere, says only how to add one', async () => {
    const withoutDefault = {
      ...harness.context,
      config: { ...harness.context.config, PROCUREMENT_API_KEY: undefined },
    };
    const said = await status('U0GUEST', withoutDefault);
    expect(said).toBe(
      '*Key*: none. A workspace admin can add one with `/tender connect`, and anyone can link their own with `/tender connect me`.',
    );
  });
});
