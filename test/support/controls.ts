import type { ControlKind } from '../../src/app/shared/controls/control-registry.ts';
import type { Choice, FakeMessage, FakeSlack } from '../../src/fake-slack/fake-slack.ts';

/** A control the app drew: what Slack would send about it, and its id. */
export interface DrawnControl {
  kind: ControlKind;
  id: string;
}

// biome-ignore lint/suspicious/noExplicitAny: Block Kit as the fake Slack keeps it, walked field by field.
type Json = any;

/** Elements whose options Slack asks the app for as one types (`block_suggestion`). */
const EXTERNAL = new Set(['external_select', 'multi_external_select']);

/** JSON the Web API received as a string (a form-encoded call), parsed; anything else as it is. */
function parsed(value: unknown): unknown {
  if (typeof value !== 'string' || !/^\s*[[{]/.test(value)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/**
 * Every control in `node` (messages, views, unfurls, answers, at any depth): elements with an
 * action_id that send `block_actions` (not those inside an input block without dispatch_action,
 * whose value comes with the submission), external selects as option sources, and modals'
 * callback_ids as view submissions.
 */
export function controlsIn(node: unknown, out: DrawnControl[] = [], block: Json = null): DrawnControl[] {
  const value = parsed(node);
  if (Array.isArray(value)) {
    for (const item of value) controlsIn(item, out, block);
    return out;
  }
  if (typeof value !== 'object' || value === null) return out;
  const object = value as Json;
  if (object.type === 'modal' && typeof object.callback_id === 'string' && object.callback_id !== '')
    out.push({ kind: 'view', id: object.callback_id });
  if (typeof object.action_id === 'string' && typeof object.type === 'string') {
    if (EXTERNAL.has(object.type)) out.push({ kind: 'options', id: object.action_id });
    const collectedOnSubmit = block?.type === 'input' && block.dispatch_action !== true;
    if (!collectedOnSubmit) out.push({ kind: 'action', id: object.action_id });
  }
  for (const [key, child] of Object.entries(object)) {
    if (key === 'blocks') {
      const blocks = parsed(child);
      if (Array.isArray(blocks)) for (const item of blocks) controlsIn(item, out, item);
    } else controlsIn(child, out, block);
  }
  return out;
}

/**
 * Everything the app drew that the fake Slack holds or was given: every Web API call's arguments
 * (posts, updates, unfurls, views opened, updated, pushed and published, with versions since
 * replaced), every message as it stands (answers at response_urls too), every view, and
 * `answers`, the app's own answers to the requests (a submission's `response_action: update`).
 */
export function everythingDrawn(slack: FakeSlack, answers: unknown[]): DrawnControl[] {
  const out: DrawnControl[] = [];
  for (const call of slack.calls) controlsIn(call.args, out);
  for (const message of slack.messages) controlsIn({ blocks: message.blocks, unfurls: message.unfurls }, out);
  for (const view of slack.views.values()) controlsIn(view.view, out);
  controlsIn(answers, out);
  return out;
}

/** Where a person can use a control now: a message (or its link preview), or an open view. */
export type ControlPlace =
  | { where: 'message'; message: FakeMessage; actionId: string; element: Json }
  | { where: 'view'; viewId: string; userId: string; actionId: string; element: Json };

/** The elements of `blocks` whose action_id `matches`, in order. */
function elementsIn(node: unknown, matches: (id: string) => boolean, out: Json[] = []): Json[] {
  const value = parsed(node);
  if (Array.isArray(value)) for (const item of value) elementsIn(item, matches, out);
  else if (typeof value === 'object' && value !== null) {
    const object = value as Json;
    if (typeof object.action_id === 'string' && typeof object.type === 'string' && matches(object.action_id))
      out.push(object);
    for (const child of Object.values(object)) elementsIn(child, matches, out);
  }
  return out;
}

/** A place where an element whose action_id `matches` stands now (a message first, then a view). */
export function placeOf(
  slack: FakeSlack,
  matches: (id: string) => boolean,
  within?: FakeMessage[],
): ControlPlace | null {
  for (const message of within ?? [...slack.messages].reverse()) {
    if (message.deleted) continue;
    const [element] = elementsIn([message.blocks, Object.values(message.unfurls ?? {})], matches);
    if (element) return { where: 'message', message, actionId: element.action_id, element };
  }
  if (within) return null;
  for (const view of slack.views.values()) {
    const [element] = elementsIn(view.view.blocks, matches);
    if (element)
      return { where: 'view', viewId: view.id, userId: view.userId, actionId: element.action_id, element };
  }
  return null;
}

/** What a click on `element` picks: a select's first option, else nothing (a button sends its value). */
export function firstChoice(element: Json): Choice | undefined {
  const options: Json[] =
    element.options ?? (element.option_groups ?? []).flatMap((group: Json) => group.options);
  if (element.type === 'static_select' || element.type === 'overflow')
    return { selectedOption: options[0]?.value ?? '' };
  if (element.type === 'datepicker') return { selectedDate: '2030-01-15' };
  return undefined;
}

/**
 * The blocks of a message the app once drew (a post, an update or a link preview, since redrawn) holding an
 * element whose action_id `matches`: to post again, as a message still standing in a channel.
 */
export function drawnMessageBlocks(slack: FakeSlack, matches: (id: string) => boolean): Json[] | null {
  for (const call of [...slack.calls].reverse()) {
    if (!call.method.startsWith('chat.')) continue;
    // A post's or update's blocks, or a link preview's (chat.unfurl).
    const previews = Object.values((parsed(call.args.unfurls) as Record<string, Json> | undefined) ?? {});
    for (const blocks of [parsed(call.args.blocks), ...previews.map((preview) => parsed(preview?.blocks))])
      if (Array.isArray(blocks) && elementsIn(blocks, matches).length > 0) return blocks;
  }
  return null;
}
