/**
 * Work Objects (docs/work-objects.md): entities given to `chat.unfurl` as `metadata.entities`, the
 * `entity_details_requested` event a person's click on one sends, and `entity.presentDetails`,
 * the app's per-person answer for the flexpane. Validated as Slack's reference pages describe.
 */
import { randomBytes } from 'node:crypto';
import { linksIn } from './links.ts';
import type { AppAnswer, FakeMessage } from './types.ts';
import type { Args, WebAnswer } from './web-api-types.ts';
import type { Workspace } from './workspace.ts';

/** The entity types Slack supports (`@slack/types` EntityType). */
export const ENTITY_TYPES = [
  'slack#/entities/task',
  'slack#/entities/file',
  'slack#/entities/item',
  'slack#/entities/incident',
  'slack#/entities/content_item',
] as const;

/** entity.presentDetails' `error.status` values (its reference page). */
const ERROR_STATUSES = [
  'restricted',
  'internal_error',
  'not_found',
  'custom',
  'custom_partial_view',
  'timeout',
  'edit_error',
];

/** One entity as the app sent it (the fake keeps it as sent, once it passed the checks). */
export interface Entity {
  entity_type: string;
  url: string;
  app_unfurl_url?: string;
  external_ref: { id: string; type?: string };
  entity_payload: {
    attributes: { title: { text: string }; [name: string]: unknown };
    fields?: Record<string, unknown>;
    custom_fields?: { label: string; key: string; type: string; value?: unknown }[];
    [name: string]: unknown;
  };
}

/** What the app showed one person in the flexpane: the entity, or an error. */
export interface Presentation {
  userId: string;
  triggerId: string;
  metadata?: Entity;
  error?: { status: string; custom_title?: string; custom_message?: string };
}

interface PendingTrigger {
  userId: string;
  externalRef: { id: string; type?: string };
  presented: (presentation: Presentation) => void;
}

/** Per workspace: whether Work Objects are on, the entities on messages, the flexpane triggers. */
interface WorkObjectState {
  enabled: boolean;
  entities: WeakMap<FakeMessage, Entity[]>;
  triggers: Map<string, PendingTrigger>;
}

const states = new WeakMap<Workspace, WorkObjectState>();

function stateOf(workspace: Workspace): WorkObjectState {
  let state = states.get(workspace);
  if (!state) {
    // Off until a test or the workbench turns them on: most workspaces have not enabled the app's Work Objects.
    state = { enabled: false, entities: new WeakMap(), triggers: new Map() };
    states.set(workspace, state);
  }
  return state;
}

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why an entity does not fit Slack's schema, or null: the required fields with their types. */
export function entityProblem(entity: unknown, needsUnfurlUrl: boolean): string | null {
  if (!isObject(entity)) return 'an entity must be an object';
  if (!ENTITY_TYPES.includes(entity.entity_type as (typeof ENTITY_TYPES)[number]))
    return `unknown entity_type ${JSON.stringify(entity.entity_type)}`;
  if (!isText(entity.url)) return 'url is required';
  if (needsUnfurlUrl && !isText(entity.app_unfurl_url)) return 'app_unfurl_url is required in chat.unfurl';
  if (!isObject(entity.external_ref) || !isText(entity.external_ref.id)) return 'external_ref.id is required';
  const payload = entity.entity_payload;
  if (!isObject(payload)) return 'entity_payload is required';
  const attributes = payload.attributes;
  if (!isObject(attributes) || !isObject(attributes.title) || !isText(attributes.title.text))
    return 'entity_payload.attributes.title.text is required';
  if (payload.fields !== undefined && !isObject(payload.fields))
    return 'entity_payload.fields must be an object';
  if (payload.custom_fields !== undefined) {
    if (!Array.isArray(payload.custom_fields)) return 'entity_payload.custom_fields must be an array';
    for (const field of payload.custom_fields)
      if (!isObject(field) || !isText(field.key) || !isText(field.label) || !isText(field.type))
        return 'each custom field needs key, label and type';
  }
  return null;
}

/**
 * chat.unfurl's `metadata` for `message`, or null when there is none: refused when Work Objects
 * are off in the workspace, when an entity does not fit the schema, or names a link not in the
 * message; else kept on the message (one entity per link, a later one replacing it).
 */
