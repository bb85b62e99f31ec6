import { count, type SharedDatabase } from './kysely-store-base.ts';
import type { SecretStore, StoredSecret } from './secret-store.ts';

/** Every encrypted column on Kysely: workspace keys, installations, personal keys (see SecretStore). */
export class KyselySecretStore implements SecretStore {
  constructor(private readonly base: SharedDatabase) {}

  async listSecrets(): Promise<StoredSecret[]> {
    if (this.base.pending) await this.base.pending;
    const connections = await this.base.db
      .selectFrom('workspaces')
      .select(['team_id', 'encrypted_api_key'])
      .execute();
    const installations = await this.base.db
      .selectFrom('installations')
      .select(['install_key', 'encrypted_installation'])
      .execute();
    const personalKeys = await this.base.db
      .selectFrom('personal_keys')
      .select(['team_id', 'user_id', 'encrypted_api_key'])
      .execute();
    return [
      ...connections.map(
        (row): StoredSecret => ({ kind: 'connection', ref: row.team_id, encrypted: row.encrypted_api_key }),
      ),
      ...installations.map(
        (row): StoredSecret => ({
          kind: 'installation',
          ref: row.install_key,
          encrypted: row.encrypted_installation,
        }),
      ),
      ...personalKeys.map(
        (row): StoredSecret => ({
          kind: 'personal-key',
          ref: JSON.stringify([row.team_id, row.user_id]),
          encrypted: row.encrypted_api_key,
        }),
      ),
    ];
  }

  async replaceSecret(secret: StoredSecret, next: string): Promise<boolean> {
    if (this.base.pending) await this.base.pending;
    switch (secret.kind) {
      case 'connection':
        return (
          count(
            await this.base.db
              .updateTable('workspaces')
              .set({ encrypted_api_key: next })
              .where('team_id', '=', secret.ref)
              .where('encrypted_api_key', '=', secret.encrypted)
              .executeTakeFirst(),
          ) > 0
        );
      case 'installation':
        return (
          count(
            await this.base.db
              .updateTable('installations')
              .set({ encrypted_installation: next })
              .where('install_key', '=', secret.ref)
              .where('encrypted_installation', '=', secret.encrypted)
              .executeTakeFirst(),
          ) > 0
        );
      case 'personal-key': {
        const [teamId, userId] = personalKeyRef(secret.ref);
        return (
          count(
            await this.base.db
              .updateTable('personal_keys')
              .set({ encrypted_api_key: next })
              .where('team_id', '=', teamId)
              .where('user_id', '=', userId)
              .where('encrypted_api_key', '=', secret.encrypted)
              .executeTakeFirst(),
          ) > 0
        );
      }
    }
  }
}

/** A personal key's secret ref is `[teamId, userId]` as JSON. */
function personalKeyRef(ref: string): [string, string] {
  const parsed: unknown = JSON.parse(ref);
  if (!Array.isArray(parsed) || parsed.length !== 2 || !parsed.every((part) => typeof part === 'string'))
    throw new Error('not a personal key reference');
  return parsed as [string, string];
}
