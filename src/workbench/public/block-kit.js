// Renders the Block Kit the app uses, and Slack's mrkdwn, into the workbench page.
// Plain browser JavaScript (an ES module served as is), so the page needs no build step.

const ENTITY = { '&lt;': '<', '&gt;': '>', '&amp;': '&' };

// Emoji shortcodes as Slack draws them: every one the app's messages use (test/workbench/
// workbench-routes.test.ts reads src/app for them) and common ones people type. Any other
// `:name:` stays as typed, as Slack leaves a shortcode it does not know.
export const EMOJI = {
  // What the app sends.
  warning: '⚠️',
  white_circle: '⚪',
  large_blue_circle: '🔵',
  red_circle: '🔴',
  white_check_mark: '✅',
  bookmark: '🔖',
  calendar: '📅',
  mag: '🔍',
  hourglass: '⌛',
  incoming_envelope: '📨',
  hourglass_flowing_sand: '⏳',
  double_vertical_bar: '⏸️',
  dart: '🎯',
  bar_chart: '📊',
  // Common ones.
  x: '❌',
  speech_balloon: '💬',
  memo: '📝',
  pushpin: '📌',
  tada: '🎉',
  '+1': '👍',
  thumbsup: '👍',
  '-1': '👎',
  thumbsdown: '👎',
  eyes: '👀',
  wave: '👋',
  pray: '🙏',
  raised_hands: '🙌',
  clap: '👏',
  muscle: '💪',
  ok_hand: '👌',
  point_right: '👉',
  smile: '😄',
  slightly_smiling_face: '🙂',
  thinking_face: '🤔',
  joy: '😂',
  heart: '❤️',
  fire: '🔥',
  rocket: '🚀',
  sparkles: '✨',
  star: '⭐',
  zap: '⚡',
  bulb: '💡',
  bell: '🔔',
  link: '🔗',
  lock: '🔒',
  key: '🔑',
  email: '📧',
  envelope: '✉️',
  inbox_tray: '📥',
  outbox_tray: '📤',
  clipboard: '📋',
  page_facing_up: '📄',
  file_folder: '📁',
  chart_with_upwards_trend: '📈',
  chart_with_downwards_trend: '📉',
  moneybag: '💰',
  pound: '💷',
  euro: '💶',
  dollar: '💵',
  heavy_check_mark: '✔️',
  heavy_plus_sign: '➕',
  heavy_minus_sign: '➖',
  no_entry: '⛔',
  no_entry_sign: '🚫',
  information_source: 'ℹ️',
  question: '❓',
  exclamation: '❗',
  arrow_right: '➡️',
  arrow_left: '⬅️',
  hammer_and_wrench: '🛠️',
  gear: '⚙️',
  handshake: '🤝',
  trophy: '🏆',
  clock1: '🕐',
  alarm_clock: '⏰',
  spiral_calendar_pad: '🗓️',
  date: '📅',
  large_green_circle: '🟢',
  large_yellow_circle: '🟡',
  large_orange_circle: '🟠',
};

/** HTML-escapes text for innerHTML. */
export function escapeHtml(text) {
  return String(text ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c],
  );
}

/**
 * Slack mrkdwn to safe HTML: `<…>` sequences (mentions, links) come out first, then the entities
 * Slack escapes (&lt; &gt; &amp;) are decoded and the whole is HTML-escaped before formatting,
 * so an escaped `&lt;!channel&gt;` shows as text and notifies nobody.
 */
