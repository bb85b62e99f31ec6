import { expect, it } from 'vitest';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { installation, workspace } from './contract-fixtures.ts';

/** What every InstallationStore must do (installations, found as Bolt asks); `open` as in botStoreContract. */
export function installationStoreContract(open: (name: string) => BotStore | Promise<BotStore>): void {
  it('keeps one installation per workspace and one org-wide per enterprise, found as Bolt asks', async () => {
    const one = await open('installations');
    const two = await open('installations');
    expect(await one.listInstallations()).toEqual([]);
    expect(await one.findInstallation(workspace('T1'))).toBeNull();
    await one.saveInstallation(installation('T1', null, false, 'v1:t1-first'));
    // Installing again replaces it.
    await one.saveInstallation(installation('T1', null, false, 'v1:t1'));
    await one.saveInstallation(installation('T2', 'E1', false, 'v1:t2-in-e1'));
    await one.saveInstallation(installation(null, 'E1', true, 'v1:e1'));
    await one.saveInstallation(installation(null, 'E2', true, 'v1:e2'));
    expect(await two.findInstallation(workspace('T1'))).toEqual(installation('T1', null, false, 'v1:t1'));
    // A workspace of E1 installed on its own has its own; every other workspace of E1 gets the org-wide one.
    expect(
      (await two.findInstallation({ teamId: 'T2', enterpriseId: 'E1', isEnterpriseInstall: false }))
        ?.encryptedInstallation,
    ).toBe('v1:t2-in-e1');
    expect(
      await two.findInstallation({ teamId: 'T3', enterpriseId: 'E1', isEnterpriseInstall: true }),
    ).toEqual(installation(null, 'E1', true, 'v1:e1'));
    expect(
      (await two.findInstallation({ teamId: 'T3', enterpriseId: 'E1', isEnterpriseInstall: false }))
        ?.encryptedInstallation,
    ).toBe('v1:e1');
    expect(
      (await two.findInstallation({ teamId: null, enterpriseId: 'E2', isEnterpriseInstall: true }))
        ?.encryptedInstallation,
    ).toBe('v1:e2');
    expect(
      await two.findInstallation({ teamId: 'T9', enterpriseId: 'E9', isEnterpriseInstall: true }),
    ).toBeNull();
    expect(await two.findInstallation(workspace('T9'))).toBeNull();
    expect((await two.listInstallations()).map((each) => each.encryptedInstallation).sort()).toEqual([
      'v1:e1',
      'v1:e2',
      'v1:t1',
      'v1:t2-in-e1',
    ]);
    // Removing T2's own install leaves the org-wide one, which then serves T2.
    expect(
      await two.deleteInstallation({ teamId: 'T2', enterpriseId: 'E1', isEnterpriseInstall: false }),
    ).toBe(true);
    expect(
      await two.deleteInstallation({ teamId: 'T2', enterpriseId: 'E1', isEnterpriseInstall: false }),
    ).toBe(false);
    expect(
      (await one.findInstallation({ teamId: 'T2', enterpriseId: 'E1', isEnterpriseInstall: false }))
        ?.encryptedInstallation,
    ).toBe('v1:e1');
    expect(
      await one.deleteInstallation({ teamId: 'T3', enterpriseId: 'E1', isEnterpriseInstall: true }),
    ).toBe(true);
    expect(
      await one.findInstallation({ teamId: 'T2', enterpriseId: 'E1', isEnterpriseInstall: false }),
    ).toBeNull();
    expect((await one.listInstallations()).length).toBe(2);
    await one.close();
    await two.close();
  });
}
