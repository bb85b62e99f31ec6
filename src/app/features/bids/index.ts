/** What other features may use of bids: their references (`BID-7`), their sentences, stage lines, and posting or redrawing a card. */
export {
  bidReferences,
  bidReferencesIn,
  idsOldestFirst,
  resolveBidId,
  withBidReferences,
} from './bid-references.ts';
export { forbiddenSentence, notFoundSentence } from './bid-sentences.ts';
export { withStartedBy } from './bid-starters.ts';
export { postCard } from './card-changes.ts';
export { postPipelineCard, redrawEverywhere } from './pipeline-live.ts';
export { parseStageLines } from './pipeline-submissions.ts';
export { findStage, stageStatusNamed } from './stage-words.ts';
export { startedByPhrase } from './views/bid-people.ts';
export { DEFAULT_STAGE_TEMPLATE } from './views/pipeline-modals.ts';
export { dueOf } from './views/stage-text.ts';
export { afterClosingNote, cardClosingDay, tenderClosesWhen } from './views/tender-closes.ts';
