/** The callback ids of Tenderbot's Workflow Builder steps: manifest.yml declares exactly these. */
export const WorkflowStepIds = {
  findTenders: 'find_new_tenders',
  startBid: 'start_bid_from_tender',
  moveStage: 'move_bid_stage',
  postSummary: 'post_bid_summary',
  askToQualify: 'ask_to_qualify_tender',
} as const;

export type WorkflowStepId = (typeof WorkflowStepIds)[keyof typeof WorkflowStepIds];

/** The buttons of the qualify question: `workflow/qualify/0` (qualified) and `/1` (not qualified). */
export const QualifyIds = { answer: 'workflow/qualify' } as const;