export function renderMrkdwn(raw, context) {
  const controls = [];
  let text = String(raw ?? '').replace(/<([^<>\n]+)>/g, (_, inner) => {
    controls.push(inner);
    return `\uE000${controls.length - 1}\uE001`;
  });
  text = escapeHtml(text.replace(/&lt;|&gt;|&amp;/g, (entity) => ENTITY[entity]));
  // Code is shown as written, as Slack shows it: no bold, italic, strike or emoji inside, and its
  // marks never pair with marks outside it. Set aside until the rest is formatted.
  const codes = [];
  const setAside = (html) => {
    codes.push(html);
    return `\uE002${codes.length - 1}\uE003`;
  };
  text = text.replace(/```([\s\S]+?)```/g, (_, code) => setAside(`<pre>${code}</pre>`));
  text = text.replace(/`([^`\n]+)`/g, (_, code) => setAside(`<code>${code}</code>`));
  const around = (mark) =>
    new RegExp(
      `(^|[\\s(>\\uE001\\uE003])\\${mark}([^${mark}\\n]+)\\${mark}(?=$|[\\s).,!?:;<\\uE000\\uE002])`,
      'g',
    );
  text = text.replace(around('*'), '$1<b>$2</b>');
  text = text.replace(around('_'), '$1<i>$2</i>');
  text = text.replace(around('~'), '$1<s>$2</s>');
  text = text.replace(/:([a-z0-9_+-]+):/g, (whole, name) =>
    Object.hasOwn(EMOJI, name) ? EMOJI[name] : whole,
  );
  text = text.replace(/\uE002(\d+)\uE003/g, (_, index) => codes[Number(index)]);
  text = text.replace(/\n/g, '<br>');
  return text.replace(/\uE000(\d+)\uE001/g, (_, index) => renderControl(controls[Number(index)], context));
}

function renderControl(inner, context) {
  // The app escapes `&`, `<` and `>` inside a link's address and label as everywhere (`&amp;`):
  // drawn as the characters, as Slack draws them, not as the entity's letters.
  const bar = inner.indexOf('|');
  const decoded = (part) => part.replace(/&lt;|&gt;|&amp;/g, (entity) => ENTITY[entity]);
  const target = decoded(bar === -1 ? inner : inner.slice(0, bar));
  const label = bar === -1 ? undefined : decoded(inner.slice(bar + 1));
  if (target.startsWith('@')) {
    const id = target.slice(1);
    return `<span class="mention">@${escapeHtml(label ?? context.names?.[id] ?? id)}</span>`;
  }
  if (target.startsWith('#')) {
    const id = target.slice(1);
    return `<span class="mention">#${escapeHtml(label ?? context.channelNames?.[id] ?? id)}</span>`;
  }
  if (target.startsWith('!date^')) return escapeHtml(slackDate(target, label));
  if (target.startsWith('!')) {
    const special = target.slice(1).split('^')[0];
    return `<span class="mention">${escapeHtml(label ?? `@${special}`)}</span>`;
  }
  if (/^(https?:|mailto:)/.test(target)) {
    return `<a href="${escapeHtml(target)}" target="_blank" rel="noopener noreferrer">${escapeHtml(label ?? target)}</a>`;
  }
  return escapeHtml(decoded(inner));
}

/**
 * Slack's date token `!date^seconds^tokens` in the reader's own zone (the browser's, as Slack's
 * client uses the person's): `{date_short} at {time}` reads `Dec 2, 2026 at 1:00 PM`. A token that
 * is not a date shows its fallback, as Slack shows it.
 */
function slackDate(target, fallback) {
  const [, seconds, tokens] = target.split('^');
  const date = new Date(Number(seconds) * 1000);
  if (!/^\d+$/.test(seconds ?? '') || Number.isNaN(date.getTime()) || !tokens) return fallback ?? target;
  const format = (options) => new Intl.DateTimeFormat('en-US', options).format(date);
  const dayOf = (when) => new Intl.DateTimeFormat('en-CA').format(when);
  const pretty = (plain) => {
    const today = Date.now();
    const offset = {
      [dayOf(today)]: 'today',
      [dayOf(today - 86_400_000)]: 'yesterday',
      [dayOf(today + 86_400_000)]: 'tomorrow',
    };
    return offset[dayOf(date)] ?? plain;
  };
  const ordinal = (day) =>
    `${day}${[11, 12, 13].includes(day % 100) ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' }[day % 10] ?? 'th')}`;
  const long = () =>
    `${format({ month: 'long' })} ${ordinal(Number(format({ day: 'numeric' })))}, ${format({ year: 'numeric' })}`;
  const words = {
    date_num: () => dayOf(date),
    date_slash: () => format({ month: '2-digit', day: '2-digit', year: 'numeric' }),
    date_short: () => format({ month: 'short', day: 'numeric', year: 'numeric' }),
    date: long,
    date_long: () => `${format({ weekday: 'long' })}, ${long()}`,
    date_long_full: () => `${format({ weekday: 'long' })}, ${long()}`,
    date_short_pretty: () => pretty(words.date_short()),
    date_pretty: () => pretty(long()),
    date_long_pretty: () => pretty(words.date_long()),
    time: () => format({ hour: 'numeric', minute: '2-digit' }),
    time_secs: () => format({ hour: 'numeric', minute: '2-digit', second: '2-digit' }),
  };
  // Each token drawn once however often it is repeated (a formatter costs a fraction of a millisecond).
  const drawn = new Map();
  return tokens.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!Object.hasOwn(words, name)) return whole;
    if (!drawn.has(name)) drawn.set(name, words[name]());
    return drawn.get(name);
  });
}

