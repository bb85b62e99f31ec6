import { sql } from 'kysely';
import type { BidReferenceStore } from './bid-reference-store.ts';
import { CHUNK, type SharedDatabase } from './kysely-store-base.ts';

/** Tries at one bid's number before giving up: each lost try is another copy taking that number. */
const ALLOCATION_TRIES = 20;

/**
 * Short bid references on Kysely (see BidReferenceStore). A number is the workspace's highest plus
 * one, inserted in one statement; the unique index on (team, number) makes a copy that computed
 * the same number at the same moment insert nothing, and it tries again with the next.
 */
export class KyselyBidReferenceStore implements BidReferenceStore {
  constructor(private readonly base: SharedDatabase) {}

  async bidReferenceNumbers(teamId: string, pipelineIds: readonly string[]): Promise<Map<string, number>> {
    if (this.base.pending) await this.base.pending;
    const numbers = await this.numbersOf(teamId, pipelineIds);
    for (const pipelineId of new Set(pipelineIds)) {
      if (!numbers.has(pipelineId)) numbers.set(pipelineId, await this.allocate(teamId, pipelineId));
    }
    return numbers;
  }

  async givenBidReferenceNumbers(
    teamId: string,
    pipelineIds: readonly string[],
  ): Promise<Map<string, number>> {
    if (this.base.pending) await this.base.pending;
    return this.numbersOf(teamId, pipelineIds);
  }

  async bidWithReferenceNumber(teamId: string, number: number): Promise<string | null> {
    if (this.base.pending) await this.base.pending;
    const row = await this.base.db
      .selectFrom('bid_references')
      .select('pipeline_id')
      .where('team_id', '=', teamId)
      .where('reference_number', '=', number)
      .executeTakeFirst();
    return row?.pipeline_id ?? null;
  }

  async bidsWithIdPrefix(teamId: string, prefix: string, limit: number): Promise<string[]> {
    if (this.base.pending) await this.base.pending;
    // Only ids' own characters reach LIKE, so no % or _ in what was typed widens it.
    if (!/^[0-9a-z-]+$/.test(prefix)) return [];
    const rows = await this.base.db
      .selectFrom('bid_references')
      .select('pipeline_id')
      .where('team_id', '=', teamId)
      .where('pipeline_id', 'like', `${prefix}%`)
      .orderBy('pipeline_id')
      .limit(limit)
      .execute();
    return rows.map((row) => row.pipeline_id);
  }

  private async numbersOf(teamId: string, pipelineIds: readonly string[]): Promise<Map<string, number>> {
    const numbers = new Map<string, number>();
    for (let start = 0; start < pipelineIds.length; start += CHUNK) {
      const rows = await this.base.db
        .selectFrom('bid_references')
        .select(['pipeline_id', 'reference_number'])
        .where('team_id', '=', teamId)
        .where('pipeline_id', 'in', pipelineIds.slice(start, start + CHUNK))
        .execute();
      for (const row of rows) numbers.set(row.pipeline_id, Number(row.reference_number));
    }
    return numbers;
  }

  /** The bid's number: the next free one, or the one another copy gave it first. */
  private async allocate(teamId: string, pipelineId: string): Promise<number> {
    for (let attempt = 0; attempt < ALLOCATION_TRIES; attempt++) {
      await this.base.db
        .insertInto('bid_references')
        .columns(['team_id', 'pipeline_id', 'reference_number'])
        .expression((eb) =>
          eb
            .selectFrom('bid_references')
            .select([
              sql<string>`cast(${teamId} as text)`.as('team_id'),
              sql<string>`cast(${pipelineId} as text)`.as('pipeline_id'),
              sql<number>`coalesce(max(reference_number), 0) + 1`.as('reference_number'),
            ])
            // SQLite needs a WHERE before ON CONFLICT in INSERT … SELECT (this one is needed anyway).
            .where('team_id', '=', teamId),
        )
        // Either this bid has a number already (another copy) or the number was just taken: both
        // leave nothing inserted, and the read below tells which.
        .onConflict((conflict) => conflict.doNothing())
        .execute();
      const given = (await this.numbersOf(teamId, [pipelineId])).get(pipelineId);
      if (given !== undefined) return given;
    }
    throw new Error(`no bid reference could be given to ${pipelineId} after ${ALLOCATION_TRIES} tries`);
  }
}
