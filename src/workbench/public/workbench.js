// The workbench page: a Slack-like workspace on the fake Slack, for trying Tenderbot without Slack.
import { escapeHtml, renderBlocks, renderMrkdwn } from './block-kit.js';
import { messageMenu, timeOf, unfurlCard } from './message-parts.js';

const $ = (selector) => document.querySelector(selector);
// The workspace shown (`?team=`; the fake Slack's first when not said): each remembers its own person and channel.
let team = new URLSearchParams(location.search).get('team') ?? '';
const remembered = (name) => (team ? `workbench.${name}.${team}` : `workbench.${name}`);
const page = {
  team,
  user: localStorage.getItem(remembered('user')) ?? 'U0ADMIN',
  channel: localStorage.getItem(remembered('channel')) ?? '',
  // 'channel', 'home' (the app's Home tab) or 'dm' (the app's Messages tab: a conversation).
  tab: 'channel',
  state: null,
  drawn: { messages: '', home: '', modal: '', header: '', shortcuts: '', channels: '' },
  modalErrors: {},
  // The id of the modal the person closed last (view ids are never reused).
  closedModal: null,
  // The messages of the conversation drawn last, by ts: what is new at the next draw.
  seen: { channel: null, ts: new Set() },
};

async function api(path, body) {
  const response = await fetch(
    path,
    body
      ? {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ team: page.team, user: page.user, ...body }),
        }
      : {},
  );
  return response.json();
}

/** The conversation shown: a channel, or the person's direct messages with the app. */
function shownChannel() {
  return page.tab === 'dm' ? `D${page.user}` : page.channel;
}

let asked = 0;
let drawnAnswer = 0;

async function refresh() {
  const number = ++asked;
  const askedAs = page.user;
  const askedFor = shownChannel();
  const state = await api(
    `/workbench/state?team=${encodeURIComponent(page.team)}&user=${encodeURIComponent(askedAs)}&channel=${encodeURIComponent(shownChannel())}`,
  );
  // An address naming a workspace that is no longer here (a bookmark from another start) shows
  // the first one: the address says so, so that a reload or a bookmark keeps to it.
  if (state.team && page.team && state.team.id !== page.team) {
    page.team = state.team.id;
    team = page.team;
    history.replaceState(null, '', `?team=${encodeURIComponent(page.team)}`);
  }
  // A person remembered from another workspace: the page now acts as whom the state shows
  // (unless the person was switched meanwhile).
  if (state.me && state.me.id !== askedAs && page.user === askedAs) {
    page.user = state.me.id;
    localStorage.setItem(remembered('user'), page.user);
  }
  // An answer older than the one drawn already is dropped: the page never goes back in time.
  if (state.error || number < drawnAnswer) return;
  // Asked for another conversation than the one chosen since (a click while a poll was out): the
  // answer for the chosen one is on its way. Drawn, this one took the page back to the old
  // channel, and the next poll asked for that one: the click was lost.
  if (askedFor !== shownChannel()) return;
  // Asked as another person than the one chosen since: the same, for a person switch.
  if (askedAs !== page.user && state.me?.id !== page.user) return;
  drawnAnswer = number;
  page.state = state;
  if (page.tab !== 'dm') page.channel = state.channel;
  draw();
}

/**
 * The channel list, drawn again only when it changed (a channel added, renamed or archived, or
 * another one chosen): redrawn on every poll, a link was replaced under the pointer between a
 * person's press and release, and the click was lost.
 */
function drawChannels() {
  const { state } = page;
  const key = JSON.stringify([page.tab, page.channel, state.channels]);
  if (key === page.drawn.channels) return;
  page.drawn.channels = key;
  const nav = $('#channels');
  nav.replaceChildren(
    ...state.channels.map((channel) => {
      const link = document.createElement('button');
      link.type = 'button';
      link.className = `nav-link channel-link${page.tab === 'channel' && channel.id === page.channel ? ' active' : ''}`;
      link.dataset.channel = channel.id;
      link.textContent = `${channel.isPrivate ? '🔒' : '#'} ${channel.name}`;
      if (channel.archived)
        link.append(
          Object.assign(document.createElement('span'), { className: 'muted', textContent: ' (archived)' }),
        );
      link.addEventListener('click', (event) => {
        event.preventDefault();
        page.tab = 'channel';
        page.channel = channel.id;
        localStorage.setItem(remembered('channel'), channel.id);
        page.drawn.messages = '';
        refresh();
      });
      return link;
    }),
  );
}

