import { type Selectable, sql } from 'kysely';
import type { BotDatabase } from './bot-database.ts';
import type { BotTables } from './bot-schema.ts';
import type { CommandQueueStore, CommandToQueue, QueuedCommand } from './command-queue-store.ts';
import { CHUNK, compiledOn, count, Prepared, type SharedDatabase, slot } from './kysely-store-base.ts';
import type { RequestToRemember, SeenRequests } from './seen-requests.ts';

/** The queue of slash commands on Kysely (see CommandQueueStore). */
export class KyselyCommandQueueStore implements CommandQueueStore {
  private readonly queries;

  constructor(
    private readonly base: SharedDatabase,
    private readonly seen: SeenRequests,
  ) {
    this.queries = prepareQueries(base.database);
  }

  async queueCommand(command: CommandToQueue, request: RequestToRemember): Promise<boolean> {
    if (this.base.pending) await this.base.pending;
    // On SQLite one savepoint in the moment's group commit: the receiver's one write a command.
    const queued = await this.base.groupedTransaction(async (run) => {
      if (!(await this.seen.remember(request, run))) return false;
      await run(this.queries.queueCommand, commandRow(command));
      return true;
    });
    void this.seen.pruneIfDue(request.now);
    return queued;
  }

  async claimCommands(owner: string, now: Date, leaseMs: number, limit: number): Promise<QueuedCommand[]> {
    if (this.base.pending) await this.base.pending;
    const claimed = await this.base.exec(this.queries.claimCommands, {
      owner,
      now: now.getTime(),
      until: now.getTime() + leaseMs,
      limit,
    });
    return claimed.rows
      .map((row) => ({
        id: row.id,
        teamId: row.team_id,
        body: row.body,
        receivedAt: new Date(Number(row.received_at)),
        attempts: Number(row.attempts),
      }))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  async finishCommands(ids: readonly string[]): Promise<void> {
    if (this.base.pending) await this.base.pending;
    // One prepared statement whatever the count (the ids as one JSON array).
    for (let start = 0; start < ids.length; start += CHUNK) {
      await this.base.exec(this.queries.finishCommands, {
        ids: JSON.stringify(ids.slice(start, start + CHUNK)),
      });
    }
  }

  async renewCommands(
    { owners, ids }: { owners: readonly string[]; ids: readonly string[] },
    until: Date,
  ): Promise<void> {
    if (this.base.pending) await this.base.pending;
    if (owners.length === 0) return;
    for (let start = 0; start < ids.length; start += CHUNK) {
      await this.base.exec(this.queries.renewCommands, {
        ids: JSON.stringify(ids.slice(start, start + CHUNK)),
        owners: JSON.stringify(owners),
        until: until.getTime(),
      });
    }
  }

  async releaseCommands(owner: string): Promise<number> {
    if (this.base.pending) await this.base.pending;
    const result = await this.base.db
      .updateTable('queued_commands')
      .set({ lease_owner: null, lease_until: 0 })
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return count(result);
  }

  async queuedCommandCount(): Promise<number> {
    if (this.base.pending) await this.base.pending;
    const row = await this.base.db
      .selectFrom('queued_commands')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }
}

function commandRow(command: CommandToQueue) {
  return {
    id: command.id,
    teamId: command.teamId ?? null,
    body: command.body,
    receivedAt: command.receivedAt.getTime(),
    owner: command.owner ?? null,
    leaseUntil: command.leaseUntil?.getTime() ?? 0,
    attempts: command.owner ? 1 : 0,
  };
}

/** The queries compiled once per store. */
function prepareQueries({ db, jsonStrings, lockSkippingLocked }: BotDatabase) {
  const compiled = compiledOn(db);
  return {
    queueCommand: new Prepared(
      db.insertInto('queued_commands').values({
        id: slot('id'),
        team_id: slot('teamId'),
        body: slot('body'),
        received_at: slot('receivedAt'),
        lease_owner: slot('owner'),
        lease_until: slot('leaseUntil'),
        attempts: slot('attempts'),
      }),
    ),
    claimCommands: new Prepared<Selectable<BotTables['queued_commands']>>(
      compiled(
        sql<Selectable<BotTables['queued_commands']>>`update queued_commands
          set lease_owner = ${slot('owner')}, lease_until = ${slot('until')}, attempts = attempts + 1
        where id in (
          select id from queued_commands where lease_until <= ${slot('now')}
          order by id limit ${slot('limit')} ${lockSkippingLocked}
        ) and lease_until <= ${slot('now')}
        returning *`,
      ),
    ),
    finishCommands: new Prepared(
      db.deleteFrom('queued_commands').where('id', 'in', jsonStrings(slot('ids'))),
    ),
    renewCommands: new Prepared(
      db
        .updateTable('queued_commands')
        .set({ lease_until: slot<number>('until') })
        .where('id', 'in', jsonStrings(slot('ids')))
        .where('lease_owner', 'in', jsonStrings(slot('owners'))),
    ),
  };
}
