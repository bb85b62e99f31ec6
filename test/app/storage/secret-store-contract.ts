import { expect, it } from 'vitest';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { at, connection, installation, workspace } from './contract-fixtures.ts';

/** What every SecretStore must do (every stored secret (key rotation)); `open` as in botStoreContract. */
export function secretStoreContract(open: (name: string) => BotStore | Promise<BotStore>): void {
  it('lists every stored secret and replaces one only if it has not changed meanwhile', async () => {
    const one = await open('secrets');
    const two = await open('secrets');
    expect(await one.listSecrets()).toEqual([]);
    await one.saveConnection(connection);
    await one.saveInstallation(installation('T1', null, false, 'v1:install-t1'));
    await one.saveInstallation(installation(null, 'E1', true, 'v1:install-e1'));
    await one.savePersonalKey({
      teamId: 'T1',
      userId: 'UALICE',
      encryptedApiKey: 'v1:alice',
      serviceUrl: null,
      connectedAt: at,
    });
    const secrets = await two.listSecrets();
    expect(secrets.map(({ kind, encrypted }) => [kind, encrypted]).sort()).toEqual([
      ['connection', 'v1:abc'],
      ['installation', 'v1:install-e1'],
      ['installation', 'v1:install-t1'],
      ['personal-key', 'v1:alice'],
    ]);
    for (const secret of secrets)
      expect(await two.replaceSecret(secret, `${secret.encrypted}-next`)).toBe(true);
    // Each was replaced once: replacing from the old value again is refused (it changed meanwhile).
    for (const secret of secrets) expect(await one.replaceSecret(secret, 'v1:lost')).toBe(false);
    expect((await one.getConnection('T1'))?.encryptedApiKey).toBe('v1:abc-next');
    expect((await one.findInstallation(workspace('T1')))?.encryptedInstallation).toBe('v1:install-t1-next');
    expect(
      (await one.findInstallation({ teamId: 'T5', enterpriseId: 'E1', isEnterpriseInstall: true }))
        ?.encryptedInstallation,
    ).toBe('v1:install-e1-next');
    expect((await one.getPersonalKey('T1', 'UALICE'))?.encryptedApiKey).toBe('v1:alice-next');
    expect((await one.listSecrets()).map((secret) => secret.encrypted).sort()).toEqual([
      'v1:abc-next',
      'v1:alice-next',
      'v1:install-e1-next',
      'v1:install-t1-next',
    ]);
    // A secret removed meanwhile is not written back.
    const [personal] = (await one.listSecrets()).filter((secret) => secret.kind === 'personal-key');
    await one.removePersonalKey('T1', 'UALICE');
    expect(personal && (await one.replaceSecret(personal, 'v1:ghost'))).toBe(false);
    expect(await one.getPersonalKey('T1', 'UALICE')).toBeNull();
    await one.close();
    await two.close();
  });
}