function context(extra) {
  return { names: page.state.names, channelNames: page.state.channelNames, ...extra };
}

/**
 * The workspace's name; with several workspaces, the switch between them; and where the app
 * installs through "Add to Slack" and is not in this workspace yet, the way to add it. A single
 * workspace shows no workspace controls at all.
 */
function drawWorkspace() {
  const { state } = page;
  $('#workspace-name').textContent = state.team.name;
  const workspaces = $('#workspace-switcher');
  $('#workspace-choice').hidden = state.workspaces.length < 2;
  if (workspaces.options.length === 0)
    for (const workspace of state.workspaces) workspaces.append(new Option(workspace.name, workspace.id));
  workspaces.value = state.team.id;
  const install = $('#install-link');
  const installable = Boolean(state.installUrl) && !state.installed;
  install.hidden = !installable;
  if (installable) install.href = state.installUrl;
  $('#not-installed').hidden = state.installed;
  $('#not-installed-workspace').textContent = state.team.name;
}

function draw() {
  const { state } = page;
  drawWorkspace();
  const switcher = $('#user-switcher');
  if (switcher.options.length === 0) {
    for (const user of state.users) {
      const role = user.isAdmin ? 'admin' : user.isRestricted || user.isUltraRestricted ? 'guest' : 'member';
      switcher.append(new Option(`${user.realName} (${role})`, user.id));
    }
  }
  switcher.value = page.user;
  drawChannels();
  $('#home-link').classList.toggle('active', page.tab === 'home');
  $('#dm-link').classList.toggle('active', page.tab === 'dm');
  $('#messages').hidden = page.tab === 'home';
  $('#home').hidden = page.tab !== 'home';
  $('#composer-form').hidden = page.tab === 'home';
  drawHeader();
  drawShortcuts();
  if (page.tab === 'home') drawHome();
  else drawMessages();
  drawModal();
}

function currentChannel() {
  return page.state.channels.find((channel) => channel.id === page.channel);
}

/** The conversation's name, and for a channel: add or remove Tenderbot, archive or unarchive. */
function drawHeader() {
  const channel = page.tab === 'channel' ? currentChannel() : null;
  const key = JSON.stringify([page.tab, page.channel, channel, page.state.installed]);
  if (key === page.drawn.header) return;
  page.drawn.header = key;
  $('#main-title').textContent =
    page.tab === 'home'
      ? 'Tenderbot · Home'
      : page.tab === 'dm'
        ? 'Tenderbot · Messages'
        : `# ${page.state.channelNames[page.channel] ?? page.channel}${channel?.archived ? ' (archived)' : ''}`;
  const controls = $('#channel-controls');
  const composer = $('#composer');
  composer.disabled = Boolean(channel?.archived);
  composer.placeholder = channel?.archived
    ? 'This channel is archived: nothing can be posted in it.'
    : 'Message, or a slash command such as /tender search cleaning';
  if (!channel) {
    controls.replaceChildren();
    return;
  }
  const control = (id, label, action) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.id = id;
    button.className = 'header-button';
    button.textContent = label;
    button.addEventListener('click', async () => {
      button.disabled = true;
      await api('/workbench/channel', { channel: channel.id, action });
      soon();
    });
    return button;
  };
  // Where Tenderbot is not installed yet, it can be added to no channel.
  const membership = !page.state.installed
    ? []
    : [
        channel.appIn
          ? control('app-membership', 'Remove Tenderbot', 'remove-app')
          : control('app-membership', 'Add Tenderbot to this channel', 'add-app'),
      ];
  controls.replaceChildren(
    ...membership,
    channel.archived
      ? control('archive-channel', 'Unarchive channel', 'unarchive')
      : control('archive-channel', 'Archive channel', 'archive'),
  );
}