export function unfurlEntities(
  workspace: Workspace,
  message: FakeMessage,
  metadata: unknown,
): WebAnswer | null {
  if (metadata === undefined) return null;
  const state = stateOf(workspace);
  if (!state.enabled) return { ok: false, error: 'feature_not_enabled' };
  if (!isObject(metadata) || !Array.isArray(metadata.entities) || metadata.entities.length === 0)
    return { ok: false, error: 'invalid_metadata' };
  const links = linksIn(message.text);
  for (const entity of metadata.entities) {
    const problem = entityProblem(entity, true);
    if (problem) return { ok: false, error: 'invalid_metadata', response_metadata: { messages: [problem] } };
    if (!links.includes((entity as Entity).app_unfurl_url ?? ''))
      return { ok: false, error: 'cannot_unfurl_url' };
  }
  const added = metadata.entities as Entity[];
  const kept = (state.entities.get(message) ?? []).filter(
    (old) => !added.some((entity) => entity.app_unfurl_url === old.app_unfurl_url),
  );
  state.entities.set(message, [...kept, ...added]);
  return { ok: true };
}

/** `entity.presentDetails`, checked against the trigger Slack gave in `entity_details_requested`. */
export function workObjectsMethod(workspace: Workspace, method: string, args: Args): WebAnswer | null {
  if (method !== 'entity.presentDetails') return null;
  const state = stateOf(workspace);
  if (!isText(args.trigger_id)) return { ok: false, error: 'invalid_arguments' };
  const trigger = state.triggers.get(args.trigger_id);
  if (!trigger) return { ok: false, error: 'invalid_trigger_id' };
  const metadata: unknown = args.metadata;
  let error: unknown = args.error;
  if (typeof error === 'string') {
    try {
      error = JSON.parse(error);
    } catch {
      return { ok: false, error: 'invalid_arguments' };
    }
  }
  if (metadata === undefined && error === undefined) return { ok: false, error: 'invalid_arguments' };
  if (error !== undefined && (!isObject(error) || !ERROR_STATUSES.includes(error.status as string)))
    return { ok: false, error: 'invalid_arguments' };
  if (metadata !== undefined) {
    const problem = entityProblem(metadata, false);
    if (problem) return { ok: false, error: 'invalid_metadata', response_metadata: { messages: [problem] } };
    if ((metadata as Entity).external_ref.id !== trigger.externalRef.id)
      return { ok: false, error: 'entity_metadata_does_not_match_trigger' };
  }
  state.triggers.delete(args.trigger_id);
  trigger.presented({
    userId: trigger.userId,
    triggerId: args.trigger_id,
    ...(metadata !== undefined ? { metadata: metadata as Entity } : {}),
    ...(error !== undefined ? { error: error as Presentation['error'] & object } : {}),
  });
  return { ok: true };
}

/** What tests and the workbench do with Work Objects: turn them on, read them, open a flexpane. */
export class WorkObjects {
  constructor(
    private readonly workspace: Workspace,
    private readonly send: (event: Record<string, unknown>) => Promise<AppAnswer>,
  ) {}

  /** Whether the workspace shows the app's Work Objects (when off, chat.unfurl with metadata is refused). */
  set enabled(on: boolean) {
    stateOf(this.workspace).enabled = on;
  }

  get enabled(): boolean {
    return stateOf(this.workspace).enabled;
  }

  /** The entities the app unfurled on a message. */
  entitiesOf(message: FakeMessage): Entity[] {
    return stateOf(this.workspace).entities.get(message) ?? [];
  }

  /**
   * A person clicks the entity unfurled for `url` on `message`: Slack sends
   * `entity_details_requested`; `presented` resolves with what the app showed that person.
   */
  async openFlexpane(
    userId: string,
    message: FakeMessage,
    url: string,
  ): Promise<{ answer: AppAnswer; presented: Promise<Presentation> }> {
    const entity = this.entitiesOf(message).find((candidate) => candidate.app_unfurl_url === url);
    if (!entity) throw new Error(`no entity is unfurled for ${url}`);
    const triggerId = `${Date.now()}.${randomBytes(6).toString('hex')}`;
    let presented!: (presentation: Presentation) => void;
    const shown = new Promise<Presentation>((resolve) => {
      presented = resolve;
    });
    stateOf(this.workspace).triggers.set(triggerId, { userId, externalRef: entity.external_ref, presented });
    const answer = await this.send({
      type: 'entity_details_requested',
      user: userId,
      external_ref: entity.external_ref,
      entity_url: entity.url,
      link: { url, domain: new URL(url).hostname },
      app_unfurl_url: url,
      trigger_id: triggerId,
      user_locale: 'en-GB',
      channel: message.channel,
      message_ts: message.ts,
      ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
    });
    return { answer, presented: shown };
  }
}
