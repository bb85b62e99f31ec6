import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import {
  BookmarkValue,
  CommentTargetValue,
  ConnectMetadataValue,
  HomeChannelValue,
  ListPageValue,
  RecordId,
  SearchBuilderMetadataValue,
  SearchStateValue,
  StartBidValue,
} from './button-values.ts';
import * as CommentValues from './comment-values.ts';
import * as PipelineValues from './pipeline-values.ts';
import { StaleValueError } from './stale-value.ts';

export { StaleValueError };

/**
 * The one way a state is written into, and read back from, anything Slack sends back to us:
 * button values, option values and private_metadata. One zod schema per kind of action; a value
 * is parsed and validated, never `JSON.parse(value) as T`.
 */
export const ACTION_SCHEMAS = {
  /** A search page (next, previous). */
  searchPage: SearchStateValue,
  /** A page of another list (bids, buyers, suppliers, frameworks, bookmarks, saved searches). */
  listPage: ListPageValue,
  /** A bookmark button: tender, where its card sits, and who shared it (if a shared card). */
  bookmark: BookmarkValue,
  /** A button that names one record (share, details, saved run). Carried as the bare id. */
  record: RecordId,
  /** The connect modal's private_metadata. */
  connectMetadata: ConnectMetadataValue,
  /** "Comment" on a tender, buyer, supplier or framework. */
  comment: CommentTargetValue,
  /** The comment modal's private_metadata and its Delete buttons (src/app/shared/values/comment-values.ts). */
  commentModal: CommentValues.CommentModalMetadataValue,
  commentDelete: CommentValues.CommentDeleteValue,
  /** "Start a bid" on a tender. */
  startBid: StartBidValue,
  /** The Home tab's "Which channel?" window (Post in channel, Subscribe). */
  homeChannel: HomeChannelValue,
  /** The search form's private_metadata (the channel it was opened from). */
  searchBuilder: SearchBuilderMetadataValue,
  /** Pipelines (src/app/shared/values/pipeline-values.ts). */
  pipeline: PipelineValues.PipelineRefValue,
  pipelineStage: PipelineValues.StageRefValue,
  stageStatusOption: PipelineValues.StageStatusOptionValue,
  pipelineStatusOption: PipelineValues.PipelineStatusOptionValue,
  startBidModal: PipelineValues.StartBidMetadataValue,
  stageNotesModal: PipelineValues.StageNotesMetadataValue,
  editBidModal: PipelineValues.EditBidMetadataValue,
} as const satisfies Record<string, z.ZodType>;

/**
 * Kinds whose schema drops keys it does not know, where every other kind refuses them. A form's
 * metadata lives only while the form is open, so during a rolling update a form opened by a newer
 * copy is often submitted to an older one: the keys a newer copy adds there must be ones an older
 * copy can ignore (a key that changes what the form does gets a new kind). Buttons and options keep
 * refusing: a search filter dropped would answer a different search than the one on the card.
 */
export const FORM_METADATA = [
  'connectMetadata',
  'commentModal',
  'homeChannel',
  'searchBuilder',
  'startBidModal',
  'stageNotesModal',
  'editBidModal',
] as const satisfies readonly (keyof typeof ACTION_SCHEMAS)[];

export type ActionKind = keyof typeof ACTION_SCHEMAS;
export type StateOf<K extends ActionKind> = z.infer<(typeof ACTION_SCHEMAS)[K]>;

/** Slack's room for each kind of value. */
export const VALUE_ROOM = { button: 2000, option: 150, metadata: 3000 } as const;
export type ValueRoom = keyof typeof VALUE_ROOM;

/** A kept state's token: `~` and 22 url-safe characters (128 bits), never valid JSON nor an id we write. */
const TOKEN = /^~[A-Za-z0-9_-]{22}$/;
export const KEPT_STATE_DAYS = 30;

/** Where a state too big for its value is kept (the bot's store). */
export interface StateKeeper {
  saveState(token: string, json: string, expiresAt: Date): Promise<void>;
  loadState(token: string, now: Date): Promise<string | null>;
}

export class StateTooLargeError extends Error {
  constructor(kind: ActionKind, room: ValueRoom, length: number) {
    super(`${kind} state is ${length} characters; a ${room} value holds ${VALUE_ROOM[room]}`);
    this.name = 'StateTooLargeError';
  }
}

function serialise<K extends ActionKind>(kind: K, state: StateOf<K>): string {
  // Validated on the way out too: a bug that writes a state we could not read back fails here, loudly.
  const checked = ACTION_SCHEMAS[kind].parse(state);
  return kind === 'record' ? (checked as string) : JSON.stringify(checked);
}

/** Encodes a state that must fit in its value (ids and bounded states); too big is a bug, thrown. */
export function encode<K extends ActionKind>(kind: K, state: StateOf<K>, room: ValueRoom = 'button'): string {
  const text = serialise(kind, state);
  if (text.length > VALUE_ROOM[room]) throw new StateTooLargeError(kind, room, text.length);
  return text;
}

/**
 * Encodes a state for a button drawn on a card, or null when the record cannot be carried (an id
 * the schema refuses, such as one over 300 characters): the card then goes without that button
 * rather than fail as a whole.
 */
export function encodeIfFits<K extends ActionKind>(
  kind: K,
  state: StateOf<K>,
  room: ValueRoom = 'button',
): string | null {
  try {
    return encode(kind, state, room);
  } catch {
    return null;
  }
}

/** Encodes a state; one that does not fit is kept in the store under a short token that the value carries. */
export async function encodeKept<K extends ActionKind>(
  kind: K,
  state: StateOf<K>,
  room: ValueRoom,
  keeper: StateKeeper,
  now: Date,
): Promise<string> {
  const text = serialise(kind, state);
  if (text.length <= VALUE_ROOM[room] && !TOKEN.test(text)) return text;
  const token = `~${randomBytes(16).toString('base64url')}`;
  await keeper.saveState(token, text, new Date(now.getTime() + KEPT_STATE_DAYS * 86_400_000));
  return token;
}

/**
 * Decodes a value: its state, typed, or a StaleValueError (broken, forged, outdated, or a kept
 * state whose token is unknown or expired). Never throws anything else for bad input.
 */
export async function decode<K extends ActionKind>(
  kind: K,
  raw: string | undefined | null,
  keeper?: StateKeeper,
  now: Date = new Date(),
): Promise<StateOf<K>> {
  let text = raw ?? '';
  if (TOKEN.test(text)) {
    const kept = keeper ? await keeper.loadState(text, now) : null;
    if (kept === null) throw new StaleValueError('kept state missing or expired');
    text = kept;
  }
  return decodeText(kind, text);
}

/** Decodes a value that never uses a token (synchronous callers). */
export function decodeText<K extends ActionKind>(kind: K, text: string | undefined | null): StateOf<K> {
  let parsedJson: unknown = text ?? '';
  if (kind !== 'record') {
    try {
      parsedJson = JSON.parse(text ?? '');
    } catch {
      throw new StaleValueError('not JSON');
    }
  }
  const parsed = ACTION_SCHEMAS[kind].safeParse(parsedJson);
  if (!parsed.success) throw new StaleValueError(parsed.error.issues[0]?.message ?? 'wrong shape');
  return parsed.data as StateOf<K>;
}