function textHtml(text, context) {
  if (!text) return '';
  return text.type === 'mrkdwn' ? renderMrkdwn(text.text, context) : escapeHtml(text.text);
}

function element(tag, className, html) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (html !== undefined) node.innerHTML = html;
  return node;
}

/**
 * Blocks to DOM. `context.onAction(element, blockId, extra)` is called for interactive elements
 * in messages and Home tabs; in a modal, inputs only collect values (`data-action-id`).
 */
export function renderBlocks(blocks, context) {
  const container = element('div', 'blocks');
  for (const block of blocks ?? []) container.append(renderBlock(block, context));
  return container;
}

function renderBlock(block, context) {
  switch (block.type) {
    case 'header':
      return element('h3', 'bk-header', escapeHtml(block.text?.text));
    case 'divider':
      return element('hr', 'bk-divider');
    case 'image': {
      const image = element('img', 'bk-image');
      image.src = block.image_url;
      image.alt = block.alt_text ?? '';
      return image;
    }
    case 'context': {
      const node = element('div', 'bk-context');
      for (const item of block.elements ?? []) {
        if (item.type === 'image') {
          const image = element('img', 'bk-context-image');
          image.src = item.image_url;
          image.alt = item.alt_text ?? '';
          node.append(image);
        } else node.append(element('span', '', textHtml(item, context)));
      }
      return node;
    }
    case 'section': {
      const node = element('div', 'bk-section');
      const body = element('div', 'bk-section-body');
      if (block.text) body.append(element('div', 'bk-text', textHtml(block.text, context)));
      if (block.fields) {
        const fields = element('div', 'bk-fields');
        for (const field of block.fields) fields.append(element('div', 'bk-field', textHtml(field, context)));
        body.append(fields);
      }
      node.append(body);
      if (block.accessory) node.append(renderElement(block.accessory, block.block_id, context));
      return node;
    }
    case 'actions': {
      const node = element('div', 'bk-actions');
      for (const item of block.elements ?? []) node.append(renderElement(item, block.block_id, context));
      return node;
    }
    case 'input': {
      const node = element('div', 'bk-input');
      node.dataset.blockId = block.block_id ?? '';
      const label = element(
        'label',
        'bk-label',
        `${escapeHtml(block.label?.text)}${block.optional ? ' <span class="optional">(optional)</span>' : ''}`,
      );
      node.append(label, renderElement(block.element, block.block_id, { ...context, collectOnly: true }));
      if (block.hint) node.append(element('div', 'bk-hint', escapeHtml(block.hint.text)));
      const error = context.errors?.[block.block_id];
      if (error) node.append(element('div', 'bk-error', escapeHtml(error)));
      return node;
    }
    default:
      return element('div', 'bk-unknown', `Unsupported block: ${escapeHtml(block.type)}`);
  }
}

/**
 * An external select: a box to type in and the options the app suggests for what is typed
 * (`context.onSuggest(item, typed)` answers `{ options, option_groups }`), once at least
 * `min_query_length` characters (Slack's default: 3) are typed.
 */
function renderExternalSelect(item, blockId, context) {
  const wrap = element('div', 'bk-external');
  const search = element('input', 'bk-external-search');
  search.type = 'search';
  search.placeholder = item.placeholder?.text ?? 'Type to search…';
  search.setAttribute('aria-label', item.placeholder?.text ?? 'Type to search');
  const select = element('select', 'bk-select external_select');
  select.dataset.actionId = item.action_id ?? '';
  const reset = (options) => {
    select.replaceChildren(
      new Option(options.length ? 'Choose…' : 'No matches yet', '', true, !item.initial_option),
    );
    if (item.initial_option && !options.some((option) => option.value === item.initial_option.value))
      select.append(
        new Option(
          item.initial_option.text?.text ?? item.initial_option.value,
          item.initial_option.value,
          false,
          true,
        ),
      );
    for (const option of options) select.append(new Option(option.text?.text ?? option.value, option.value));
  };
  reset([]);
  const minimum = item.min_query_length ?? 3;
  let asked = 0;
  search.addEventListener('input', async () => {
    const typed = search.value;
    if (typed.length < minimum || !context.onSuggest) return;
    const number = ++asked;
    const answer = await context.onSuggest(item, typed);
    // Only the answer to what was typed last counts.
    if (number !== asked) return;
    const groups = (answer?.option_groups ?? []).flatMap((group) => group.options ?? []);
    reset([...(answer?.options ?? []), ...groups]);
    if (select.options.length > 1) select.size = Math.min(select.options.length, 6);
  });
  if (!context.collectOnly)
    select.addEventListener('change', () => sendOption(select, item, blockId, context));
  wrap.append(search, select);
  return wrap;
}

