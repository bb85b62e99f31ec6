import { randomBytes } from 'node:crypto';
import type { FakeOAuthApp } from './types.ts';
import type { Workspace } from './workspace.ts';

export type { FakeOAuthApp } from './types.ts';

/** Slack's codes last ten minutes and can be exchanged once. */
export const CODE_LIFETIME_MS = 10 * 60 * 1000;
export const FAKE_APP_ID = 'A0TENDERBOT';

/** Where an install goes: one workspace, or every workspace of an Enterprise Grid organisation. */
export type InstallTarget = { kind: 'team'; teamId: string } | { kind: 'org'; enterpriseId: string };

interface IssuedCode {
  target: InstallTarget;
  redirectUri: string | null;
  scope: string;
  installerId: string;
  expiresAt: number;
  used: boolean;
}

type Page = { status: number; contentType: string; body: string; location?: string };

/**
 * Slack's OAuth v2 install, as one app sees it: the authorize page (a person picks a workspace,
 * or a whole organisation, and clicks Allow or Cancel) and `oauth.v2.access`, which trades a
 * code (single use, ten minutes) for a bot token of that workspace.
 */
export class FakeInstall {
  app: FakeOAuthApp | null;
  private readonly codes = new Map<string, IssuedCode>();

  constructor(
    app: FakeOAuthApp | undefined,
    private readonly workspaces: () => Workspace[],
    private readonly now: () => number,
  ) {
    this.app = app ?? null;
  }

  /** GET /oauth/v2/authorize: the page where a person picks where to install. */
  authorizePage(query: URLSearchParams): Page {
    const problem = this.checkRequest(query.get('client_id'), query.get('redirect_uri'));
    if (problem) return plainPage(400, problem);
    const hidden = ['client_id', 'scope', 'user_scope', 'redirect_uri', 'state']
      .map((name) => [name, query.get(name)] as const)
      .filter((entry): entry is readonly [string, string] => entry[1] !== null)
      .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`)
      .join('\n');
    const targets = this.targets();
    const chosen = this.preselected(query.get('team'), targets);
    const choices = targets
      .map(
        ({ value, label }) =>
          `<label class="choice"><input type="radio" name="target" value="${escapeHtml(value)}"${value === chosen ? ' checked' : ''}> ${escapeHtml(label)}</label>`,
      )
      .join('\n');
    const scopes = (query.get('scope') ?? '').split(',').filter(Boolean);
    const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Install Tenderbot</title>
<style>
body{font-family:system-ui,sans-serif;background:#f4ede4;margin:0;display:flex;justify-content:center}
main{background:#fff;margin:48px 16px;padding:32px;border-radius:12px;max-width:520px;box-shadow:0 1px 4px #0002}
h1{font-size:22px;margin-top:0}.choice{display:block;padding:8px 0;font-size:16px}
.scopes{color:#555;font-size:13px}button{font-size:16px;padding:8px 20px;border-radius:6px;border:1px solid #bbb;background:#fff;margin-right:8px;cursor:pointer}
button.allow{background:#007a5a;color:#fff;border-color:#007a5a}
</style></head>
<body><main>
<h1>Tenderbot is asking to join a Slack workspace</h1>
<form method="post" action="/oauth/v2/authorize">
${hidden}
<fieldset><legend>Where should Tenderbot be installed?</legend>
${choices}
</fieldset>
<p class="scopes">It asks for ${scopes.length} permissions: ${escapeHtml(scopes.join(', '))}.</p>
<button class="allow" type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="cancel">Cancel</button>
</form>
</main></body></html>`;
    return { status: 200, contentType: 'text/html; charset=utf-8', body };
  }

  /** POST /oauth/v2/authorize: Allow sends a code to the app's redirect URL, Cancel says access_denied. */
  decide(form: URLSearchParams): Page {
    const redirectUri = form.get('redirect_uri');
    const problem = this.checkRequest(form.get('client_id'), redirectUri);
    if (problem || !this.app) return plainPage(400, problem ?? 'No app is set up for installs.');
    const destination = new URL(redirectUri ?? this.app.redirectUrls?.[0] ?? '');
    const state = form.get('state');
    if (form.get('decision') !== 'allow') {
      destination.searchParams.set('error', 'access_denied');
    } else {
      const target = this.parseTarget(form.get('target'));
      if (!target) return plainPage(400, 'Pick a workspace to install Tenderbot into.');
      const code = `${Date.now()}.${randomBytes(12).toString('hex')}`;
      this.codes.set(code, {
        target,
        redirectUri,
        scope: form.get('scope') ?? '',
        installerId: this.installerOf(target),
        expiresAt: this.now() + CODE_LIFETIME_MS,
        used: false,
      });
      destination.searchParams.set('code', code);
    }
    if (state !== null) destination.searchParams.set('state', state);
    return {
      status: 302,
      contentType: 'text/plain; charset=utf-8',
      body: `Redirecting to ${destination}`,
      location: destination.toString(),
    };
  }

