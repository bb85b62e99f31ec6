import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  confirmDisconnect,
  connectCommand,
  disconnectCommand,
  keepKey,
  openConnectModal,
  submitConnectModal,
  submitConnectWithinBudget,
} from '../../../../src/app/features/connection/workspace-key.ts';
import { ConnectIds } from '../../../../src/app/shared/ids.ts';
import type { Mrkdwn } from '../../../../src/app/shared/views/mrkdwn.ts';
import { KEYS } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';
import { textOf } from '../../../support/slack-text.ts';

// The workspace key's handlers, called directly with real parts (handler-context.ts).

const ADMIN = 'U0ADMIN';
const MEMBER = 'U0MEMBER';
const CHANNEL = 'C0BIDS';

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
  for (const user of [ADMIN, MEMBER]) await harness.context.store.removePersonalKey(teamId, user);
});

const trigger = (userId: string) => harness.slack.workspaceState.newTrigger(userId);
/** The one window open for `userId`; a test fails here when there is none, or more than one. */
const openModal = (userId: string) => {
  const modals = harness.slack.openModals(userId);
  expect(modals).toHaveLength(1);
  const [modal] = modals;
  if (!modal) throw new Error(`no window is open for ${userId}`);
  return modal;
};
const closeModals = (userId: string) => {
  for (const modal of harness.slack.openModals(userId)) harness.slack.views.delete(modal.id);
};
/** The metadata the connect window carries when opened from #bids for the workspace's key. */
const channelMetadata = async (userId: string) => {
  closeModals(userId);
  await openConnectModal(
    harness.context,
    harness.request({ userId }).slack,
    { teamId, userId, channelId: CHANNEL, triggerId: trigger(userId) },
    async () => undefined,
  );
  const modal = openModal(userId);
  return { viewId: modal.id, privateMetadata: String(modal.view.private_metadata) };
};
const connectAs = (userId: string, key: string) =>
  harness.context.store.saveConnection({
    teamId,
    encryptedApiKey: harness.context.cipher.encrypt(key),
    serviceUrl: null,
    connectedBy: userId,
    connectedAt: new Date().toISOString(),
  });

describe('connectCommand', () => {
  it('opens the workspace key’s window for an admin, answering nothing in the channel', async () => {
    closeModals(ADMIN);
    const request = harness.request({ userId: ADMIN });
    await connectCommand(harness.context, request, '', trigger(ADMIN));
    const modal = openModal(ADMIN);
    expect(modal.view.callback_id).toBe(ConnectIds.callback);
    expect(String(modal.view.private_metadata)).not.toMatch(/^me:/);
    expect(request.answers).toEqual([]);
  });

  it('refuses a member the workspace’s key, naming `/tender connect me`, and opens nothing', async () => {
    closeModals(MEMBER);
    const request = harness.request({ userId: MEMBER });
    await connectCommand(harness.context, request, '', trigger(MEMBER));
    expect(request.said()).toContain('Only a workspace owner or admin');
    expect(request.said()).toContain('`/tender connect me`');
    expect(harness.slack.openModals(MEMBER)).toEqual([]);
  });

  it('answers a word it does not know with what the two forms do, and opens nothing', async () => {
    closeModals(ADMIN);
    const request = harness.request({ userId: ADMIN });
    await connectCommand(harness.context, request, 'everyone', trigger(ADMIN));
    expect(request.said()).toContain('`/tender connect me` links a key of your own');
    expect(harness.slack.openModals(ADMIN)).toEqual([]);
  });
});

describe('openConnectModal', () => {
  it('opens the window for a member’s own key from the Home tab (no channel), where the button reads so', async () => {
    closeModals(MEMBER);
    const refusals: Mrkdwn[] = [];
    await openConnectModal(
      harness.context,
      harness.request({ userId: MEMBER }).slack,
      { teamId, userId: MEMBER, channelId: null, triggerId: trigger(MEMBER) },
      async (sentence) => {
        refusals.push(sentence);
      },
    );
    expect(refusals).toEqual([]);
    const modal = openModal(MEMBER);
    expect(String(modal.view.private_metadata)).toMatch(/^me:/);
  });

  it('refuses a member the workspace’s window from a channel, through the caller’s sentence', async () => {
    closeModals(MEMBER);
    const refusals: Mrkdwn[] = [];
    await openConnectModal(
      harness.context,
      harness.request({ userId: MEMBER }).slack,
      { teamId, userId: MEMBER, channelId: CHANNEL, triggerId: trigger(MEMBER) },
      async (sentence) => {
        refusals.push(sentence);
      },
    );
    expect(refusals.join(' ')).toContain('Only a workspace owner or admin');
    expect(harness.slack.openModals(MEMBER)).toEqual([]);
  });
});

