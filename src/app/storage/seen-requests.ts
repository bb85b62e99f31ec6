import type { BotDatabase } from './bot-database.ts';
import { changed, Prepared, type RunPrepared, type SharedDatabase, slot } from './kysely-store-base.ts';

/** How often expired remembered requests are deleted (they are ignored once expired anyway). */
const SEEN_REQUESTS_PRUNE_MS = 60_000;

/** A request to remember (its signature, or an event id) until `expiresAt`. */
export interface RequestToRemember {
  id: string;
  expiresAt: Date;
  now: Date;
}

/**
 * The requests seen, for the stores that write them (KeptValueStore.rememberRequest alone, and
 * CommandQueueStore.queueCommand with the command the request carried): one statement
 * that is new or replaces an expired entry, so atomic across copies, and the pruning of expired
 * entries shared by both, once a minute.
 */
export class SeenRequests {
  private lastPruneMs = 0;
  private readonly query;

  constructor(private readonly base: SharedDatabase) {
    this.query = rememberQuery(base.database);
  }

  /** Remembers `request` through `run` (a transaction's) or on its own, committed with others of the moment: true when new. */
  async remember(request: RequestToRemember, run?: RunPrepared): Promise<boolean> {
    const args = {
      id: request.id,
      expiresAt: request.expiresAt.getTime(),
      now: request.now.getTime(),
    };
    return changed(await (run ? run(this.query, args) : this.base.execGrouped(this.query, args)));
  }

  /**
   * Deletes what expired, at most once a minute (pruning on every request would cost a write
   * each), in the background: never awaited by the request whose write is already committed, and
   * a failure (a timeout, a lock) is only retried at the next prune, since expired rows count as
   * unseen anyway. Resolves when this prune is over.
   */
  pruneIfDue(now: Date): Promise<void> {
    if (now.getTime() - this.lastPruneMs < SEEN_REQUESTS_PRUNE_MS) return Promise.resolve();
    this.lastPruneMs = now.getTime();
    return this.deleteExpired(now).catch(() => undefined);
  }

  private async deleteExpired(now: Date): Promise<void> {
    await this.base.db.deleteFrom('seen_requests').where('expires_at', '<=', now.getTime()).execute();
  }
}

function rememberQuery({ db }: BotDatabase) {
  return new Prepared(
    db
      .insertInto('seen_requests')
      .values({ id: slot('id'), expires_at: slot('expiresAt') })
      .onConflict((conflict) =>
        conflict
          .column('id')
          .doUpdateSet((eb) => ({ expires_at: eb.ref('excluded.expires_at') }))
          .where('seen_requests.expires_at', '<=', slot<number>('now')),
      ),
  );
}