/** The ⚡ menu: the app's global shortcuts. */
function drawShortcuts() {
  const global = page.state.shortcuts.filter((shortcut) => shortcut.type === 'global');
  const key = JSON.stringify(global);
  if (key === page.drawn.shortcuts) return;
  page.drawn.shortcuts = key;
  $('#shortcuts').hidden = global.length === 0;
  $('#shortcuts-menu').replaceChildren(
    ...global.map((shortcut) => {
      const item = document.createElement('button');
      item.type = 'button';
      item.className = 'menu-item';
      item.textContent = shortcut.name;
      item.addEventListener('click', async () => {
        $('#shortcuts').open = false;
        await api('/workbench/shortcut', { callbackId: shortcut.callback_id });
        soon();
      });
      return item;
    }),
  );
}

/** The messages drawn last, by ts (with what each was drawn from), and what every drawing read. */
const drawnMessages = { shared: '', nodes: new Map() };

function drawMessages() {
  // Whose view this is belongs in the key: two people seeing the same (say, no) messages would
  // otherwise leave the list marked as the first one's after a switch.
  const key = JSON.stringify([shownChannel(), page.state.me?.id, page.state.messages]);
  if (key === page.drawn.messages) return;
  page.drawn.messages = key;
  const list = $('#messages');
  // Which conversation these messages are (the state's, not the one just clicked): a test, or an
  // assistive tool, can tell when a switch of channel has been drawn.
  list.dataset.channel = page.state.channel;
  list.dataset.user = page.state.me?.id ?? '';
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  const scrolledTo = list.scrollTop;
  // Messages this conversation had at the last draw (none yet: it is opened now).
  const before = page.seen.channel === page.state.channel ? page.seen.ts : null;
  page.seen = { channel: page.state.channel, ts: new Set(page.state.messages.map((message) => message.ts)) };
  const roots = page.state.messages.filter((message) => !message.threadTs);
  // A message is drawn again only when it (or its thread, or what its drawing reads) changed: a
  // button under the pointer when another message arrives stays the same button, so the click
  // lands, and a menu a person opened stays open.
  const shared = JSON.stringify([
    shownChannel(),
    page.user,
    page.state.shortcuts,
    page.state.names,
    page.state.channelNames,
  ]);
  const kept = drawnMessages.shared === shared ? drawnMessages.nodes : new Map();
  const nodes = new Map();
  list.replaceChildren(
    ...roots.map((message) => {
      const replies = page.state.messages.filter((reply) => reply.threadTs === message.ts);
      const key = JSON.stringify([message, replies]);
      const known = kept.get(message.ts);
      if (known && known.key === key) {
        nodes.set(message.ts, known);
        return known.node;
      }
      const node = drawMessage(message);
      if (replies.length > 0) {
        const thread = document.createElement('div');
        thread.className = 'thread';
        thread.append(...replies.map(drawMessage));
        node.append(thread);
      }
      nodes.set(message.ts, { key, node });
      return node;
    }),
  );
  drawnMessages.shared = shared;
  drawnMessages.nodes = nodes;
  // The newest of the new messages (an answer under the question that asked it, a card, a thread
  // line) is brought into view, its top first when it is taller than the window: a question and
  // its answer drawn together show the answer, not the question at the window's edge. A
  // conversation just opened shows its latest messages; otherwise the person stays where they were.
  const added = before ? page.state.messages.filter((message) => !before.has(message.ts)).at(-1) : null;
  const addedNode = added ? list.querySelector(`[data-ts="${CSS.escape(added.ts)}"]`) : null;
  if (!before || (atBottom && !addedNode)) list.scrollTop = list.scrollHeight;
  else if (addedNode)
    addedNode.scrollIntoView({ block: addedNode.offsetHeight > list.clientHeight ? 'start' : 'end' });
  else list.scrollTop = scrolledTo;
}

