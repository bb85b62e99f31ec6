import type { BotDatabase } from './bot-database.ts';
import type { KeptValueStore } from './kept-value-store.ts';
import { Prepared, type SharedDatabase, slot } from './kysely-store-base.ts';
import type { SeenRequests } from './seen-requests.ts';

/** Seen requests and kept states on Kysely (see KeptValueStore). */
export class KyselyKeptValueStore implements KeptValueStore {
  private readonly queries;

  constructor(
    private readonly base: SharedDatabase,
    private readonly seen: SeenRequests,
  ) {
    this.queries = prepareQueries(base.database);
  }

  async rememberRequest(id: string, expiresAt: Date, now = new Date()): Promise<boolean> {
    if (this.base.pending) await this.base.pending;
    const fresh = await this.seen.remember({ id, expiresAt, now });
    void this.seen.pruneIfDue(now);
    return fresh;
  }

  async forgetRequest(id: string, expiresAt: Date): Promise<void> {
    if (this.base.pending) await this.base.pending;
    await this.base.exec(this.queries.forgetRequest, { id, expiresAt: expiresAt.getTime() });
  }

  async saveState(token: string, json: string, expiresAt: Date): Promise<void> {
    if (this.base.pending) await this.base.pending;
    const { queries } = this;
    await this.base.preparedTransaction(async (run) => {
      // Expired states are pruned as new ones are kept, so the table stays the size of 30 days' use.
      await run(queries.pruneStates, { now: Date.now() });
      await run(queries.keepState, { token, json, expiresAt: expiresAt.getTime() });
    });
  }

  async loadState(token: string, now: Date): Promise<string | null> {
    if (this.base.pending) await this.base.pending;
    const row = (await this.base.exec(this.queries.keptState, { token, now: now.getTime() })).rows[0];
    return row?.json ?? null;
  }
}

/** The queries compiled once per store. */
function prepareQueries({ db }: BotDatabase) {
  return {
    pruneStates: new Prepared(db.deleteFrom('kept_states').where('expires_at', '<=', slot<number>('now'))),
    keepState: new Prepared(
      db
        .insertInto('kept_states')
        .values({ token: slot('token'), json: slot('json'), expires_at: slot('expiresAt') })
        .onConflict((conflict) =>
          conflict.column('token').doUpdateSet((eb) => ({
            json: eb.ref('excluded.json'),
            expires_at: eb.ref('excluded.expires_at'),
          })),
        ),
    ),
    forgetRequest: new Prepared(
      db
        .deleteFrom('seen_requests')
        .where('id', '=', slot<string>('id'))
        .where('expires_at', '=', slot<number>('expiresAt')),
    ),
    keptState: new Prepared(
      db
        .selectFrom('kept_states')
        .select('json')
        .where('token', '=', slot<string>('token'))
        .where('expires_at', '>', slot<number>('now')),
    ),
  };
}
