/**
 * The short reference people say and type for a bid (`BID-7`): a number per workspace, given by the
 * bot's store the first time Tenderbot starts or shows the bid, never given twice in a workspace.
 */
export interface BidReferenceStore {
  /**
   * pipeline id → its number in this workspace, for every one of `pipelineIds`: those without one
   * get the next free numbers now (safe with several copies of the app allocating at once).
   */
  bidReferenceNumbers(teamId: string, pipelineIds: readonly string[]): Promise<Map<string, number>>;
  /** pipeline id → its number, for those of `pipelineIds` given one already: none is given here. */
  givenBidReferenceNumbers(teamId: string, pipelineIds: readonly string[]): Promise<Map<string, number>>;
  /** The bid given this number in this workspace, or null when none was. */
  bidWithReferenceNumber(teamId: string, number: number): Promise<string | null>;
  /** The pipeline ids given a number in this workspace that start with `prefix` (lowercase), at most `limit`. */
  bidsWithIdPrefix(teamId: string, prefix: string, limit: number): Promise<string[]>;
}
