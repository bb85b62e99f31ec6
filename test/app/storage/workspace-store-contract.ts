import { expect, it } from 'vitest';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { at, connection, installation, later, subscription, workspace } from './contract-fixtures.ts';

/** What every WorkspaceStore must do (workspaces, their keys and settings; removing a workspace); `open` as in botStoreContract. */
export function workspaceStoreContract(open: (name: string) => BotStore | Promise<BotStore>): void {
  it('keeps a workspace connection across reopening, replaces it, and removes it', async () => {
    const store = await open('connections');
    await store.saveConnection(connection);
    await store.close();
    const reopened = await open('connections');
    expect(await reopened.getConnection('T1')).toEqual(connection);
    await reopened.saveConnection({
      ...connection,
      encryptedApiKey: 'v1:new',
      serviceUrl: 'https://x.example',
    });
    expect(await reopened.getConnection('T1')).toMatchObject({
      encryptedApiKey: 'v1:new',
      serviceUrl: 'https://x.example',
    });
    expect(await reopened.removeConnection('T1')).toBe(true);
    expect(await reopened.getConnection('T1')).toBeNull();
    expect(await reopened.removeConnection('T1')).toBe(false);
    await reopened.close();
  });

  it('lists stored connections', async () => {
    const store = await open('listed');
    expect(await store.listConnections()).toEqual([]);
    await store.saveConnection({ ...connection, teamId: 'T2' });
    await store.saveConnection({ ...connection, teamId: 'T0' });
    const listed = await store.listConnections();
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.map((each) => each.teamId)).toEqual(['T0', 'T2']);
    await store.close();
  });

  it("keeps a person's own key per workspace, replaces it, and removes it", async () => {
    const store = await open('personal-keys');
    const key = {
      teamId: 'T1',
      userId: 'UALICE',
      encryptedApiKey: 'v1:alice',
      serviceUrl: null,
      connectedAt: at,
    };
    expect(await store.getPersonalKey('T1', 'UALICE')).toBeNull();
    await store.savePersonalKey(key);
    await store.savePersonalKey({ ...key, userId: 'UBOB', encryptedApiKey: 'v1:bob' });
    expect(await store.getPersonalKey('T1', 'UALICE')).toEqual(key);
    expect(await store.getPersonalKey('T2', 'UALICE')).toBeNull();
    const replaced = {
      ...key,
      encryptedApiKey: 'v1:alice-2',
      serviceUrl: 'https://x.example',
      connectedAt: later(1),
    };
    await store.savePersonalKey(replaced);
    expect(await store.getPersonalKey('T1', 'UALICE')).toEqual(replaced);
    expect(await store.removePersonalKey('T1', 'UALICE')).toBe(true);
    expect(await store.removePersonalKey('T1', 'UALICE')).toBe(false);
    expect(await store.getPersonalKey('T1', 'UALICE')).toBeNull();
    expect((await store.getPersonalKey('T1', 'UBOB'))?.encryptedApiKey).toBe('v1:bob');
    await store.close();
  });

  it("keeps a workspace's settings, with defaults when never saved", async () => {
    const store = await open('settings');
    expect(await store.getWorkspaceSettings('T1')).toEqual({ teamId: 'T1', personalKeysForWrites: false });
    await store.saveWorkspaceSettings({ teamId: 'T1', personalKeysForWrites: true });
    expect(await store.getWorkspaceSettings('T1')).toEqual({ teamId: 'T1', personalKeysForWrites: true });
    expect(await store.getWorkspaceSettings('T2')).toEqual({ teamId: 'T2', personalKeysForWrites: false });
    await store.saveWorkspaceSettings({ teamId: 'T1', personalKeysForWrites: false });
    expect(await store.getWorkspaceSettings('T1')).toEqual({ teamId: 'T1', personalKeysForWrites: false });
    await store.close();
  });

  it("removes a workspace's installation, keys, settings and subscriptions at once, and nothing of another's", async () => {
    const store = await open('remove-workspace');
    for (const team of ['T1', 'T2']) {
      await store.saveInstallation(installation(team, 'E1', false, `v1:${team}`));
      await store.saveConnection({ ...connection, teamId: team });
      await store.savePersonalKey({
        teamId: team,
        userId: 'U1',
        encryptedApiKey: `v1:${team}-u1`,
        serviceUrl: null,
        connectedAt: at,
      });
      await store.savePersonalKey({
        teamId: team,
        userId: 'U2',
        encryptedApiKey: `v1:${team}-u2`,
        serviceUrl: null,
        connectedAt: at,
      });
      await store.saveWorkspaceSettings({ teamId: team, personalKeysForWrites: true });
      await store.createSubscription({ ...subscription(`s-${team}`), teamId: team });
      await store.addManualDelivery({ id: `d-${team}`, subscriptionId: `s-${team}`, dueAt: at });
      await store.recordCommentAuthor({ commentId: 'c-1', teamId: team, userId: 'U1', createdAt: at });
      await store.rememberPipelineMessage({ pipelineId: 'p-1', teamId: team, channelId: 'C1', ts: '1.1' });
      await store.rememberSharedTenderCard(
        { tenderId: 't-1', teamId: team, channelId: 'C1', ts: '1.2', sharedBy: 'U1' },
        at,
      );
      await store.rememberCommentThread(
        { entityType: 'tender', entityId: 't-1', teamId: team, channelId: 'C1', ts: '1.3', postedBy: 'U1' },
        at,
      );
      await store.markChannelWelcomed(team, 'C1', at);
    }
    await store.saveInstallation(installation(null, 'E1', true, 'v1:e1'));
    const [claimed] = await store.claimDeliveries('A', at, 60_000, 1, ['C9']);
    expect(claimed?.teamId).toBe('T1');
    await store.freezeDelivery('d-T1', 'A', '{}', ['tender:1']);
    expect(await store.removeWorkspace('T1')).toEqual({
      installations: 1,
      connections: 1,
      personalKeys: 2,
      subscriptions: 1,
    });
    expect(await store.findInstallation(workspace('T1'))).toBeNull();
    expect(await store.getConnection('T1')).toBeNull();
    expect(await store.getPersonalKey('T1', 'U1')).toBeNull();
    expect(await store.getWorkspaceSettings('T1')).toEqual({ teamId: 'T1', personalKeysForWrites: false });
    expect(await store.getSubscription('T1', 's-T1')).toBeNull();
    expect(await store.getDelivery('d-T1')).toBeNull();
    expect(await store.deliveredItems('s-T1', ['tender:1'])).toEqual(new Set());
    expect((await store.commentAuthors('T1', ['c-1'])).size).toBe(0);
    expect(await store.pipelineMessages('T1', 'p-1')).toEqual([]);
    expect(await store.sharedTenderCards('T1', 't-1', 10)).toEqual([]);
    expect(await store.sharedTenderCards('T2', 't-1', 10)).toHaveLength(1);
    const record = { entityType: 'tender', entityId: 't-1' };
    expect(await store.commentThreads('T1', record, 10)).toEqual([]);
    expect(await store.commentThreads('T2', record, 10)).toHaveLength(1);
    // The channel was greeted once: not again after a reinstall.
    expect(await store.markChannelWelcomed('T1', 'C1', at)).toBe(false);
    // The org-wide install and T2 are untouched.
    expect(
      (await store.findInstallation({ teamId: 'T1', enterpriseId: 'E1', isEnterpriseInstall: true }))
        ?.encryptedInstallation,
    ).toBe('v1:e1');
    expect((await store.findInstallation(workspace('T2')))?.encryptedInstallation).toBe('v1:T2');
    expect((await store.getConnection('T2'))?.teamId).toBe('T2');
    expect((await store.getPersonalKey('T2', 'U2'))?.encryptedApiKey).toBe('v1:T2-u2');
    expect(await store.getWorkspaceSettings('T2')).toEqual({ teamId: 'T2', personalKeysForWrites: true });
    expect((await store.getSubscription('T2', 's-T2'))?.id).toBe('s-T2');
    expect((await store.getDelivery('d-T2'))?.state).toBe('pending');
    expect([...(await store.commentAuthors('T2', ['c-1'])).entries()]).toEqual([['c-1', 'U1']]);
    expect((await store.pipelineMessages('T2', 'p-1')).map((message) => message.ts)).toEqual(['1.1']);
    expect(await store.removeWorkspace('T1')).toEqual({
      installations: 0,
      connections: 0,
      personalKeys: 0,
      subscriptions: 0,
    });
    await store.close();
  });
}
