import type {
  App,
  BlockAction,
  Middleware,
  SlackActionMiddlewareArgs,
  SlackOptionsMiddlewareArgs,
  SlackShortcut,
  SlackShortcutMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import {
  CommentIds,
  ConnectIds,
  DirectoryIds,
  ErrorIds,
  HomeIds,
  ListIds,
  PipelineIds,
  ReachIds,
  SavedSearchIds,
  SEARCH_BUILDER_FIELDS,
  SearchIds,
  SubscriptionIds,
  TENDER_PICKER,
  TenderIds,
  UNFURL_IDS,
} from '../ids.ts';
import { SuggestionIds } from '../views/suggestions.ts';

/**
 * What Slack sends about a control the app drew: a click or pick (`block_actions`, by action_id),
 * a modal's submission (`view_submission`, by callback_id), a shortcut (by callback_id) or an
 * external select's options as one types (`block_suggestion`, by action_id).
 */
export type ControlKind = 'action' | 'view' | 'shortcut' | 'options';

export interface Control {
  kind: ControlKind;
  id: string;
  /** One per item (`…/0`, `…/1`): the id is this one, a slash and up to three digits. */
  numbered?: true;
  /** What a person knows it as (test failures and logs name it). */
  what: string;
  /**
   * Answered by the listener of another row of the same kind (its id): a control with an id of its
   * own that does what that one does (a "Did you mean" button draws a search page, as Next does).
   */
  answeredBy?: string;
}

/**
 * Every control this version answers, one row each. Registration goes through this table
 * (ControlRouter refuses an id not in it and starts no app with a row left without a listener),
 * and test/app/listeners/controls.test.ts checks it against every control the app draws.
 */
export const CONTROLS = [
  { kind: 'action', id: SearchIds.next, what: 'Next on a search' },
  { kind: 'action', id: SearchIds.previous, what: 'Previous on a search' },
  { kind: 'action', id: SearchIds.otherBuyer, numbered: true, what: 'another buyer of that name' },
  {
    kind: 'action',
    id: SuggestionIds.searchMeant,
    what: 'Did you mean (a word of a search)',
    answeredBy: SearchIds.next,
  },
  {
    kind: 'action',
    id: SuggestionIds.commandMeant,
    what: 'Did you mean (a command)',
    answeredBy: ErrorIds.tryAgain,
  },
  { kind: 'action', id: ListIds.next, what: 'Next on a list' },
  { kind: 'action', id: ListIds.previous, what: 'Previous on a list' },
  { kind: 'action', id: TenderIds.bookmark, what: 'Bookmark' },
  { kind: 'action', id: TenderIds.removeBookmark, what: 'Remove bookmark' },
  { kind: 'action', id: TenderIds.share, what: 'Share in channel' },
  { kind: 'action', id: TenderIds.show, what: 'Open (a notice in a panel), Open the tender (a bid’s card)' },
  { kind: 'action', id: TenderIds.openOriginal, what: 'Open original (a link)' },
  { kind: 'action', id: DirectoryIds.showBuyer, what: 'a buyer in a list' },
  { kind: 'action', id: DirectoryIds.showSupplier, what: 'a supplier in a list' },
  { kind: 'action', id: DirectoryIds.showFramework, what: 'a framework in a list' },
  { kind: 'action', id: SavedSearchIds.run, what: 'Run (a saved search)' },
  { kind: 'action', id: ErrorIds.tryAgain, what: 'Try again' },
  { kind: 'action', id: ConnectIds.disconnect, what: 'Disconnect' },
  { kind: 'action', id: ConnectIds.keepKey, what: 'Keep the key' },
  { kind: 'action', id: HomeIds.connect, what: 'Connect on the Home tab' },
  { kind: 'action', id: HomeIds.openBid, what: 'Open (a bid on the Home tab)' },
  { kind: 'action', id: HomeIds.postBid, what: 'Post in channel (a bid on the Home tab)' },
  { kind: 'action', id: HomeIds.openTender, what: 'Open (a bookmark on the Home tab)' },
  { kind: 'action', id: HomeIds.postTender, what: 'Post in channel (a bookmark on the Home tab)' },
  { kind: 'action', id: HomeIds.runSaved, what: 'Run (a saved search on the Home tab)' },
  { kind: 'action', id: HomeIds.subscribeSaved, what: 'Subscribe (a saved search on the Home tab)' },
  { kind: 'action', id: HomeIds.postSaved, what: 'Post in channel (a saved search on the Home tab)' },
  { kind: 'view', id: HomeIds.channelCallback, what: 'the Home tab’s “Which channel?”' },
  { kind: 'action', id: CommentIds.open, what: 'Comment' },
  { kind: 'action', id: CommentIds.delete, what: 'Delete (a comment)' },
  { kind: 'action', id: PipelineIds.startBid, what: 'Start a bid' },
  { kind: 'action', id: PipelineIds.stageStatus, numbered: true, what: 'a stage’s status' },
  { kind: 'action', id: PipelineIds.pipelineStatus, what: 'a bid’s status' },
  { kind: 'action', id: PipelineIds.stageNotes, numbered: true, what: 'a stage’s notes' },
  { kind: 'action', id: PipelineIds.editBid, what: 'Edit details (a bid)' },
  { kind: 'action', id: PipelineIds.archive, what: 'Archive (a bid)' },
  { kind: 'action', id: PipelineIds.restore, what: 'Restore (a bid)' },
  { kind: 'action', id: PipelineIds.post, what: 'Post in channel (a bid)' },
  { kind: 'action', id: PipelineIds.stagesForm, numbered: true, what: 'All stages (a bid)' },
  { kind: 'action', id: SubscriptionIds.sendNow, what: 'Send now' },
  { kind: 'action', id: SubscriptionIds.unsubscribe, what: 'Unsubscribe' },
  { kind: 'action', id: SubscriptionIds.listMore, what: '…and N more (a feed post), Next on its list' },
  { kind: 'action', id: SubscriptionIds.listMorePrevious, what: 'Previous on a feed’s list' },
  { kind: 'action', id: UNFURL_IDS.bookmark, what: 'Bookmark on a link preview' },
  { kind: 'action', id: UNFURL_IDS.removeBookmark, what: 'Remove bookmark on a link preview' },
  { kind: 'action', id: ReachIds.openSearchBuilder, what: 'Search tenders (a button)' },
  // The workflows feature's QualifyIds.answer (a feature's id: the shared kit imports no feature).
  { kind: 'action', id: 'workflow/qualify', numbered: true, what: 'Qualified? (a step’s question)' },
  { kind: 'view', id: ConnectIds.callback, what: 'the connect window' },
  { kind: 'view', id: CommentIds.callback, what: 'the comment window' },
  { kind: 'view', id: PipelineIds.startBidCallback, what: 'the start-a-bid window' },
  { kind: 'view', id: PipelineIds.notesCallback, what: 'the stage notes window' },
  { kind: 'view', id: PipelineIds.editCallback, what: 'the edit-a-bid window' },
  { kind: 'view', id: ReachIds.searchBuilderCallback, what: 'the search builder' },
  { kind: 'view', id: TENDER_PICKER.callback, what: 'the tender picker' },
  { kind: 'shortcut', id: ReachIds.searchShortcut, what: 'the Search tenders shortcut' },
  { kind: 'shortcut', id: ReachIds.commentShortcut, what: 'the Comment on a tender shortcut' },
  { kind: 'options', id: SEARCH_BUILDER_FIELDS.buyer.action, what: 'the buyer field’s suggestions' },
  { kind: 'options', id: TENDER_PICKER.action, what: 'the tender picker’s suggestions' },
] as const satisfies readonly Control[];

/** Ids a listener is registered for: rows answered by another row's listener have none of their own. */
type IdOf<K extends ControlKind> = Exclude<
  Extract<(typeof CONTROLS)[number], { kind: K }>,
  { answeredBy: string }
>['id'];
export type ActionId = IdOf<'action'>;
export type ViewId = IdOf<'view'>;
export type ShortcutId = IdOf<'shortcut'>;
export type OptionsId = IdOf<'options'>;

/**
 * Ids of older versions whose control still stands in messages, answered by this version's
 * listener of the same meaning. `git log -S` over src/app finds no id renamed so far; one renamed
 * later gets a row here (old id → the row of CONTROLS now answering it).
 */
export const RETIRED_ALIASES: readonly { kind: ControlKind; id: string; answeredBy: string }[] = [];

type ActionListener = Middleware<SlackActionMiddlewareArgs<BlockAction>>;
type ViewListener = Middleware<SlackViewMiddlewareArgs<ViewSubmitAction>>;
type ShortcutListener = Middleware<SlackShortcutMiddlewareArgs<SlackShortcut>>;
type OptionsListener = Middleware<SlackOptionsMiddlewareArgs<'block_suggestion'>>;

interface Listeners {
  action: ActionListener;
  view: ViewListener;
  shortcut: ShortcutListener;
  options: OptionsListener;
}

/** What answers a control no row of CONTROLS (nor RETIRED_ALIASES) names: a button of an older version. */
export type UnknownControlAnswers = Listeners;

/**
 * Registration of every control through CONTROLS, and one Bolt listener per kind that routes by
 * id through a map. One listener rather than one per id: an id nobody registered is still
 * answered (at once, with a sentence) instead of waiting out Slack's 3 s for a 404, and Bolt runs
 * the matching middleware of four listeners per request instead of about fifty.
 */
export class ControlRouter {
  private readonly listeners = {
    action: new Map<string, ActionListener>(),
    view: new Map<string, ViewListener>(),
    shortcut: new Map<string, ShortcutListener>(),
    options: new Map<string, OptionsListener>(),
  };

  action<A extends BlockAction = BlockAction>(
    id: ActionId,
    listener: Middleware<SlackActionMiddlewareArgs<A>>,
  ): void {
    this.add('action', id, listener as unknown as ActionListener);
  }

  view(id: ViewId, listener: ViewListener): void {
    this.add('view', id, listener);
  }

  shortcut<S extends SlackShortcut = SlackShortcut>(
    id: ShortcutId,
    listener: Middleware<SlackShortcutMiddlewareArgs<S>>,
  ): void {
    this.add('shortcut', id, listener as unknown as ShortcutListener);
  }

  options(id: OptionsId, listener: OptionsListener): void {
    this.add('options', id, listener);
  }

  /** The listener answering `id`: that of the row controlFor finds. */
  find<K extends ControlKind>(kind: K, id: string): Listeners[K] | undefined {
    const row = controlFor(kind, id);
    return row ? (this.listeners[kind].get(listenerIdOf(row)) as Listeners[K] | undefined) : undefined;
  }

  /**
   * Attaches the four routing listeners to `app`. Throws when a row of CONTROLS has no listener:
   * the app does not start with a control it draws but cannot answer.
   */
  attach(app: App, unknown: UnknownControlAnswers): void {
    const missing = CONTROLS.filter((row) => !this.listeners[row.kind].has(listenerIdOf(row)));
    if (missing.length > 0)
      throw new Error(
        `controls without a listener: ${missing.map((row) => `${row.kind} ${row.id}`).join(', ')}`,
      );
    app.action<BlockAction>(/^/, async (args) => {
      const id = (args.action as { action_id?: unknown }).action_id;
      const listener = typeof id === 'string' ? this.find('action', id) : undefined;
      await (listener ?? unknown.action)(args);
    });
    app.view<ViewSubmitAction>(/^/, async (args) => {
      await (this.find('view', args.view.callback_id) ?? unknown.view)(args);
    });
    app.shortcut(/^/, async (args) => {
      await (this.find('shortcut', args.shortcut.callback_id) ?? unknown.shortcut)(args);
    });
    app.options<'block_suggestion'>(/^/, async (args) => {
      const id = (args.payload as { action_id?: unknown }).action_id;
      const listener = typeof id === 'string' ? this.find('options', id) : undefined;
      await (listener ?? unknown.options)(args);
    });
  }

  private add<K extends ControlKind>(kind: K, id: string, listener: Listeners[K]): void {
    const map = this.listeners[kind] as Map<string, unknown>;
    const row = CONTROLS.find((candidate) => candidate.kind === kind && candidate.id === id);
    if (!row) throw new Error(`${kind} ${id} is not in CONTROLS`);
    if ('answeredBy' in row) throw new Error(`${kind} ${id} is answered by ${row.answeredBy}`);
    if (map.has(id)) throw new Error(`${kind} ${id} has a listener already`);
    map.set(id, listener);
  }
}

/**
 * The row of CONTROLS that answers `id` of this kind: its own, a numbered row's (`…/3`), or the
 * row a retired alias names; undefined for an id this version does not have.
 */
export function controlFor(kind: ControlKind, id: string): Control | undefined {
  const own = ROWS.get(`${kind} ${id}`);
  if (own) return own;
  const base = /^(.+)\/\d{1,3}$/.exec(id)?.[1];
  const numbered = base === undefined ? undefined : NUMBERED_ROWS.get(`${kind} ${base}`);
  if (numbered) return numbered;
  const alias = RETIRED_ALIASES.find((row) => row.kind === kind && row.id === id);
  return alias ? ROWS.get(`${kind} ${alias.answeredBy}`) : undefined;
}

/** The id whose listener answers `row`: its own, or the row's it is answered by. */
function listenerIdOf(row: Control): string {
  return row.answeredBy ?? row.id;
}

/** The rows by kind and id, looked up once a request (numbered rows apart: they need their digits). */
const ROWS = new Map<string, Control>(
  CONTROLS.filter((row) => !('numbered' in row)).map((row) => [`${row.kind} ${row.id}`, row]),
);
const NUMBERED_ROWS = new Map<string, Control>(
  CONTROLS.filter((row) => 'numbered' in row).map((row) => [`${row.kind} ${row.id}`, row]),
);
