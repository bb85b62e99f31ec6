/** Which Slack person wrote a comment Tenderbot created (the service only knows the key's creator). */
export interface CommentAuthor {
  commentId: string;
  teamId: string;
  userId: string;
  createdAt: Date;
}

/** A message that shows a pipeline's card, so a change can redraw every copy. */
export interface PipelineMessage {
  pipelineId: string;
  teamId: string;
  channelId: string;
  ts: string;
  threadTs?: string;
}

/** A tender's card shared in a channel (it shows the workspace's bookmarks), and who shared it. */
export interface SharedTenderCard {
  tenderId: string;
  teamId: string;
  channelId: string;
  ts: string;
  sharedBy: string;
}

/** A comment thread posted in a channel (`/tender comments`), of one record, and who posted it. */
export interface PostedCommentThread {
  entityType: string;
  entityId: string;
  teamId: string;
  channelId: string;
  ts: string;
  postedBy: string;
}

/**
 * What Tenderbot wrote in Slack or the service: comment authors, bid-card messages, shared tender
 * cards, greeted channels.
 */
export interface MessageStore {
  /** Records the Slack person who wrote a comment; recording the same comment again keeps the first. */
  recordCommentAuthor(author: CommentAuthor): Promise<void>;
  /** comment id → Slack user id, for those of `commentIds` written through Tenderbot in this workspace. */
  commentAuthors(teamId: string, commentIds: readonly string[]): Promise<Map<string, string>>;
  /** Remembers a message showing a pipeline (the same channel and ts once). */
  rememberPipelineMessage(message: PipelineMessage): Promise<void>;
  /** Every message showing the pipeline in this workspace, oldest first. */
  pipelineMessages(teamId: string, pipelineId: string): Promise<PipelineMessage[]>;
  /** Forgets a message (deleted, or no longer reachable); true when it was known. */
  forgetPipelineMessage(teamId: string, channelId: string, ts: string): Promise<boolean>;
  /** Remembers a tender's card shared in a channel (the same channel and ts once). */
  rememberSharedTenderCard(card: SharedTenderCard, at: Date): Promise<void>;
  /** The newest `limit` cards of the tender shared in this workspace, newest first. */
  sharedTenderCards(teamId: string, tenderId: string, limit: number): Promise<SharedTenderCard[]>;
  /** Forgets a shared card (deleted, or no longer reachable); true when it was known. */
  forgetSharedTenderCard(teamId: string, channelId: string, ts: string): Promise<boolean>;
  /** Remembers a comment thread posted in a channel (the same channel and ts once). */
  rememberCommentThread(thread: PostedCommentThread, at: Date): Promise<void>;
  /** The newest `limit` threads of the record posted in this workspace, newest first. */
  commentThreads(
    teamId: string,
    record: { entityType: string; entityId: string },
    limit: number,
  ): Promise<PostedCommentThread[]>;
  /** Forgets a posted thread (deleted, or no longer reachable); true when it was known. */
  forgetCommentThread(teamId: string, channelId: string, ts: string): Promise<boolean>;
  /**
   * Records that Tenderbot greeted a channel; true only the first time for that channel (so the
   * welcome is posted once, also when the app is removed and added again). One atomic statement.
   */
  markChannelWelcomed(teamId: string, channelId: string, at: Date): Promise<boolean>;
}
