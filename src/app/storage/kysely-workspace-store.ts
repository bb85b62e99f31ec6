import type { Selectable } from 'kysely';
import type { BotDatabase } from './bot-database.ts';
import type { BotTables } from './bot-schema.ts';
import { installationKey } from './kysely-installation-store.ts';
import { count, Prepared, type SharedDatabase, slot } from './kysely-store-base.ts';
import type {
  PersonalKey,
  RemovedWorkspace,
  WorkspaceConnection,
  WorkspaceSettings,
  WorkspaceStore,
} from './workspace-store.ts';

type WorkspaceRow = Selectable<BotTables['workspaces']>;
type PersonalKeyRow = Selectable<BotTables['personal_keys']>;

/** Workspaces, their keys and settings on Kysely (see WorkspaceStore). */
export class KyselyWorkspaceStore implements WorkspaceStore {
  private readonly queries;

  constructor(private readonly base: SharedDatabase) {
    this.queries = prepareQueries(base.database);
  }

  async getConnection(teamId: string): Promise<WorkspaceConnection | null> {
    if (this.base.pending) await this.base.pending;
    const row = (await this.base.exec(this.queries.connection, { teamId })).rows[0];
    return row ? toConnection(row) : null;
  }

  async listConnections(): Promise<WorkspaceConnection[]> {
    if (this.base.pending) await this.base.pending;
    const rows = await this.base.db.selectFrom('workspaces').selectAll().orderBy('team_id').execute();
    return rows.map(toConnection);
  }

  async saveConnection(connection: WorkspaceConnection): Promise<void> {
    if (this.base.pending) await this.base.pending;
    await this.base.db
      .insertInto('workspaces')
      .values({
        team_id: connection.teamId,
        encrypted_api_key: connection.encryptedApiKey,
        service_url: connection.serviceUrl,
        connected_by: connection.connectedBy,
        connected_at: connection.connectedAt,
      })
      .onConflict((conflict) =>
        conflict.column('team_id').doUpdateSet((eb) => ({
          encrypted_api_key: eb.ref('excluded.encrypted_api_key'),
          service_url: eb.ref('excluded.service_url'),
          connected_by: eb.ref('excluded.connected_by'),
          connected_at: eb.ref('excluded.connected_at'),
        })),
      )
      .execute();
  }

  async removeConnection(teamId: string): Promise<boolean> {
    if (this.base.pending) await this.base.pending;
    const result = await this.base.db
      .deleteFrom('workspaces')
      .where('team_id', '=', teamId)
      .executeTakeFirst();
    return count(result) > 0;
  }

  async savePersonalKey(key: PersonalKey): Promise<void> {
    if (this.base.pending) await this.base.pending;
    await this.base.db
      .insertInto('personal_keys')
      .values({
        team_id: key.teamId,
        user_id: key.userId,
        encrypted_api_key: key.encryptedApiKey,
        service_url: key.serviceUrl,
        connected_at: key.connectedAt.getTime(),
      })
      .onConflict((conflict) =>
        conflict.columns(['team_id', 'user_id']).doUpdateSet((eb) => ({
          encrypted_api_key: eb.ref('excluded.encrypted_api_key'),
          service_url: eb.ref('excluded.service_url'),
          connected_at: eb.ref('excluded.connected_at'),
        })),
      )
      .execute();
  }

  async getPersonalKey(teamId: string, userId: string): Promise<PersonalKey | null> {
    if (this.base.pending) await this.base.pending;
    const row = (await this.base.exec(this.queries.personalKey, { teamId, userId })).rows[0];
    return row ? toPersonalKey(row) : null;
  }

