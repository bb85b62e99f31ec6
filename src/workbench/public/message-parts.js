// Parts of a message as the workbench draws it: its time, its "…" menu and its link previews.

/** A message's time, as Slack shows it beside the author (from its ts, in seconds). */
export function timeOf(ts) {
  const date = new Date(Number(ts.split('.')[0]) * 1000);
  return {
    iso: date.toISOString(),
    shown: date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }),
    // Slack shows the whole date when the pointer rests on a message's time.
    full: date.toLocaleString([], { dateStyle: 'full', timeStyle: 'medium' }),
  };
}

function hostOf(url) {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

/** A message's "…" menu: the app's message shortcuts, built when opened; `onPick` runs the one picked. */
export function messageMenu(shortcuts, onPick) {
  const wrap = document.createElement('span');
  wrap.className = 'message-menu';
  const more = document.createElement('button');
  more.type = 'button';
  more.className = 'message-more';
  more.textContent = '…';
  more.title = 'More actions';
  more.setAttribute('aria-label', 'More actions');
  more.addEventListener('click', () => {
    const open = wrap.querySelector('.menu');
    if (open) {
      open.remove();
      return;
    }
    const menu = document.createElement('div');
    menu.className = 'menu';
    for (const shortcut of shortcuts) {
      const item = document.createElement('button');
      item.type = 'button';
      item.className = 'menu-item';
      item.textContent = shortcut.name;
      item.addEventListener('click', () => {
        menu.remove();
        onPick(shortcut);
      });
      menu.append(item);
    }
    wrap.append(menu);
  });
  wrap.append(more);
  return wrap;
}

/**
 * A link preview the app attached (chat.unfurl), drawn as an attachment card: its site, its title,
 * then its blocks (with live buttons) or its text.
 */
export function unfurlCard(unfurl, drawBlocks, drawMrkdwn) {
  const card = document.createElement('div');
  card.className = 'unfurl';
  card.dataset.url = unfurl.url;
  const source = document.createElement('div');
  source.className = 'unfurl-source';
  source.textContent = hostOf(unfurl.url);
  card.append(source);
  if (unfurl.title)
    card.append(
      Object.assign(document.createElement('div'), { className: 'unfurl-title', textContent: unfurl.title }),
    );
  if (unfurl.blocks.length > 0) card.append(drawBlocks(unfurl.blocks));
  else if (unfurl.text) {
    const text = document.createElement('div');
    text.className = 'bk-text';
    text.innerHTML = drawMrkdwn(unfurl.text);
    card.append(text);
  }
  return card;
}