function drawMessage(message) {
  const node = document.createElement('article');
  node.className = `message${message.ephemeral ? ' ephemeral' : ''}`;
  node.dataset.ts = message.ts;
  const head = document.createElement('div');
  head.className = 'message-head';
  const time = timeOf(message.ts);
  head.innerHTML = `<span class="author">${escapeHtml(message.authorName)}</span><time class="time" datetime="${time.iso}" title="${escapeHtml(time.full)}">${escapeHtml(time.shown)}</time>${message.ephemeral ? '<span class="ephemeral-note">Only visible to you</span>' : ''}`;
  const shortcuts = page.state.shortcuts.filter((shortcut) => shortcut.type === 'message');
  if (!message.ephemeral && shortcuts.length > 0)
    head.append(
      messageMenu(shortcuts, async (shortcut) => {
        await api('/workbench/message-shortcut', {
          channel: shownChannel(),
          ts: message.ts,
          callbackId: shortcut.callback_id,
        });
        soon();
      }),
    );
  node.append(head);
  const channel = shownChannel();
  const onAction = (element, _blockId, extra) =>
    api('/workbench/click', { channel, ts: message.ts, actionId: element.action_id, ...extra }).then(soon);
  if (message.blocks?.length) node.append(renderBlocks(message.blocks, context({ onAction })));
  else {
    // A message without blocks shows its text as mrkdwn, as Slack does (mentions, bold, links).
    const text = document.createElement('div');
    text.className = 'bk-text';
    text.innerHTML = renderMrkdwn(message.text, context());
    node.append(text);
  }
  // Link previews the app attached (chat.unfurl), drawn as attachment cards with live buttons.
  for (const unfurl of message.unfurls ?? [])
    node.append(
      unfurlCard(
        unfurl,
        (blocks) => renderBlocks(blocks, context({ onAction })),
        (text) => renderMrkdwn(text, context()),
      ),
    );
  return node;
}

function drawHome() {
  const home = page.state.home;
  const key = JSON.stringify(home);
  if (key === page.drawn.home) return;
  page.drawn.home = key;
  if (!home) {
    $('#home').textContent = 'Opening the Home tab…';
    return;
  }
  const onAction = (element, _blockId, extra) =>
    api('/workbench/click', {
      viewId: home.id,
      actionId: element.action_id,
      value: element.value,
      ...extra,
    }).then(soon);
  $('#home').replaceChildren(renderBlocks(home.view.blocks, context({ onAction })));
}

function drawModal() {
  // A modal being closed is not drawn again by a poll that left before the close arrived.
  const modal = page.state.modal?.id === page.closedModal ? null : page.state.modal;
  const key = modal ? `${modal.id}:${modal.view.hash}:${JSON.stringify(page.modalErrors)}` : '';
  if (key === page.drawn.modal) return;
  page.drawn.modal = key;
  const layer = $('#modal-layer');
  if (!modal) {
    // A closed modal leaves nothing behind: no overlay, and no form whose values a later modal
    // of the same kind could pick up.
    layer.hidden = true;
    $('#modal').replaceChildren();
    delete $('#modal').dataset.viewId;
    page.modalErrors = {};
    return;
  }
  // Another modal (a new view id) starts empty: what was typed belongs to the one it was typed in.
  if ($('#modal').dataset.viewId !== modal.id) $('#modal').replaceChildren();
  $('#modal').dataset.viewId = modal.id;
  // Keep what the person typed across redraws of the same modal.
  const typed = collectValues();
  const view = modal.view;
  const box = $('#modal');
  const title = document.createElement('h2');
  title.textContent = view.title?.text ?? '';
  const onAction = (element, _blockId, extra) =>
    api('/workbench/click', {
      viewId: modal.id,
      actionId: element.action_id,
      value: element.value,
      ...extra,
    }).then(soon);
  // Typing in an external select asks the app for options (block_suggestion).
  const onSuggest = (element, typedText) =>
    api('/workbench/suggest', { viewId: modal.id, actionId: element.action_id, value: typedText });
  const body = renderBlocks(view.blocks, context({ onAction, onSuggest, errors: page.modalErrors }));
  for (const input of body.querySelectorAll('[data-action-id]')) {
    if (typed[typedKey(input)] !== undefined) input.value = typed[typedKey(input)];
  }
  const buttons = document.createElement('div');
  buttons.className = 'modal-buttons';
  const close = document.createElement('button');
  close.type = 'button';
  close.textContent = view.close?.text ?? 'Cancel';
  close.addEventListener('click', () => closeModal(modal.id));
  buttons.append(close);
  if (view.submit) {
    const submit = document.createElement('button');
    submit.type = 'button';
    submit.className = 'bk-button primary';
    submit.textContent = view.submit.text;
    submit.addEventListener('click', async () => {
      submit.disabled = true;
      const answer = await api('/workbench/submit', { viewId: modal.id, values: collectValues() });
      page.modalErrors = answer.errors ?? {};
      // Force a redraw, whatever comes next: the modal with its errors, or no modal at all.
      page.drawn.modal = null;
      submit.disabled = false;
      soon();
    });
    buttons.append(submit);
  }
  box.replaceChildren(title, body, buttons);
  layer.hidden = false;
}