  async removePersonalKey(teamId: string, userId: string): Promise<boolean> {
    if (this.base.pending) await this.base.pending;
    const result = await this.base.db
      .deleteFrom('personal_keys')
      .where('team_id', '=', teamId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return count(result) > 0;
  }

  async getWorkspaceSettings(teamId: string): Promise<WorkspaceSettings> {
    if (this.base.pending) await this.base.pending;
    const row = (await this.base.exec(this.queries.settings, { teamId })).rows[0];
    return { teamId, personalKeysForWrites: row?.personal_keys_for_writes === 1 };
  }

  async saveWorkspaceSettings(settings: WorkspaceSettings): Promise<void> {
    if (this.base.pending) await this.base.pending;
    await this.base.db
      .insertInto('workspace_settings')
      .values({ team_id: settings.teamId, personal_keys_for_writes: settings.personalKeysForWrites ? 1 : 0 })
      .onConflict((conflict) =>
        conflict
          .column('team_id')
          .doUpdateSet((eb) => ({ personal_keys_for_writes: eb.ref('excluded.personal_keys_for_writes') })),
      )
      .execute();
  }

  async removeWorkspace(teamId: string): Promise<RemovedWorkspace> {
    if (this.base.pending) await this.base.pending;
    return this.base.transaction(async (trx) => {
      const installations = await trx
        .deleteFrom('installations')
        .where(
          'install_key',
          '=',
          installationKey({ teamId, enterpriseId: null, isEnterpriseInstall: false }),
        )
        .executeTakeFirst();
      const connections = await trx.deleteFrom('workspaces').where('team_id', '=', teamId).executeTakeFirst();
      const personalKeys = await trx
        .deleteFrom('personal_keys')
        .where('team_id', '=', teamId)
        .executeTakeFirst();
      await trx.deleteFrom('workspace_settings').where('team_id', '=', teamId).execute();
      // Who wrote which comment, who started which bid and where its and tenders' cards are shown go too; the welcome markers stay
      // (a channel is greeted once, also after the app is installed again).
      await trx.deleteFrom('comment_authors').where('team_id', '=', teamId).execute();
      await trx.deleteFrom('pipeline_messages').where('team_id', '=', teamId).execute();
      await trx.deleteFrom('shared_tender_cards').where('team_id', '=', teamId).execute();
      await trx.deleteFrom('comment_thread_messages').where('team_id', '=', teamId).execute();
      await trx.deleteFrom('bid_starters').where('team_id', '=', teamId).execute();
      // Deliveries and delivered items go with their subscriptions (ON DELETE CASCADE).
      const subscriptions = await trx
        .deleteFrom('subscriptions')
        .where('team_id', '=', teamId)
        .executeTakeFirst();
      return {
        installations: count(installations),
        connections: count(connections),
        personalKeys: count(personalKeys),
        subscriptions: count(subscriptions),
      };
    });
  }
}

/** The queries compiled once per store. */
function prepareQueries({ db }: BotDatabase) {
  return {
    connection: new Prepared(
      db.selectFrom('workspaces').selectAll().where('team_id', '=', slot<string>('teamId')),
    ),
    personalKey: new Prepared(
      db
        .selectFrom('personal_keys')
        .selectAll()
        .where('team_id', '=', slot<string>('teamId'))
        .where('user_id', '=', slot<string>('userId')),
    ),
    settings: new Prepared(
      db
        .selectFrom('workspace_settings')
        .select('personal_keys_for_writes')
        .where('team_id', '=', slot<string>('teamId')),
    ),
  };
}

function toConnection(row: WorkspaceRow): WorkspaceConnection {
  return {
    teamId: row.team_id,
    encryptedApiKey: row.encrypted_api_key,
    serviceUrl: row.service_url,
    connectedBy: row.connected_by,
    connectedAt: row.connected_at,
  };
}

function toPersonalKey(row: PersonalKeyRow): PersonalKey {
  return {
    teamId: row.team_id,
    userId: row.user_id,
    encryptedApiKey: row.encrypted_api_key,
    serviceUrl: row.service_url,
    connectedAt: new Date(row.connected_at),
  };
}
