/** What other features may use of tenders/search: running a search, showing and sharing one tender. */
export { searchCommand, searchSentence, showSearchPage } from './search.ts';
export { shareTender } from './share-tender.ts';
export { showCommand, tenderByReference } from './tender-detail.ts';
