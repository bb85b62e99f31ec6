import { CHUNK, count, type SharedDatabase } from './kysely-store-base.ts';
import type {
  CommentAuthor,
  MessageStore,
  PipelineMessage,
  PostedCommentThread,
  SharedTenderCard,
} from './message-store.ts';

/** What Tenderbot wrote, on Kysely (see MessageStore). */
export class KyselyMessageStore implements MessageStore {
  constructor(private readonly base: SharedDatabase) {}

  async recordCommentAuthor(author: CommentAuthor): Promise<void> {
    if (this.base.pending) await this.base.pending;
    await this.base.db
      .insertInto('comment_authors')
      .values({
        team_id: author.teamId,
        comment_id: author.commentId,
        user_id: author.userId,
        created_at: author.createdAt.toISOString(),
      })
      .onConflict((conflict) => conflict.doNothing())
      .execute();
  }

  async commentAuthors(teamId: string, commentIds: readonly string[]): Promise<Map<string, string>> {
    if (this.base.pending) await this.base.pending;
    const authors = new Map<string, string>();
    for (let start = 0; start < commentIds.length; start += CHUNK) {
      const rows = await this.base.db
        .selectFrom('comment_authors')
        .select(['comment_id', 'user_id'])
        .where('team_id', '=', teamId)
        .where('comment_id', 'in', commentIds.slice(start, start + CHUNK))
        .execute();
      for (const row of rows) authors.set(row.comment_id, row.user_id);
    }
    return authors;
  }

  async rememberPipelineMessage(message: PipelineMessage): Promise<void> {
    if (this.base.pending) await this.base.pending;
    await this.base.db
      .insertInto('pipeline_messages')
      .values({
        team_id: message.teamId,
        channel_id: message.channelId,
        ts: message.ts,
        pipeline_id: message.pipelineId,
        thread_ts: message.threadTs ?? null,
        remembered_at: Date.now(),
      })
      .onConflict((conflict) =>
        conflict.columns(['team_id', 'channel_id', 'ts']).doUpdateSet((eb) => ({
          pipeline_id: eb.ref('excluded.pipeline_id'),
          thread_ts: eb.ref('excluded.thread_ts'),
        })),
      )
      .execute();
  }

  async pipelineMessages(teamId: string, pipelineId: string): Promise<PipelineMessage[]> {
    if (this.base.pending) await this.base.pending;
    const rows = await this.base.db
      .selectFrom('pipeline_messages')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('pipeline_id', '=', pipelineId)
      .orderBy('remembered_at')
      .orderBy('channel_id')
      .orderBy('ts')
      .execute();
    return rows.map((row) => ({
      pipelineId: row.pipeline_id,
      teamId: row.team_id,
      channelId: row.channel_id,
      ts: row.ts,
      ...(row.thread_ts ? { threadTs: row.thread_ts } : {}),
    }));
  }

  async forgetPipelineMessage(teamId: string, channelId: string, ts: string): Promise<boolean> {
    return this.forgetMessage('pipeline_messages', teamId, channelId, ts);
  }

  async rememberSharedTenderCard(card: SharedTenderCard, at: Date): Promise<void> {
    if (this.base.pending) await this.base.pending;
    await this.base.db
      .insertInto('shared_tender_cards')
      .values({
        team_id: card.teamId,
        channel_id: card.channelId,
        ts: card.ts,
        tender_id: card.tenderId,
        shared_by: card.sharedBy,
        remembered_at: at.getTime(),
      })
      .onConflict((conflict) => conflict.columns(['team_id', 'channel_id', 'ts']).doNothing())
      .execute();
  }

  async sharedTenderCards(teamId: string, tenderId: string, limit: number): Promise<SharedTenderCard[]> {
    if (this.base.pending) await this.base.pending;
    const rows = await this.base.db
      .selectFrom('shared_tender_cards')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('tender_id', '=', tenderId)
      .orderBy('remembered_at', 'desc')
      .orderBy('channel_id')
      .orderBy('ts')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      tenderId: row.tender_id,
      teamId: row.team_id,
      channelId: row.channel_id,
      ts: row.ts,
      sharedBy: row.shared_by,
    }));
  }

  async forgetSharedTenderCard(teamId: string, channelId: string, ts: string): Promise<boolean> {
    return this.forgetMessage('shared_tender_cards', teamId, channelId, ts);
  }

  async rememberCommentThread(thread: PostedCommentThread, at: Date): Promise<void> {
    if (this.base.pending) await this.base.pending;
    await this.base.db
      .insertInto('comment_thread_messages')
      .values({
        team_id: thread.teamId,
        channel_id: thread.channelId,
        ts: thread.ts,
        entity_type: thread.entityType,
        entity_id: thread.entityId,
        posted_by: thread.postedBy,
        remembered_at: at.getTime(),
      })
      .onConflict((conflict) => conflict.columns(['team_id', 'channel_id', 'ts']).doNothing())
      .execute();
  }

  async commentThreads(
    teamId: string,
    record: { entityType: string; entityId: string },
    limit: number,
  ): Promise<PostedCommentThread[]> {
    if (this.base.pending) await this.base.pending;
    const rows = await this.base.db
      .selectFrom('comment_thread_messages')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('entity_type', '=', record.entityType)
      .where('entity_id', '=', record.entityId)
      .orderBy('remembered_at', 'desc')
      .orderBy('channel_id')
      .orderBy('ts')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      entityType: row.entity_type,
      entityId: row.entity_id,
      teamId: row.team_id,
      channelId: row.channel_id,
      ts: row.ts,
      postedBy: row.posted_by,
    }));
  }

  async forgetCommentThread(teamId: string, channelId: string, ts: string): Promise<boolean> {
    return this.forgetMessage('comment_thread_messages', teamId, channelId, ts);
  }

  async markChannelWelcomed(teamId: string, channelId: string, at: Date): Promise<boolean> {
    if (this.base.pending) await this.base.pending;
    const result = await this.base.db
      .insertInto('welcomed_channels')
      .values({ team_id: teamId, channel_id: channelId, welcomed_at: at.toISOString() })
      .onConflict((conflict) => conflict.doNothing())
      .executeTakeFirst();
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  /** Forgets one remembered message of a table keyed by workspace, channel and ts; true when it was known. */
  private async forgetMessage(
    table: 'pipeline_messages' | 'shared_tender_cards' | 'comment_thread_messages',
    teamId: string,
    channelId: string,
    ts: string,
  ): Promise<boolean> {
    if (this.base.pending) await this.base.pending;
    const result = await this.base.db
      .deleteFrom(table)
      .where('team_id', '=', teamId)
      .where('channel_id', '=', channelId)
      .where('ts', '=', ts)
      .executeTakeFirst();
    return count(result) > 0;
  }
}
