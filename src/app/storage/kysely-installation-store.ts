import type { Selectable } from 'kysely';
import type { BotDatabase } from './bot-database.ts';
import type { BotTables } from './bot-schema.ts';
import type { InstallationQuery, InstallationStore, StoredInstallation } from './installation-store.ts';
import { count, Prepared, type SharedDatabase, slot } from './kysely-store-base.ts';

type InstallationRow = Selectable<BotTables['installations']>;

/** Installations on Kysely (see InstallationStore). */
export class KyselyInstallationStore implements InstallationStore {
  private readonly queries;

  constructor(private readonly base: SharedDatabase) {
    this.queries = prepareQueries(base.database);
  }

  async saveInstallation(installation: StoredInstallation): Promise<void> {
    if (this.base.pending) await this.base.pending;
    await this.base.db
      .insertInto('installations')
      .values({
        install_key: installationKey(installation),
        team_id: installation.teamId,
        enterprise_id: installation.enterpriseId,
        is_enterprise_install: installation.isEnterpriseInstall ? 1 : 0,
        encrypted_installation: installation.encryptedInstallation,
        installed_at: installation.installedAt.getTime(),
      })
      .onConflict((conflict) =>
        conflict.column('install_key').doUpdateSet((eb) => ({
          team_id: eb.ref('excluded.team_id'),
          enterprise_id: eb.ref('excluded.enterprise_id'),
          is_enterprise_install: eb.ref('excluded.is_enterprise_install'),
          encrypted_installation: eb.ref('excluded.encrypted_installation'),
          installed_at: eb.ref('excluded.installed_at'),
        })),
      )
      .execute();
  }

  async findInstallation(query: InstallationQuery): Promise<StoredInstallation | null> {
    if (this.base.pending) await this.base.pending;
    for (const key of installationLookup(query)) {
      const row = (await this.base.exec(this.queries.installation, { key })).rows[0];
      if (row) return toInstallation(row);
    }
    return null;
  }

  async deleteInstallation(query: InstallationQuery): Promise<boolean> {
    if (this.base.pending) await this.base.pending;
    const key = installationLookup(query)[0];
    if (key === undefined) return false;
    const result = await this.base.db
      .deleteFrom('installations')
      .where('install_key', '=', key)
      .executeTakeFirst();
    return count(result) > 0;
  }

  async listInstallations(): Promise<StoredInstallation[]> {
    if (this.base.pending) await this.base.pending;
    const rows = await this.base.db.selectFrom('installations').selectAll().orderBy('install_key').execute();
    return rows.map(toInstallation);
  }
}

/** The queries compiled once per store. */
function prepareQueries({ db }: BotDatabase) {
  return {
    installation: new Prepared(
      db.selectFrom('installations').selectAll().where('install_key', '=', slot<string>('key')),
    ),
  };
}

/** One row per workspace install, one per enterprise for an org-wide install. */
export function installationKey(query: InstallationQuery): string {
  if (query.isEnterpriseInstall) {
    if (query.enterpriseId === null) throw new Error('an org-wide installation needs its enterprise id');
    return `enterprise:${query.enterpriseId}`;
  }
  if (query.teamId === null) throw new Error('a workspace installation needs its team id');
  return `team:${query.teamId}`;
}

/** The rows to look in, in order: the one the query names, then its enterprise's org-wide install. */
function installationLookup(query: InstallationQuery): string[] {
  const keys: string[] = [];
  if (query.isEnterpriseInstall ? query.enterpriseId !== null : query.teamId !== null)
    keys.push(installationKey(query));
  if (!query.isEnterpriseInstall && query.enterpriseId !== null)
    keys.push(installationKey({ ...query, isEnterpriseInstall: true }));
  return keys;
}

function toInstallation(row: InstallationRow): StoredInstallation {
  return {
    teamId: row.team_id,
    enterpriseId: row.enterprise_id,
    isEnterpriseInstall: row.is_enterprise_install === 1,
    encryptedInstallation: row.encrypted_installation,
    installedAt: new Date(row.installed_at),
  };
}
