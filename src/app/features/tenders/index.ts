/**
 * What other features may use of tenders/search: running a search, showing and sharing one tender,
 * and the shared cards following a bookmark changed elsewhere.
 */
export { searchCommand, searchSentence, showSearchPage } from './search.ts';
export { shareTender } from './share-tender.ts';
export { followBookmarkChange } from './shared-cards.ts';
export { showCommand, tenderByReference } from './tender-detail.ts';
