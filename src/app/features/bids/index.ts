/** What other features may use of bids: their sentences, stage lines, and posting or redrawing a card. */
export { forbiddenSentence, notFoundSentence } from './bid-sentences.ts';
export { withStartedBy } from './bid-starters.ts';
export { postPipelineCard, redrawEverywhere } from './pipeline-live.ts';
export { parseStageLines } from './pipeline-submissions.ts';
export { startedByPhrase } from './views/bid-people.ts';
export { DEFAULT_STAGE_TEMPLATE } from './views/pipeline-modals.ts';
