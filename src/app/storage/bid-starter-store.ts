/**
 * Which Slack person started a bid through Tenderbot (the service only knows the key's maker as
 * its owner), and whether they started it with their own key (then they are that owner too).
 */
export interface BidStarter {
  pipelineId: string;
  teamId: string;
  userId: string;
  /** True when the bid was created with the person's own key: the service's owner is them. */
  ownKey: boolean;
  startedAt: Date;
}

/** Who started each bid, per workspace. */
export interface BidStarterStore {
  /** Records who started a bid; recording the same bid again (a retry) keeps the first. */
  recordBidStarter(starter: BidStarter): Promise<void>;
  /** pipeline id → its starter, for those of `pipelineIds` started through Tenderbot in this workspace. */
  bidStarters(teamId: string, pipelineIds: readonly string[]): Promise<Map<string, BidStarter>>;
}
