/**
 * What Slack refuses in a message, an unfurl or a view, checked by the fake itself (from the
 * limits table of ../shared/SLACK.md and Slack's Block Kit reference), independently of the app's
 * own validator: a refusal here is what Slack would answer, whatever the app believes.
 *
 * Each problem reads as Slack's `response_metadata.messages` do: a sentence and a JSON pointer.
 */

// biome-ignore lint/suspicious/noExplicitAny: Block Kit arrives as loose JSON of any shape.
type Json = any;

/** Slack's documented limit of a message's `text`. */
export const MAX_TEXT_CHARACTERS = 40_000;
/**
 * A message whose blocks' JSON is longer than this is refused with `msg_too_long`: SLACK.md says
 * to keep well under 12,000 characters and that messages near 13k have been refused.
 */
export const MAX_MESSAGE_BLOCKS_JSON = 13_000;

const BLOCK_TYPES = new Set([
  'actions',
  'context',
  'divider',
  'file',
  'header',
  'image',
  'input',
  'markdown',
  'rich_text',
  'section',
  'table',
  'video',
]);
const SELECTS_WITH_OPTIONS = new Set(['static_select', 'multi_static_select']);
const OPTION_LISTS = new Set(['checkboxes', 'radio_buttons', 'overflow']);

/** Problems of a list of blocks on a surface: a message (50 blocks) or a modal or Home tab (100). */
export function blockProblems(blocks: unknown, surface: 'message' | 'view', at = '/blocks'): string[] {
  const found: string[] = [];
  const problem = (pointer: string, sentence: string) =>
    found.push(`[ERROR] ${sentence} [json-pointer:${pointer}]`);
  if (!Array.isArray(blocks)) {
    problem(at, 'must be an array');
    return found;
  }
  const maxBlocks = surface === 'message' ? 50 : 100;
  if (blocks.length > maxBlocks) problem(at, `no more than ${maxBlocks} items allowed`);
  const blockIds = new Set<string>();
  blocks.forEach((block: Json, index: number) => {
    const here = `${at}/${index}`;
    if (!block || typeof block !== 'object' || typeof block.type !== 'string') {
      problem(here, 'must be a block object with a type');
      return;
    }
    if (!BLOCK_TYPES.has(block.type)) problem(`${here}/type`, `unknown block type ${block.type}`);
    if (block.block_id !== undefined) {
      const id = String(block.block_id);
      maxLength(problem, `${here}/block_id`, id, 255);
      if (blockIds.has(id)) problem(`${here}/block_id`, `duplicate block_id ${id}`);
      blockIds.add(id);
    }
    checkBlock(problem, here, block);
  });
  return found;
}

/** Problems of a modal or Home view: its blocks, title, buttons, metadata and ids. */
export function viewProblems(view: Json): string[] {
  if (!view || typeof view !== 'object') return ['[ERROR] must be a view object [json-pointer:/view]'];
  const found = blockProblems(view.blocks, 'view', '/view/blocks');
  const problem = (pointer: string, sentence: string) =>
    found.push(`[ERROR] ${sentence} [json-pointer:${pointer}]`);
  if (view.type !== 'modal' && view.type !== 'home') problem('/view/type', 'must be modal or home');
  if (view.type === 'modal') {
    textObject(problem, '/view/title', view.title, 24, { plainOnly: true });
    if (view.submit !== undefined) textObject(problem, '/view/submit', view.submit, 24, { plainOnly: true });
    if (view.close !== undefined) textObject(problem, '/view/close', view.close, 24, { plainOnly: true });
    // A modal with an input needs a submit button to send it.
    if (view.submit === undefined && (view.blocks ?? []).some((block: Json) => block?.type === 'input'))
      problem('/view/submit', 'a modal with input blocks must have a submit button');
  }
  if (view.private_metadata !== undefined)
    maxLength(problem, '/view/private_metadata', view.private_metadata, 3000);
  if (view.callback_id !== undefined) maxLength(problem, '/view/callback_id', view.callback_id, 255);
  if (view.external_id !== undefined) maxLength(problem, '/view/external_id', view.external_id, 255);
  return found;
}

type Problem = (pointer: string, sentence: string) => void;

function maxLength(problem: Problem, pointer: string, value: unknown, max: number): void {
  if (typeof value !== 'string') problem(pointer, 'must be a string');
  else if (value.length > max) problem(pointer, `must be less than ${max + 1} characters`);
}

/**
 * A button's address: at most `max` characters, and one a browser opens. Refused here beyond what
 * Slack's documentation says (a `javascript:` or `data:` address in a button is either refused by
 * Slack or drawn as a link nobody should follow): the app must never send one either way.
 */
