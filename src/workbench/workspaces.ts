import type { FakeSlack, NewWorkspace } from '../fake-slack/fake-slack.ts';

/** The workbench's second workspace: another bid team, with people and a channel of its own. */
export const SECOND_WORKSPACE: NewWorkspace = {
  teamId: 'T0SECOND',
  teamName: 'Second Bid Team',
  domain: 'second-bids',
  users: [
    { id: 'U1ADMIN', name: 'sam', realName: 'Sam Second', isAdmin: true },
    { id: 'U1MEMBER', name: 'mia', realName: 'Mia Member' },
  ],
  channels: [
    { id: 'C1BIDS', name: 'second-bids' },
    { id: 'C1GENERAL', name: 'general' },
  ],
};

/**
 * Installs the app into a workspace of the fake Slack as a person would, without a browser: the
 * app's "Add to Slack" page (its state cookie), Allow on Slack's page for `teamId`, and back to
 * the app's redirect URL. The workbench uses it so that its first workspace is ready at start.
 * Resolves with the app's last page; throws if any step is refused.
 */
export async function installApp(slack: FakeSlack, appBase: string, teamId: string): Promise<string> {
  return installAppAt(slack, appBase, `team:${teamId}`);
}

/** `installApp` for any choice of Slack's page: `team:T…` a workspace, `org:E…` a whole organisation. */
export async function installAppAt(slack: FakeSlack, appBase: string, target: string): Promise<string> {
  const start = await fetch(`${appBase}/slack/install`);
  const html = await start.text();
  const cookie = /slack-app-oauth-state=([^;]+)/.exec(start.headers.get('set-cookie') ?? '')?.[1];
  const href = /id="add-to-slack" href="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&');
  if (!start.ok || !cookie || !href) throw new Error(`the app's install page answered ${start.status}`);
  const form = new URLSearchParams(new URL(href).searchParams);
  form.set('target', target);
  form.set('decision', 'allow');
  const allowed = await fetch(slack.authorizeUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    redirect: 'manual',
  });
  await allowed.arrayBuffer();
  const location = allowed.headers.get('location');
  if (allowed.status !== 302 || !location) throw new Error(`Slack's install page answered ${allowed.status}`);
  const back = await fetch(location, { headers: { cookie: `slack-app-oauth-state=${cookie}` } });
  const page = await back.text();
  if (!back.ok) throw new Error(`the app refused the install (${back.status})`);
  return page;
}

/**
 * Invites Tenderbot to a workspace's #general (`member_joined_channel`, from its first admin), as
 * a person does right after installing an app, so that its welcome is the first thing there.
 * Resolves once the event is answered; false when the workspace has no #general.
 */
export async function inviteToGeneral(slack: FakeSlack): Promise<boolean> {
  const general = slack.channels.find((channel) => channel.name === 'general');
  const admin = slack.users.find((user) => user.isAdmin) ?? slack.users[0];
  if (!general || !admin) return false;
  await slack.addApp(general.id, admin.id);
  return true;
}

/**
 * Watches the page's workspaces: one seen without Tenderbot and then with it (installed from the
 * page) gets Tenderbot invited to its #general, once, as its installer would.
 */
export function inviteOnceInstalled(): (slack: FakeSlack) => void {
  const waiting = new Set<string>();
  return (slack) => {
    const installed = slack.botTokens.length > 0;
    if (!installed) {
      waiting.add(slack.teamId);
      return;
    }
    if (!waiting.delete(slack.teamId)) return;
    inviteToGeneral(slack).catch(() => undefined);
  };
}