describe('submitConnectModal', () => {
  it('saves a key the service accepts, confirms it in the channel and redraws the Home tab', async () => {
    const { privateMetadata } = await channelMetadata(ADMIN);
    const answer = await submitConnectModal(harness.context, harness.request({ userId: ADMIN }).slack, {
      teamId,
      userId: ADMIN,
      key: KEYS.aliceAcme,
      serviceUrl: '',
      privateMetadata,
    });
    expect(answer).toBeNull();
    const saved = await harness.context.store.getConnection(teamId);
    expect(saved?.connectedBy).toBe(ADMIN);
    expect(harness.context.cipher.decrypt(saved?.encryptedApiKey ?? '')).toBe(KEYS.aliceAcme);
    const confirmation = harness.slack.lastMessage(CHANNEL, ADMIN);
    expect(confirmation?.ephemeralTo).toBe(ADMIN);
    expect(confirmation?.text).toMatch(/^Connected\./);
    expect(textOf(harness.slack.homeOf(ADMIN)?.view)).toContain('Connected with this workspace’s own key');
  });

  it('shows a key the service does not recognise on the key field, and saves nothing', async () => {
    const { privateMetadata } = await channelMetadata(ADMIN);
    const answer = await submitConnectModal(harness.context, harness.request({ userId: ADMIN }).slack, {
      teamId,
      userId: ADMIN,
      key: 'pis_wrong_0123456789abcdefghijklmnopqrstuvwx',
      serviceUrl: '',
      privateMetadata,
    });
    expect(answer?.errors[ConnectIds.keyBlock]).toContain('does not recognise this key');
    expect(await harness.context.store.getConnection(teamId)).toBeNull();
  });

  it('refuses a member on the key field even with a right key and a window’s metadata, and saves nothing', async () => {
    const { privateMetadata } = await channelMetadata(ADMIN);
    const answer = await submitConnectModal(harness.context, harness.request({ userId: MEMBER }).slack, {
      teamId,
      userId: MEMBER,
      key: KEYS.aliceAcme,
      serviceUrl: '',
      privateMetadata,
    });
    expect(answer?.errors[ConnectIds.keyBlock]).toContain('Only a workspace owner or admin');
    // Plain text under the field: the commands without code marks.
    expect(answer?.errors[ConnectIds.keyBlock]).toContain('run /tender connect. To link a key of your own');
    expect(answer?.errors[ConnectIds.keyBlock]).not.toMatch(/[`\u02CB]|&amp;|&lt;/);
    expect(await harness.context.store.getConnection(teamId)).toBeNull();
  });
});

describe('submitConnectWithinBudget', () => {
  it('closes the window (an empty ack) once a right key is checked and saved', async () => {
    const { viewId, privateMetadata } = await channelMetadata(ADMIN);
    const acks: unknown[] = [];
    await submitConnectWithinBudget(
      harness.context,
      harness.request({ userId: ADMIN }).slack,
      { teamId, userId: ADMIN, key: KEYS.aliceAcme, serviceUrl: '', privateMetadata, viewId },
      async (answer) => {
        acks.push(answer);
      },
      // Long enough that the loopback check is always the quick answer, whatever the machine's load.
      60_000,
    );
    expect(acks).toEqual([undefined]);
    expect((await harness.context.store.getConnection(teamId))?.connectedBy).toBe(ADMIN);
  });

  it('answers an expired key with the field’s error in the ack, and saves nothing', async () => {
    const { viewId, privateMetadata } = await channelMetadata(ADMIN);
    const acks: unknown[] = [];
    await submitConnectWithinBudget(
      harness.context,
      harness.request({ userId: ADMIN }).slack,
      { teamId, userId: ADMIN, key: KEYS.aliceExpired, serviceUrl: '', privateMetadata, viewId },
      async (answer) => {
        acks.push(answer);
      },
      60_000,
    );
    expect(acks).toEqual([
      { response_action: 'errors', errors: { [ConnectIds.keyBlock]: expect.stringContaining('expired') } },
    ]);
    expect(await harness.context.store.getConnection(teamId)).toBeNull();
  });

  it('with no time to check, shows “checking” at once, then the outcome in the same window', async () => {
    const { viewId, privateMetadata } = await channelMetadata(ADMIN);
    const acks: unknown[] = [];
    await submitConnectWithinBudget(
      harness.context,
      harness.request({ userId: ADMIN }).slack,
      { teamId, userId: ADMIN, key: KEYS.aliceExpired, serviceUrl: '', privateMetadata, viewId },
      async (answer) => {
        acks.push(answer);
      },
      0,
    );
    expect(acks).toEqual([{ response_action: 'update', view: expect.anything() }]);
    const modal = harness.slack.views.get(viewId);
    expect(textOf(modal?.view)).toContain('expired');
    expect(await harness.context.store.getConnection(teamId)).toBeNull();
  });
});

describe('disconnectCommand', () => {
  it('asks an admin first, naming who connected the key, with Disconnect and Keep it', async () => {
    await connectAs(MEMBER, KEYS.aliceAcme);
    const request = harness.request({ userId: ADMIN });
    await disconnectCommand(harness.context, request, '');
    expect(request.said()).toContain(`connected by <@${MEMBER}>`);
    const actionIds = JSON.stringify(request.answers.at(0)?.blocks);
    expect(actionIds).toContain(ConnectIds.disconnect);
    expect(actionIds).toContain(ConnectIds.keepKey);
    expect(await harness.context.store.getConnection(teamId)).not.toBeNull();
  });

  it('refuses a member with no key of their own, and asks nothing', async () => {
    await connectAs(ADMIN, KEYS.aliceAcme);
    const request = harness.request({ userId: MEMBER });
    await disconnectCommand(harness.context, request, '');
    expect(request.said()).toContain('Only a workspace owner or admin');
    expect(request.said()).toContain('`/tender disconnect me`');
    expect(JSON.stringify(request.answers)).not.toContain(ConnectIds.disconnect);
  });

  it('tells an admin there is no workspace key to disconnect when there is none', async () => {
    const request = harness.request({ userId: ADMIN });
    await disconnectCommand(harness.context, request, '');
    expect(request.said()).toContain('This workspace has no key of its own to disconnect.');
  });
});

describe('confirmDisconnect', () => {
  it('deletes the workspace’s key for an admin and replaces the question', async () => {
    await connectAs(ADMIN, KEYS.aliceAcme);
    const request = harness.request({ userId: ADMIN, kind: 'click' });
    await confirmDisconnect(harness.context, request);
    expect(request.said()).toContain('Disconnected: the workspace’s key is deleted.');
    expect(request.answers.at(0)?.replace_original).toBe(true);
    expect(await harness.context.store.getConnection(teamId)).toBeNull();
  });

  it('refuses a member who clicks a question meant for an admin, and keeps the key', async () => {
    await connectAs(ADMIN, KEYS.aliceAcme);
    const request = harness.request({ userId: MEMBER, kind: 'click' });
    await confirmDisconnect(harness.context, request);
    expect(request.said()).toContain('Only a workspace owner or admin');
    expect((await harness.context.store.getConnection(teamId))?.connectedBy).toBe(ADMIN);
  });
});

describe('keepKey', () => {
  // "Keep it" refuses no one: it changes nothing, so its only path is the sentence.
  it('replaces the question with what stays, and leaves the key', async () => {
    await connectAs(ADMIN, KEYS.aliceAcme);
    const request = harness.request({ userId: MEMBER, kind: 'click' });
    await keepKey(request);
    expect(request.said()).toBe('Kept: the workspace’s key is still connected.');
    expect(request.answers.at(0)?.replace_original).toBe(true);
    expect(await harness.context.store.getConnection(teamId)).not.toBeNull();
  });
});
