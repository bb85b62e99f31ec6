/** What other features may use of tenders/search: running a search, showing and sharing one tender. */
export {
  searchCommand,
  searchSentence,
  showCommand,
  showSearchPage,
  tenderByReference,
} from './search.ts';
export { shareTender } from './share-tender.ts';
