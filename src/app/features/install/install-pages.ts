/** The few web pages of the install: plain, self-contained, everything from outside escaped. */

const STYLE = `body{font-family:system-ui,sans-serif;background:#f4f1ec;margin:0;display:flex;justify-content:center}
main{background:#fff;margin:48px 16px;padding:32px;border-radius:12px;max-width:560px;box-shadow:0 1px 4px #0002}
h1{font-size:24px;margin-top:0}p{font-size:16px;line-height:1.5}
a.add{display:inline-block;background:#4a154b;color:#fff;padding:12px 20px;border-radius:8px;text-decoration:none;font-weight:600}`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<link rel="icon" href="data:,"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

/** GET /slack/install: what Tenderbot does, and the "Add to Slack" button leading to Slack's page. */
export function addToSlackPage(slackUrl: string): string {
  return page(
    'Add Tenderbot to Slack',
    `<h1>Add Tenderbot to Slack</h1>
<p>Tenderbot brings public procurement tenders into Slack for bid teams: search them, bookmark and share them, follow buyers and deadlines.</p>
<p>Slack will ask you which workspace to add it to.</p>
<p><a class="add" id="add-to-slack" href="${escapeHtml(slackUrl)}">Add to Slack</a></p>`,
  );
}

/** After Allow: where it is installed, what to do next, and the way back into Slack (`openSlackUrl`). */
export function installedPage(place: string, openSlackUrl: string): string {
  return page(
    'Tenderbot is installed',
    `<h1>Tenderbot is installed</h1>
<p>Tenderbot is now in ${escapeHtml(place)}.</p>
<p>Go back to Slack and type <code>/tender help</code>. A workspace admin connects your organisation’s key with <code>/tender connect</code>.</p>
<p><a class="add" id="open-slack" href="${escapeHtml(openSlackUrl)}">Open Slack</a></p>`,
  );
}

/** A refused or cancelled install: why, in plain words, and how to start again. */
export function refusedPage(reason: string): string {
  return page(
    'Tenderbot was not installed',
    `<h1>Tenderbot was not installed</h1>
<p>${escapeHtml(reason)}</p>
<p><a href="/slack/install">Start again</a></p>`,
  );
}

export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (character) =>
      ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character] ?? character,
  );
}