/** Closes the modal at once, as Slack does, then tells the fake Slack (view_closed for the app). */
function closeModal(viewId) {
  $('#modal-layer').hidden = true;
  $('#modal').replaceChildren();
  delete $('#modal').dataset.viewId;
  page.drawn.modal = '';
  page.modalErrors = {};
  page.closedModal = viewId;
  api('/workbench/close', { viewId }).then(soon);
}

function collectValues() {
  const values = {};
  for (const input of document.querySelectorAll('#modal [data-action-id]'))
    values[typedKey(input)] = input.value;
  return values;
}

/**
 * What a typed value is sent under: its input block's id (unique in a view, as Slack keys
 * state.values), else its action id; two blocks of one form may share an action id.
 */
function typedKey(input) {
  return input.closest('[data-block-id]')?.dataset.blockId || input.dataset.actionId;
}

function soon() {
  setTimeout(refresh, 60);
}

$('#workspace-switcher').addEventListener('change', (event) => {
  location.search = `?team=${encodeURIComponent(event.target.value)}`;
});

$('#user-switcher').addEventListener('change', (event) => {
  page.user = event.target.value;
  localStorage.setItem(remembered('user'), page.user);
  // The channel list stays unless the person sees other channels: a click on it right after the
  // switch is not lost under a redraw.
  page.drawn = {
    messages: '',
    home: '',
    modal: '',
    header: '',
    shortcuts: '',
    channels: page.drawn.channels,
  };
  if (page.tab === 'home') api('/workbench/home', {}).then(soon);
  if (page.tab === 'dm') api('/workbench/messages-tab', {}).then(soon);
  refresh();
});

$('#home-link').addEventListener('click', (event) => {
  event.preventDefault();
  page.tab = 'home';
  page.drawn.home = '';
  api('/workbench/home', {}).then(soon);
  refresh();
});

$('#dm-link').addEventListener('click', (event) => {
  event.preventDefault();
  page.tab = 'dm';
  page.drawn.messages = '';
  api('/workbench/messages-tab', {}).then(soon);
  refresh();
});

// Escape closes the open modal, as in Slack.
document.addEventListener('keydown', (event) => {
  const viewId = $('#modal').dataset.viewId;
  if (event.key === 'Escape' && viewId && !$('#modal-layer').hidden) closeModal(viewId);
});

$('#composer-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = $('#composer');
  // Sent as typed: a leading space makes "/…" a message, as Slack's own hint says.
  const text = input.value.trimEnd();
  if (!text.trim()) return;
  input.value = '';
  await api('/workbench/command', { channel: shownChannel(), text });
  soon();
});

refresh();
setInterval(refresh, 500);
// Draws the workspace now rather than at the next poll (for browser tests and the console).
window.workbench = { refresh };