  /**
   * `oauth.v2.access`: checks the app's credentials (form fields or HTTP Basic), the code (known,
   * unused, unexpired) and the redirect_uri (the one the authorize step had), then issues a bot token.
   */
  exchange(args: Record<string, unknown>, authorization: string | undefined): Record<string, unknown> {
    const basic = /^Basic (.+)$/.exec(authorization ?? '');
    const [basicId, basicSecret] = basic
      ? Buffer.from(basic[1] ?? '', 'base64')
          .toString('utf8')
          .split(':')
      : [undefined, undefined];
    const clientId = String(args.client_id ?? basicId ?? '');
    const clientSecret = String(args.client_secret ?? basicSecret ?? '');
    if (!this.app || clientId !== this.app.clientId) return { ok: false, error: 'invalid_client_id' };
    if (clientSecret !== this.app.clientSecret) return { ok: false, error: 'bad_client_secret' };
    const code = this.codes.get(String(args.code ?? ''));
    if (!code || code.expiresAt < this.now()) return { ok: false, error: 'invalid_code' };
    if (code.used) return { ok: false, error: 'code_already_used' };
    // Slack compares the redirect_uri with the authorize step's only when that step had one.
    if (code.redirectUri !== null && args.redirect_uri !== code.redirectUri)
      return { ok: false, error: 'bad_redirect_uri' };
    code.used = true;
    const workspaces = this.workspacesOf(code.target);
    const first = workspaces[0];
    if (!first) return { ok: false, error: 'team_not_found' };
    const orgWide = code.target.kind === 'org';
    const token = `xoxb-${orgWide ? first.enterprise?.id : first.teamId}-${randomBytes(12).toString('hex')}`;
    for (const workspace of workspaces) {
      workspace.tokens.add(token);
      if (orgWide) workspace.orgWideInstall = true;
    }
    return {
      ok: true,
      app_id: FAKE_APP_ID,
      authed_user: { id: code.installerId },
      scope: code.scope,
      token_type: 'bot',
      access_token: token,
      bot_user_id: 'U0BOT',
      team: orgWide ? null : { id: first.teamId, name: first.teamName },
      enterprise: first.enterprise,
      is_enterprise_install: orgWide,
    };
  }

  private checkRequest(clientId: string | null, redirectUri: string | null): string | null {
    if (!this.app || clientId !== this.app.clientId)
      return 'This install link names an app that this Slack does not know.';
    if (!redirectUri && !this.app.redirectUrls?.length)
      return 'This install link has no redirect_uri and the app has no redirect URL.';
    if (redirectUri) {
      let valid = false;
      try {
        valid = ['http:', 'https:'].includes(new URL(redirectUri).protocol);
      } catch {
        valid = false;
      }
      if (!valid) return 'The redirect_uri is not a web address.';
      const allowed = this.app.redirectUrls;
      if (allowed?.length && !allowed.some((url) => redirectUri.startsWith(url)))
        return 'The redirect_uri did not match any configured URIs.';
    }
    return null;
  }

  /**
   * The choice Slack's page starts on: the workspace the link names (Slack's `team` parameter),
   * else the one the person was last in (as a browser stays signed in to it), else the first.
   */
  private preselected(team: string | null, targets: { value: string }[]): string | undefined {
    const named = targets.find((target) => target.value === `team:${team}`);
    if (named) return named.value;
    const visited = this.workspaces()
      .filter((workspace) => workspace.lastVisitedAt !== null)
      .sort((a, b) => (b.lastVisitedAt ?? 0) - (a.lastVisitedAt ?? 0))[0];
    return visited ? `team:${visited.teamId}` : targets[0]?.value;
  }

  private targets(): { value: string; label: string }[] {
    const targets: { value: string; label: string }[] = [];
    const orgs = new Map<string, string>();
    for (const workspace of this.workspaces()) {
      targets.push({ value: `team:${workspace.teamId}`, label: workspace.teamName });
      if (workspace.enterprise) orgs.set(workspace.enterprise.id, workspace.enterprise.name);
    }
    for (const [id, name] of orgs)
      targets.push({ value: `org:${id}`, label: `Every workspace in ${name} (organisation-wide)` });
    return targets;
  }

  private parseTarget(value: string | null): InstallTarget | null {
    const [kind, id] = (value ?? '').split(':');
    if (!id) return null;
    if (kind === 'team' && this.workspaces().some((workspace) => workspace.teamId === id))
      return { kind: 'team', teamId: id };
    if (kind === 'org' && this.workspaces().some((workspace) => workspace.enterprise?.id === id))
      return { kind: 'org', enterpriseId: id };
    return null;
  }

  private workspacesOf(target: InstallTarget): Workspace[] {
    return this.workspaces().filter((workspace) =>
      target.kind === 'team'
        ? workspace.teamId === target.teamId
        : workspace.enterprise?.id === target.enterpriseId,
    );
  }

  /** Who installs: the workspace's first admin (Slack lets admins approve apps), else its first person. */
  private installerOf(target: InstallTarget): string {
    const workspace = this.workspacesOf(target)[0];
    const users = workspace?.users ?? [];
    return (users.find((user) => user.isAdmin || user.isOwner) ?? users[0])?.id ?? 'U0ADMIN';
  }
}

function plainPage(status: number, sentence: string): Page {
  return { status, contentType: 'text/plain; charset=utf-8', body: sentence };
}

export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (character) =>
      ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character] ?? character,
  );
}
