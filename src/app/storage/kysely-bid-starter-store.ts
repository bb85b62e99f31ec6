import type { BidStarter, BidStarterStore } from './bid-starter-store.ts';
import { CHUNK, type SharedDatabase } from './kysely-store-base.ts';

/** Who started each bid, on Kysely (see BidStarterStore). */
export class KyselyBidStarterStore implements BidStarterStore {
  constructor(private readonly base: SharedDatabase) {}

  async recordBidStarter(starter: BidStarter): Promise<void> {
    if (this.base.pending) await this.base.pending;
    await this.base.db
      .insertInto('bid_starters')
      .values({
        team_id: starter.teamId,
        pipeline_id: starter.pipelineId,
        user_id: starter.userId,
        own_key: starter.ownKey ? 1 : 0,
        started_at: starter.startedAt.getTime(),
      })
      .onConflict((conflict) => conflict.doNothing())
      .execute();
  }

  async bidStarters(teamId: string, pipelineIds: readonly string[]): Promise<Map<string, BidStarter>> {
    if (this.base.pending) await this.base.pending;
    const starters = new Map<string, BidStarter>();
    for (let start = 0; start < pipelineIds.length; start += CHUNK) {
      const rows = await this.base.db
        .selectFrom('bid_starters')
        .selectAll()
        .where('team_id', '=', teamId)
        .where('pipeline_id', 'in', pipelineIds.slice(start, start + CHUNK))
        .execute();
      for (const row of rows)
        starters.set(row.pipeline_id, {
          pipelineId: row.pipeline_id,
          teamId: row.team_id,
          userId: row.user_id,
          ownKey: Number(row.own_key) === 1,
          startedAt: new Date(Number(row.started_at)),
        });
    }
    return starters;
  }
}
