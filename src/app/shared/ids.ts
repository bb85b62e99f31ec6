/** Every action_id, block_id and callback_id the app uses, by feature. */
export const SearchIds = {
  next: 'search/next',
  previous: 'search/previous',
  /** One per other buyer offered when a buyer's name matched several (`search/other_buyer/0`…). */
  otherBuyer: 'search/other_buyer',
} as const;

/** Next and Previous under every list but a tender search's. */
export const ListIds = {
  next: 'list/next',
  previous: 'list/previous',
} as const;

export const TenderIds = {
  bookmark: 'tender/bookmark',
  removeBookmark: 'tender/remove_bookmark',
  share: 'tender/share',
  openOriginal: 'tender/open_original',
  show: 'tender/show',
} as const;

export const DirectoryIds = {
  showBuyer: 'directory/show_buyer',
  showSupplier: 'directory/show_supplier',
  showFramework: 'directory/show_framework',
} as const;

export const SavedSearchIds = {
  run: 'saved/run',
} as const;

export const ErrorIds = {
  tryAgain: 'error/try_again',
} as const;

export const ConnectIds = {
  callback: 'connect/submit',
  keyBlock: 'connect/key_block',
  keyInput: 'connect/key',
  urlBlock: 'connect/url_block',
  urlInput: 'connect/url',
  disconnect: 'connect/disconnect',
  keepKey: 'connect/keep_key',
} as const;

export const HomeIds = {
  connect: 'home/connect',
  /** A bid's row: its card in the person's direct messages; its card in a channel they choose. */
  openBid: 'home/open_bid',
  postBid: 'home/post_bid',
  /** A bookmark's row: the tender in full, in their direct messages; its card in a channel. */
  openTender: 'home/open_tender',
  postTender: 'home/post_tender',
  /** A saved search's row: its results in their direct messages; a feed of it in a channel. */
  runSaved: 'home/run_saved',
  subscribeSaved: 'home/subscribe_saved',
  postSaved: 'home/post_saved',
  /** "Which channel?" after Post in channel or Subscribe: value is the codec's `homeChannel` state. */
  channelCallback: 'home/channel_submit',
  channelBlock: 'home/channel_block',
  channelInput: 'home/channel',
  cadenceBlock: 'home/cadence_block',
  cadenceInput: 'home/cadence',
} as const;

/** Comments on tenders, buyers, suppliers and frameworks (src/app/features/comments/comments.ts). */
export const CommentIds = {
  /** "Comment" on a card or detail panel: value is the codec's `comment` state. */
  open: 'comment/open',
  callback: 'comment/submit',
  textBlock: 'comment/text_block',
  textInput: 'comment/text',
  parentBlock: 'comment/parent_block',
  parentInput: 'comment/parent',
  /** "Delete" on one comment in the modal: value is the codec's `commentDelete` state. */
  delete: 'comment/delete',
} as const;

/** Bid pipelines (src/app/features/bids/pipelines.ts). */
export const PipelineIds = {
  /** "Start a bid" on a tender card: value is the codec's `startBid` state. */
  startBid: 'pipeline/start_bid',
  stageStatus: 'pipeline/stage_status',
  pipelineStatus: 'pipeline/status',
  stageNotes: 'pipeline/stage_notes',
  archive: 'pipeline/archive',
  restore: 'pipeline/restore',
  post: 'pipeline/post',
  /** "All stages": the bid's stages in a form, a page at a time (`…/<first stage number>`). */
  stagesForm: 'pipeline/stages_form',
  /** "Edit details" on a bid's card: its name, summary, target date and stage names in a form. */
  editBid: 'pipeline/edit',
  editCallback: 'pipeline/edit_submit',
  /** One stage name's input block in the edit form (`…/<stage number>`). */
  editStageBlock: 'pipeline/edit_stage_block',
  editStageInput: 'pipeline/edit_stage_name',
  startBidCallback: 'pipeline/start_bid_submit',
  notesCallback: 'pipeline/notes_submit',
  nameBlock: 'pipeline/name_block',
  nameInput: 'pipeline/name',
  summaryBlock: 'pipeline/summary_block',
  summaryInput: 'pipeline/summary',
  targetBlock: 'pipeline/target_block',
  targetInput: 'pipeline/target',
  stagesBlock: 'pipeline/stages_block',
  stagesInput: 'pipeline/stages',
  notesBlock: 'pipeline/notes_block',
  notesInput: 'pipeline/notes',
  dueBlock: 'pipeline/due_block',
  dueInput: 'pipeline/due',
} as const;

export const SubscriptionIds = {
  sendNow: 'subscription/send_now',
  unsubscribe: 'subscription/unsubscribe',
  /** "List them" on a feed post, and Next on its list (and Previous on lists drawn before it had its own id). */
  listMore: 'subscription/list_more',
  /** Previous on a feed's list: Slack refuses two buttons of one action_id in a block. */
  listMorePrevious: 'subscription/list_more_previous',
} as const;

export const ReachIds = {
  searchShortcut: 'reach/search_tenders',
  commentShortcut: 'reach/comment_on_message',
  searchBuilderCallback: 'reach/search_builder',
  openSearchBuilder: 'reach/open_search_builder',
  buyerSelect: 'reach/buyer_select',
  tenderSelect: 'reach/tender_select',
} as const;

/** The search builder's inputs: each block id and its element's action id. */
export const SEARCH_BUILDER_FIELDS = {
  words: { block: 'reach/sb_words_block', action: 'reach/sb_words' },
  region: { block: 'reach/sb_region_block', action: 'reach/sb_region' },
  status: { block: 'reach/sb_status_block', action: 'reach/sb_status' },
  valueMin: { block: 'reach/sb_value_min_block', action: 'reach/sb_value_min' },
  valueMax: { block: 'reach/sb_value_max_block', action: 'reach/sb_value_max' },
  currency: { block: 'reach/sb_currency_block', action: 'reach/sb_currency' },
  closes: { block: 'reach/sb_closes_block', action: 'reach/sb_closes' },
  cpv: { block: 'reach/sb_cpv_block', action: 'reach/sb_cpv' },
  buyer: { block: 'reach/sb_buyer_block', action: ReachIds.buyerSelect },
} as const;

/** "Which tender?" after the message shortcut on a message that names none. */
export const TENDER_PICKER = {
  callback: 'reach/tender_picker',
  block: 'reach/tp_tender_block',
  action: ReachIds.tenderSelect,
} as const;

/** The preview's own Bookmark buttons: a click redraws the preview (chat.unfurl), not the message. */
export const UNFURL_IDS = {
  bookmark: 'reach/unfurl_bookmark',
  removeBookmark: 'reach/unfurl_remove_bookmark',
} as const;