/**
 * Sends a choice made in a message (a menu, a date), then shows the message's own choice again: the
 * app answers by updating the message (drawn anew) or by refusing, and a refused choice left showing
 * would be a state the card is not in, which choosing again could not send (no change event).
 */
async function sendChoice(field, item, blockId, context, extra, shown) {
  // A click the page could not send is the poll's to show; it is not an error of the page.
  await Promise.resolve(context.onAction?.(item, blockId, extra)).catch(() => undefined);
  field.value = shown;
}

/** A menu's choice sent: an overflow shows its dots again, a select the message's own option. */
function sendOption(select, item, blockId, context) {
  if (!select.value) return;
  const shown = item.type === 'overflow' ? '' : (item.initial_option?.value ?? '');
  return sendChoice(select, item, blockId, context, { selectedOption: select.value }, shown);
}

function withConfirm(item, act) {
  return () => {
    if (item.confirm) {
      const { title, text, confirm, deny } = item.confirm;
      const message = `${title?.text ?? 'Are you sure?'}\n\n${text?.text ?? ''}\n\n[${confirm?.text ?? 'Yes'}] / [${deny?.text ?? 'Cancel'}]`;
      if (!window.confirm(message)) return;
    }
    act();
  };
}

function renderElement(item, blockId, context) {
  switch (item.type) {
    case 'button': {
      const button = element('button', `bk-button ${item.style ?? ''}`.trim(), escapeHtml(item.text?.text));
      button.type = 'button';
      button.dataset.actionId = item.action_id ?? '';
      button.addEventListener(
        'click',
        withConfirm(item, () => {
          if (item.url) window.open(item.url, '_blank', 'noopener');
          context.onAction?.(item, blockId, { value: item.value });
        }),
      );
      if (item.url) button.title = item.url;
      return button;
    }
    case 'static_select':
    case 'overflow': {
      const select = element('select', `bk-select ${item.type}`);
      select.dataset.actionId = item.action_id ?? '';
      const placeholder = item.type === 'overflow' ? '⋯' : (item.placeholder?.text ?? 'Choose…');
      // Shown while nothing is chosen, never among the choices, as Slack draws a placeholder: a
      // select whose first option reads as its placeholder ("Any region") shows it once.
      const empty = new Option(placeholder, '', true, !item.initial_option);
      empty.disabled = true;
      empty.hidden = true;
      select.append(empty);
      for (const option of item.options ?? []) {
        select.append(
          new Option(
            option.text?.text ?? option.value,
            option.value,
            false,
            item.initial_option?.value === option.value,
          ),
        );
      }
      if (!context.collectOnly)
        select.addEventListener('change', () => sendOption(select, item, blockId, context));
      return select;
    }
    case 'external_select':
      return renderExternalSelect(item, blockId, context);
    case 'datepicker': {
      const input = element('input', 'bk-datepicker');
      input.type = 'date';
      input.value = item.initial_date ?? '';
      input.dataset.actionId = item.action_id ?? '';
      if (!context.collectOnly)
        input.addEventListener('change', () =>
          sendChoice(input, item, blockId, context, { value: input.value }, item.initial_date ?? ''),
        );
      return input;
    }
    case 'plain_text_input': {
      const input = element(item.multiline ? 'textarea' : 'input', 'bk-text-input');
      input.dataset.actionId = item.action_id ?? '';
      input.placeholder = item.placeholder?.text ?? '';
      if (item.max_length) input.maxLength = item.max_length;
      if (item.initial_value) input.value = item.initial_value;
      return input;
    }
    case 'image': {
      const image = element('img', 'bk-accessory-image');
      image.src = item.image_url;
      image.alt = item.alt_text ?? '';
      return image;
    }
    default:
      return element('span', 'bk-unknown', `Unsupported element: ${escapeHtml(item.type)}`);
  }
}
