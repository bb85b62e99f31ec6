import type { Installation, InstallationQuery, InstallationStore } from '@slack/oauth';
import type { KeyCipher } from '../../security/key-cipher.ts';
import type { BotStore, InstallationQuery as StoreQuery } from '../../storage/bot-store.ts';

/**
 * Bolt's installation, and for an org-wide one the workspaces it covers (so removing it can remove
 * theirs) and those whose access the organisation revoked (it no longer answers for them).
 */
export type StoredAppInstallation = Installation<'v1' | 'v2', boolean> & {
  coveredTeamIds?: string[];
  revokedTeamIds?: string[];
};
type AnyInstallation = StoredAppInstallation;

/**
 * Bolt's installation store over the bot's own database: each installation (its bot token among
 * the rest) kept as JSON encrypted with ENCRYPTION_KEY, like the workspace keys. Nothing is kept in
 * memory, so an uninstall seen by one copy of the app holds for every copy at once.
 */
export class EncryptedInstallationStore implements InstallationStore {
  constructor(
    private readonly store: Pick<BotStore, 'saveInstallation' | 'findInstallation' | 'deleteInstallation'>,
    private readonly cipher: KeyCipher,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async storeInstallation<AuthVersion extends 'v1' | 'v2'>(
    installation: Installation<AuthVersion, boolean>,
  ): Promise<void> {
    await this.save(installation, this.clock());
  }

  /** Writes an installation again (what it covers changed), keeping when it was installed. */
  async update(installation: StoredAppInstallation, installedAt: Date): Promise<void> {
    await this.save(installation, installedAt);
  }

  private async save(installation: StoredAppInstallation, installedAt: Date): Promise<void> {
    const orgWide = installation.isEnterpriseInstall === true;
    const teamId = orgWide ? null : (installation.team?.id ?? null);
    const enterpriseId = installation.enterprise?.id ?? null;
    if (orgWide ? enterpriseId === null : teamId === null)
      throw new Error('Slack answered an install without the workspace or organisation it is for');
    await this.store.saveInstallation({
      teamId,
      enterpriseId,
      isEnterpriseInstall: orgWide,
      encryptedInstallation: this.cipher.encrypt(JSON.stringify(installation)),
      installedAt,
    });
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<AnyInstallation> {
    const found = await this.find(query);
    if (!found) throw new Error('Tenderbot is not installed in this workspace');
    return found;
  }

  /** The installation a request needs, or null (the store falls back to the organisation's). */
  async find(query: InstallationQuery<boolean>): Promise<AnyInstallation | null> {
    return (await this.findWithDate(query))?.installation ?? null;
  }

  async findWithDate(
    query: InstallationQuery<boolean>,
  ): Promise<{ installation: AnyInstallation; installedAt: Date } | null> {
    const stored = await this.store.findInstallation(toStoreQuery(query));
    if (!stored) return null;
    const installation = JSON.parse(this.cipher.decrypt(stored.encryptedInstallation)) as AnyInstallation;
    // A workspace whose access the organisation revoked is not served by its org-wide install.
    if (stored.isEnterpriseInstall && query.teamId && installation.revokedTeamIds?.includes(query.teamId))
      return null;
    return { installation, installedAt: stored.installedAt };
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    await this.store.deleteInstallation(toStoreQuery(query));
  }
}

function toStoreQuery(query: InstallationQuery<boolean>): StoreQuery {
  return {
    teamId: query.teamId ?? null,
    enterpriseId: query.enterpriseId ?? null,
    isEnterpriseInstall: query.isEnterpriseInstall === true,
  };
}
