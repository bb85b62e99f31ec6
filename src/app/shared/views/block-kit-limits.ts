/**
 * Slack's Block Kit limits (../shared/SLACK.md), checked by one validator that the tests run over
 * every payload the app sends. Returns the problems found; an empty list means the payload fits.
 */
export type Surface = 'message' | 'modal' | 'home';

// biome-ignore lint/suspicious/noExplicitAny: walks loose Block Kit JSON of any shape.
type Json = any;

const MAX_BLOCKS: Record<Surface, number> = { message: 50, modal: 100, home: 100 };
const MAX_MESSAGE_JSON = 12_000;

export function blockKitProblems(blocks: Json[], surface: Surface): string[] {
  const problems: string[] = [];
  const check = (condition: boolean, problem: string) => {
    if (!condition) problems.push(problem);
  };
  check(Array.isArray(blocks), 'blocks must be an array');
  if (!Array.isArray(blocks)) return problems;
  check(
    blocks.length <= MAX_BLOCKS[surface],
    `${blocks.length} blocks, over the ${MAX_BLOCKS[surface]} a ${surface} allows`,
  );
  if (surface === 'message') {
    const size = JSON.stringify(blocks).length;
    check(size <= MAX_MESSAGE_JSON, `the blocks' JSON is ${size} characters, over ${MAX_MESSAGE_JSON}`);
  }
  blocks.forEach((block, index) => {
    const at = `blocks[${index}] (${block?.type})`;
    if (block.block_id !== undefined) check(String(block.block_id).length <= 255, `${at}: block_id over 255`);
    switch (block.type) {
      case 'header':
        check(block.text?.type === 'plain_text', `${at}: header text must be plain_text`);
        check((block.text?.text ?? '').length <= 150, `${at}: header text over 150`);
        break;
      case 'section':
        check(
          block.text !== undefined || Array.isArray(block.fields),
          `${at}: a section needs text or fields`,
        );
        if (block.text) checkText(block.text, 3000, `${at}.text`, check);
        if (block.fields) {
          check(block.fields.length <= 10, `${at}: over 10 fields`);
          block.fields.forEach((field: Json, n: number) => {
            checkText(field, 2000, `${at}.fields[${n}]`, check);
          });
        }
        if (block.accessory) checkElement(block.accessory, `${at}.accessory`, check);
        break;
      case 'context':
        check(
          Array.isArray(block.elements) && block.elements.length >= 1 && block.elements.length <= 10,
          `${at}: 1 to 10 elements`,
        );
        for (const element of block.elements ?? [])
          if (element.type !== 'image') checkText(element, 3000, `${at} element`, check);
        break;
      case 'actions':
        check(
          Array.isArray(block.elements) && block.elements.length >= 1 && block.elements.length <= 25,
          `${at}: 1 to 25 elements`,
        );
        for (const element of block.elements ?? []) checkElement(element, at, check);
        break;
      case 'input':
        check(surface !== 'message', `${at}: input blocks belong in modals and Home tabs`);
        checkText(block.label, 2000, `${at}.label`, check);
        if (block.element) checkElement(block.element, `${at}.element`, check);
        break;
      case 'divider':
      case 'image':
        break;
      default:
        problems.push(`${at}: a block type the app does not use`);
    }
  });
  return problems;
}

/** Problems of a modal or Home view: its blocks, title, buttons and private metadata. */
export function viewProblems(view: Json): string[] {
  const surface: Surface = view?.type === 'home' ? 'home' : 'modal';
  const problems = blockKitProblems(view?.blocks ?? [], surface);
  if (surface === 'modal') {
    for (const part of ['title', 'submit', 'close'] as const) {
      if (view[part]) {
        if (view[part].type !== 'plain_text') problems.push(`view.${part} must be plain_text`);
        if ((view[part].text ?? '').length > 24) problems.push(`view.${part} over 24 characters`);
      }
    }
    if (!view.title) problems.push('a modal needs a title');
  }
  if ((view?.private_metadata ?? '').length > 3000) problems.push('private_metadata over 3000 characters');
  if (view?.callback_id && String(view.callback_id).length > 255) problems.push('callback_id over 255');
  return problems;
}

function checkText(
  text: Json,
  max: number,
  at: string,
  check: (condition: boolean, problem: string) => void,
) {
  check(
    text && (text.type === 'mrkdwn' || text.type === 'plain_text'),
    `${at}: a text object needs type mrkdwn or plain_text`,
  );
  check(typeof text?.text === 'string' && text.text.length >= 1, `${at}: empty text`);
  check((text?.text ?? '').length <= max, `${at}: text over ${max}`);
}

function checkElement(element: Json, at: string, check: (condition: boolean, problem: string) => void) {
  if (element.action_id !== undefined)
    check(String(element.action_id).length <= 255, `${at}: action_id over 255`);
  switch (element.type) {
    case 'button':
      check(
        element.text?.type === 'plain_text' && (element.text.text ?? '').length <= 75,
        `${at}: button text over 75`,
      );
      check((element.value ?? '').length <= 2000, `${at}: button value over 2000`);
      check((element.url ?? '').length <= 3000, `${at}: button url over 3000`);
      if (element.style)
        check(['primary', 'danger'].includes(element.style), `${at}: button style ${element.style}`);
      if (element.confirm) checkConfirm(element.confirm, at, check);
      break;
    case 'static_select':
      check((element.options ?? []).length <= 100, `${at}: over 100 options`);
      for (const option of element.options ?? []) {
        check((option.text?.text ?? '').length <= 75, `${at}: option text over 75`);
        check((option.value ?? '').length <= 150, `${at}: option value over 150`);
      }
      break;
    case 'external_select':
      // Its options come from the options load URL (at most 100, checked where they are answered).
      check(element.options === undefined, `${at}: an external select lists no options of its own`);
      if (element.initial_option) {
        check((element.initial_option.text?.text ?? '').length <= 75, `${at}: option text over 75`);
        check((element.initial_option.value ?? '').length <= 150, `${at}: option value over 150`);
      }
      if (element.min_query_length !== undefined)
        check(
          Number.isInteger(element.min_query_length) && element.min_query_length >= 0,
          `${at}: min_query_length`,
        );
      break;
    case 'overflow':
      check((element.options ?? []).length <= 5, `${at}: an overflow menu holds 5 options`);
      break;
    case 'plain_text_input':
      if (element.max_length !== undefined) check(element.max_length <= 3000, `${at}: max_length over 3000`);
      break;
    case 'datepicker':
    case 'image':
      break;
    default:
      check(false, `${at}: an element type the app does not use (${element.type})`);
  }
}

function checkConfirm(confirm: Json, at: string, check: (condition: boolean, problem: string) => void) {
  check((confirm.title?.text ?? '').length <= 100, `${at}: confirm title over 100`);
  check((confirm.text?.text ?? '').length <= 300, `${at}: confirm text over 300`);
  check(
    (confirm.confirm?.text ?? '').length <= 30 && (confirm.deny?.text ?? '').length <= 30,
    `${at}: confirm buttons over 30`,
  );
}

/** Slack's room: 100 options in a select, 75 characters of option text, 150 of value. */
export const OPTIONS_MAX = 100;