function webAddress(problem: Problem, pointer: string, value: unknown, max: number): void {
  maxLength(problem, pointer, value, max);
  if (typeof value === 'string' && !(/^https?:\/\//i.test(value) && URL.canParse(value)))
    problem(pointer, 'must be an http(s) URL');
}

/** A text object: `plain_text` or `mrkdwn`, with 1 to `max` characters. */
function textObject(
  problem: Problem,
  pointer: string,
  text: Json,
  max: number,
  options: { plainOnly?: boolean } = {},
): void {
  if (!text || typeof text !== 'object') {
    problem(pointer, 'must be a text object');
    return;
  }
  if (text.type !== 'plain_text' && (options.plainOnly || text.type !== 'mrkdwn'))
    problem(`${pointer}/type`, options.plainOnly ? 'must be plain_text' : 'must be plain_text or mrkdwn');
  if (typeof text.text !== 'string') problem(`${pointer}/text`, 'must be a string');
  else if (text.text.length === 0) problem(`${pointer}/text`, 'must be more than 0 characters');
  else if (text.text.length > max) problem(`${pointer}/text`, `must be less than ${max + 1} characters`);
}

function checkBlock(problem: Problem, here: string, block: Json): void {
  switch (block.type) {
    case 'header':
      textObject(problem, `${here}/text`, block.text, 150, { plainOnly: true });
      break;
    case 'section':
      if (block.text === undefined && block.fields === undefined)
        problem(here, 'must provide either text or fields');
      if (block.text !== undefined) textObject(problem, `${here}/text`, block.text, 3000);
      if (block.fields !== undefined) {
        if (!Array.isArray(block.fields)) problem(`${here}/fields`, 'must be an array');
        else {
          if (block.fields.length > 10) problem(`${here}/fields`, 'no more than 10 items allowed');
          block.fields.forEach((field: Json, index: number) => {
            textObject(problem, `${here}/fields/${index}`, field, 2000);
          });
        }
      }
      if (block.accessory !== undefined) checkElement(problem, `${here}/accessory`, block.accessory);
      break;
    case 'context':
      if (!Array.isArray(block.elements) || block.elements.length === 0)
        problem(`${here}/elements`, 'must have at least 1 item');
      else {
        if (block.elements.length > 10) problem(`${here}/elements`, 'no more than 10 items allowed');
        block.elements.forEach((element: Json, index: number) => {
          if (element?.type === 'image') checkImage(problem, `${here}/elements/${index}`, element);
          else textObject(problem, `${here}/elements/${index}`, element, 3000);
        });
      }
      break;
    case 'actions': {
      if (!Array.isArray(block.elements) || block.elements.length === 0) {
        problem(`${here}/elements`, 'must have at least 1 item');
        break;
      }
      if (block.elements.length > 25) problem(`${here}/elements`, 'no more than 25 items allowed');
      const actionIds = new Set<string>();
      block.elements.forEach((element: Json, index: number) => {
        checkElement(problem, `${here}/elements/${index}`, element);
        if (typeof element?.action_id === 'string') {
          if (actionIds.has(element.action_id))
            problem(`${here}/elements/${index}/action_id`, `duplicate action_id ${element.action_id}`);
          actionIds.add(element.action_id);
        }
      });
      break;
    }
    case 'input':
      textObject(problem, `${here}/label`, block.label, 2000, { plainOnly: true });
      if (block.hint !== undefined)
        textObject(problem, `${here}/hint`, block.hint, 2000, { plainOnly: true });
      if (!block.element) problem(`${here}/element`, 'is required');
      else checkElement(problem, `${here}/element`, block.element);
      break;
    case 'image':
      checkImage(problem, here, block);
      if (block.title !== undefined)
        textObject(problem, `${here}/title`, block.title, 2000, { plainOnly: true });
      break;
    default:
      break;
  }
}

function checkImage(problem: Problem, here: string, image: Json): void {
  if (image.image_url !== undefined) maxLength(problem, `${here}/image_url`, image.image_url, 3000);
  else if (image.slack_file === undefined) problem(`${here}/image_url`, 'is required');
  maxLength(problem, `${here}/alt_text`, image.alt_text, 2000);
}

/** An interactive element: its ids, texts, options and confirm dialog. */
function checkElement(problem: Problem, here: string, element: Json): void {
  if (!element || typeof element !== 'object' || typeof element.type !== 'string') {
    problem(here, 'must be an element object with a type');
    return;
  }
  if (element.action_id !== undefined) maxLength(problem, `${here}/action_id`, element.action_id, 255);
  if (element.placeholder !== undefined)
    textObject(problem, `${here}/placeholder`, element.placeholder, 150, { plainOnly: true });
  if (element.confirm !== undefined) checkConfirm(problem, `${here}/confirm`, element.confirm);
  switch (element.type) {
    case 'button':
      textObject(problem, `${here}/text`, element.text, 75, { plainOnly: true });
      if (element.value !== undefined) maxLength(problem, `${here}/value`, element.value, 2000);
      if (element.url !== undefined) webAddress(problem, `${here}/url`, element.url, 3000);
      if (element.style !== undefined && element.style !== 'primary' && element.style !== 'danger')
        problem(`${here}/style`, 'must be primary or danger');
      break;
    case 'image':
      checkImage(problem, here, element);
      break;
    case 'plain_text_input':
      for (const bound of ['max_length', 'min_length'] as const) {
        const value = element[bound];
        if (value !== undefined && (!Number.isInteger(value) || value < 0 || value > 3000))
          problem(`${here}/${bound}`, 'must be a whole number from 0 to 3000');
      }
      if (element.initial_value !== undefined && typeof element.initial_value !== 'string')
        problem(`${here}/initial_value`, 'must be a string');
      break;
    default:
      if (SELECTS_WITH_OPTIONS.has(element.type)) checkSelect(problem, here, element);
      else if (OPTION_LISTS.has(element.type)) {
        const max = element.type === 'overflow' ? 5 : 10;
        checkOptions(problem, `${here}/options`, element.options, 1, max);
      }
  }
}

function checkSelect(problem: Problem, here: string, element: Json): void {
  if (element.options !== undefined && element.option_groups !== undefined)
    problem(here, 'must provide options or option_groups, not both');
  if (element.option_groups !== undefined) {
    if (!Array.isArray(element.option_groups) || element.option_groups.length === 0)
      problem(`${here}/option_groups`, 'must have at least 1 item');
    else {
      if (element.option_groups.length > 100)
        problem(`${here}/option_groups`, 'no more than 100 items allowed');
      element.option_groups.forEach((group: Json, index: number) => {
        textObject(problem, `${here}/option_groups/${index}/label`, group?.label, 75, { plainOnly: true });
        checkOptions(problem, `${here}/option_groups/${index}/options`, group?.options, 1, 100);
      });
    }
  } else checkOptions(problem, `${here}/options`, element.options, 1, 100);
}

function checkOptions(problem: Problem, here: string, options: Json, min: number, max: number): void {
  if (!Array.isArray(options)) {
    problem(here, 'must be an array');
    return;
  }
  if (options.length < min) problem(here, `must have at least ${min} item`);
  if (options.length > max) problem(here, `no more than ${max} items allowed`);
  options.forEach((option: Json, index: number) => {
    textObject(problem, `${here}/${index}/text`, option?.text, 75);
    maxLength(problem, `${here}/${index}/value`, option?.value, 150);
    if (option?.description !== undefined)
      textObject(problem, `${here}/${index}/description`, option.description, 75);
  });
}

function checkConfirm(problem: Problem, here: string, confirm: Json): void {
  textObject(problem, `${here}/title`, confirm?.title, 100, { plainOnly: true });
  textObject(problem, `${here}/text`, confirm?.text, 300);
  textObject(problem, `${here}/confirm`, confirm?.confirm, 30, { plainOnly: true });
  textObject(problem, `${here}/deny`, confirm?.deny, 30, { plainOnly: true });
}

/**
 * Why Slack would refuse a message's text and blocks, as the error it answers, or null: `no_text`
 * (neither), `msg_too_long` (text over 40,000 characters, or blocks far over a message's size),
 * `invalid_blocks` (a block breaking the limits). `messages` are the problems found.
 */
export function messageRefusal(
  text: unknown,
  blocks: unknown,
  options: { needsContent?: boolean } = {},
): { error: 'no_text' | 'msg_too_long' | 'invalid_blocks'; messages: string[] } | null {
  const hasText = typeof text === 'string' && text.length > 0;
  const hasBlocks = Array.isArray(blocks) && blocks.length > 0;
  if ((options.needsContent ?? true) && !hasText && !hasBlocks) return { error: 'no_text', messages: [] };
  if (typeof text === 'string' && text.length > MAX_TEXT_CHARACTERS)
    return { error: 'msg_too_long', messages: [`[ERROR] text is ${text.length} characters`] };
  if (blocks === undefined) return null;
  if (JSON.stringify(blocks).length > MAX_MESSAGE_BLOCKS_JSON)
    return { error: 'msg_too_long', messages: ['[ERROR] the blocks are too long for one message'] };
  const problems = blockProblems(blocks, 'message');
  return problems.length > 0 ? { error: 'invalid_blocks', messages: problems } : null;
}
