/** What other features may use of tenders/search: running a search, and showing one tender. */
export { searchCommand, searchSentence, showCommand, showSearchPage, tenderByReference } from './search.ts';
