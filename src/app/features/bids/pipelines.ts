/*
 * The bids feature's handlers, from the path listeners and the `/tender` command import them by.
 * Each concern lives in its own file: commands.ts, card-changes.ts, start-bid-form.ts and
 * stage-notes-form.ts.
 */
export {
  type CardPlace,
  changePipelineStatus,
  changeStageStatus,
  postCardFromList,
  setArchived,
} from './card-changes.ts';
export { pipelineCommand, pipelinesCommand } from './commands.ts';
export { SUBMIT_BUDGET_MS } from './form-steps.ts';
export { openStageNotes, submitStageNotes } from './stage-notes-form.ts';
export { openStartBidModal, submitStartBid } from './start-bid-form.ts';
