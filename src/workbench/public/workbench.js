// The workbench page: a Slack-like workspace on the fake Slack, for trying Tenderbot without Slack.
import { escapeHtml, renderBlocks, renderMrkdwn } from './block-kit.js';

const $ = (selector) => document.querySelector(selector);
const page = {
  user: localStorage.getItem('workbench.user') ?? 'U0ADMIN',
  channel: localStorage.getItem('workbench.channel') ?? '',
  tab: 'channel',
  state: null,
  drawn: { messages: '', home: '', modal: '' },
  modalErrors: {},
};

async function api(path, body) {
  const response = await fetch(
    path,
    body
      ? {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ user: page.user, ...body }),
        }
      : {},
  );
  return response.json();
}

async function refresh() {
  const state = await api(
    `/workbench/state?user=${encodeURIComponent(page.user)}&channel=${encodeURIComponent(page.channel)}`,
  );
  if (state.error) return;
  page.state = state;
  page.channel = state.channel;
  draw();
}

function context(extra) {
  return { names: page.state.names, channelNames: page.state.channelNames, ...extra };
}

function draw() {
  const { state } = page;
  const switcher = $('#user-switcher');
  if (switcher.options.length === 0) {
    for (const user of state.users) {
      const role = user.isAdmin ? 'admin' : user.isRestricted || user.isUltraRestricted ? 'guest' : 'member';
      switcher.append(new Option(`${user.realName} (${role})`, user.id));
    }
  }
  switcher.value = page.user;
  const nav = $('#channels');
  nav.replaceChildren(
    ...state.channels.map((channel) => {
      const link = document.createElement('button');
      link.type = 'button';
      link.className = `nav-link channel-link${page.tab === 'channel' && channel.id === page.channel ? ' active' : ''}`;
      link.dataset.channel = channel.id;
      link.textContent = `# ${channel.name}`;
      link.addEventListener('click', (event) => {
        event.preventDefault();
        page.tab = 'channel';
        page.channel = channel.id;
        localStorage.setItem('workbench.channel', channel.id);
        page.drawn.messages = '';
        refresh();
      });
      return link;
    }),
  );
  $('#home-link').classList.toggle('active', page.tab === 'home');
  $('#messages').hidden = page.tab !== 'channel';
  $('#home').hidden = page.tab !== 'home';
  $('#composer-form').hidden = page.tab !== 'channel';
  $('#main-header').textContent =
    page.tab === 'home' ? 'Tenderbot · Home' : `# ${state.channelNames[page.channel] ?? page.channel}`;
  if (page.tab === 'channel') drawMessages();
  else drawHome();
  drawModal();
}

function drawMessages() {
  const key = JSON.stringify(page.state.messages);
  if (key === page.drawn.messages) return;
  page.drawn.messages = key;
  const list = $('#messages');
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  const roots = page.state.messages.filter((message) => !message.threadTs);
  list.replaceChildren(
    ...roots.map((message) => {
      const node = drawMessage(message);
      const replies = page.state.messages.filter((reply) => reply.threadTs === message.ts);
      if (replies.length > 0) {
        const thread = document.createElement('div');
        thread.className = 'thread';
        thread.append(...replies.map(drawMessage));
        node.append(thread);
      }
      return node;
    }),
  );
  if (atBottom) list.scrollTop = list.scrollHeight;
}

function drawMessage(message) {
  const node = document.createElement('article');
  node.className = `message${message.ephemeral ? ' ephemeral' : ''}`;
  node.dataset.ts = message.ts;
  const head = document.createElement('div');
  head.innerHTML = `<span class="author">${escapeHtml(message.authorName)}</span>${message.ephemeral ? '<span class="ephemeral-note">Only visible to you</span>' : ''}`;
  node.append(head);
  const onAction = (element, _blockId, extra) =>
    api('/workbench/click', {
      channel: page.channel,
      ts: message.ts,
      actionId: element.action_id,
      ...extra,
    }).then(soon);
  if (message.blocks?.length) node.append(renderBlocks(message.blocks, context({ onAction })));
  else {
    // A message without blocks shows its text as mrkdwn, as Slack does (mentions, bold, links).
    const text = document.createElement('div');
    text.className = 'bk-text';
    text.innerHTML = renderMrkdwn(message.text, context());
    node.append(text);
  }
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
  const onAction = (element) =>
    api('/workbench/click', { viewId: home.id, actionId: element.action_id, value: element.value }).then(
      soon,
    );
  $('#home').replaceChildren(renderBlocks(home.view.blocks, context({ onAction })));
}

function drawModal() {
  const modal = page.state.modal;
  const key = modal ? `${modal.id}:${modal.view.hash}:${JSON.stringify(page.modalErrors)}` : '';
  if (key === page.drawn.modal) return;
  page.drawn.modal = key;
  const layer = $('#modal-layer');
  if (!modal) {
    layer.hidden = true;
    page.modalErrors = {};
    return;
  }
  // Keep what the person typed across redraws of the same modal.
  const typed = collectValues();
  const view = modal.view;
  const box = $('#modal');
  const title = document.createElement('h2');
  title.textContent = view.title?.text ?? '';
  const onAction = (element) =>
    api('/workbench/click', { viewId: modal.id, actionId: element.action_id, value: element.value }).then(
      soon,
    );
  const body = renderBlocks(view.blocks, context({ onAction, errors: page.modalErrors }));
  for (const input of body.querySelectorAll('[data-action-id]')) {
    if (typed[input.dataset.actionId] !== undefined) input.value = typed[input.dataset.actionId];
  }
  const buttons = document.createElement('div');
  buttons.className = 'modal-buttons';
  const close = document.createElement('button');
  close.type = 'button';
  close.textContent = view.close?.text ?? 'Cancel';
  close.addEventListener('click', () => api('/workbench/close', { viewId: modal.id }).then(soon));
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

function collectValues() {
  const values = {};
  for (const input of document.querySelectorAll('#modal [data-action-id]'))
    values[input.dataset.actionId] = input.value;
  return values;
}

function soon() {
  setTimeout(refresh, 60);
}

$('#user-switcher').addEventListener('change', (event) => {
  page.user = event.target.value;
  localStorage.setItem('workbench.user', page.user);
  page.drawn = { messages: '', home: '', modal: '' };
  if (page.tab === 'home') api('/workbench/home', {}).then(soon);
  refresh();
});

$('#home-link').addEventListener('click', (event) => {
  event.preventDefault();
  page.tab = 'home';
  page.drawn.home = '';
  api('/workbench/home', {}).then(soon);
  refresh();
});

$('#composer-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = $('#composer');
  const text = input.value.trim();
  if (!text) return;
  input.value = '';
  await api('/workbench/command', { channel: page.channel, text });
  soon();
});

refresh();
setInterval(refresh, 500);
