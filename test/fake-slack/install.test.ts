import { WebClient } from '@slack/web-api';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import { decideOnInstallPage } from './install-page.ts';
import { StandInApp } from './stand-in-app.ts';

const TOKEN = 'xoxb-first-workspace';
const SECRET = 'fake-signing-secret';
const APP = {
  clientId: '1234.5678',
  clientSecret: 'client-secret-value',
  redirectUrls: ['http://127.0.0.1/'],
};

let app: StandInApp;
let slack: FakeSlack;
let redirectUri: string;

beforeAll(async () => {
  app = new StandInApp(SECRET);
  const appUrl = await app.start();
  const appBase = new URL(appUrl).origin;
  redirectUri = `${appBase}/slack/oauth_redirect`;
  slack = new FakeSlack({
    signingSecret: SECRET,
    botToken: TOKEN,
    appUrl,
    // Slack's app settings list the app's redirect URLs; a redirect_uri elsewhere is refused.
    oauth: { ...APP, redirectUrls: [`${appBase}/slack/`] },
  });
  slack.addWorkspace({
    teamId: 'T0SECOND',
    teamName: 'Second Bid Team',
    domain: 'second-bids',
    users: [{ id: 'U1ADMIN', name: 'sam', realName: 'Sam Second', isAdmin: true }],
    channels: [{ id: 'C1BIDS', name: 'bids' }],
  });
  for (const [teamId, teamName] of [
    ['T0GRIDA', 'Grid North'],
    ['T0GRIDB', 'Grid South'],
  ] as const) {
    slack.addWorkspace({
      teamId,
      teamName,
      enterprise: { id: 'E0GRID', name: 'Grid Holdings' },
      users: [{ id: `U${teamId.slice(-1)}GRID`, name: 'gia', realName: 'Gia Grid', isAdmin: true }],
      channels: [{ id: `C${teamId.slice(-1)}GRID`, name: 'bids' }],
    });
  }
  await slack.start();
});
afterAll(async () => {
  await slack.stop();
  await app.stop();
});

const noTokenClient = () =>
  new WebClient(undefined, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
const clientWith = (token: string) =>
  new WebClient(token, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });

/** The person's Allow (or Cancel) on the install page: where Slack sends the browser next. */
async function decide(target: string, decision: 'allow' | 'cancel', state = 'state-1'): Promise<URL> {
  const form = new URLSearchParams({
    client_id: APP.clientId,
    scope: 'commands,chat:write',
    redirect_uri: redirectUri,
    state,
    target,
    decision,
  });
  return decideOnInstallPage(slack, form);
}

const exchange = (code: string, overrides: Record<string, string> = {}) =>
  noTokenClient().oauth.v2.access({
    client_id: APP.clientId,
    client_secret: APP.clientSecret,
    code,
    redirect_uri: redirectUri,
    ...overrides,
  });

describe('several workspaces in one fake Slack', () => {
  it('serves each workspace by the token a call carries, and keeps the first one as before', async () => {
    expect(slack.workspaces.map((team) => team.teamId)).toEqual([
      'T0TENDER',
      'T0SECOND',
      'T0GRIDA',
      'T0GRIDB',
    ]);
    expect((await clientWith(TOKEN).auth.test()).team_id).toBe('T0TENDER');
    // The second workspace has no token until the app is installed there.
    expect(slack.team('T0SECOND').botTokens).toEqual([]);
    expect(slack.team('T0SECOND').channels.map((channel) => channel.id)).toEqual(['C1BIDS']);
  });

  it('shows an install page naming every workspace and the organisation, and refuses an unknown app', async () => {
    const page = await request(
      `${slack.authorizeUrl}?${new URLSearchParams({ client_id: APP.clientId, scope: 'commands', redirect_uri: redirectUri, state: 'abc' })}`,
    );
    const html = await page.body.text();
    expect(page.statusCode).toBe(200);
    for (const name of [
      'Tenderbot Fake',
      'Second Bid Team',
      'Grid North',
      'Every workspace in Grid Holdings',
    ])
      expect(html).toContain(name);
    expect(html).toContain('name="state" value="abc"');

    const unknown = await request(`${slack.authorizeUrl}?client_id=someone-else&scope=commands`);
    expect(unknown.statusCode).toBe(400);
    expect(await unknown.body.text()).toContain('does not know');
    const elsewhere = await request(
      `${slack.authorizeUrl}?${new URLSearchParams({ client_id: APP.clientId, scope: 'commands', redirect_uri: 'http://evil.example/cb' })}`,
    );
    expect(elsewhere.statusCode).toBe(400);
    expect(await elsewhere.body.text()).toContain('did not match');
  });

  it('installs into a workspace: a code for a token of that workspace, once, with the right credentials', async () => {
    const back = await decide('team:T0SECOND', 'allow', 'my-state');
    expect(back.origin + back.pathname).toBe(redirectUri);
    expect(back.searchParams.get('state')).toBe('my-state');
    const code = back.searchParams.get('code') ?? '';
    expect(code).not.toBe('');

    await expect(exchange(code, { client_secret: 'wrong' })).rejects.toThrow(/bad_client_secret/);
    await expect(exchange(code, { redirect_uri: `${redirectUri}?other` })).rejects.toThrow(
      /bad_redirect_uri/,
    );
    const granted = await exchange(code);
    expect(granted).toMatchObject({
      ok: true,
      token_type: 'bot',
      scope: 'commands,chat:write',
      bot_user_id: 'U0BOT',
      app_id: 'A0TENDERBOT',
      team: { id: 'T0SECOND', name: 'Second Bid Team' },
      enterprise: null,
      is_enterprise_install: false,
      authed_user: { id: 'U1ADMIN' },
    });
    expect(granted.access_token).toMatch(/^xoxb-/);
    await expect(exchange(code)).rejects.toThrow(/code_already_used/);
    await expect(exchange('never-issued')).rejects.toThrow(/invalid_code/);

    const second = clientWith(granted.access_token as string);
    expect((await second.auth.test()).team_id).toBe('T0SECOND');
    await second.chat.postMessage({ channel: 'C1BIDS', text: 'hello second' });
    const team = slack.team('T0SECOND');
    expect(team.lastMessage('C1BIDS')?.text).toBe('hello second');
    expect(team.callsOf('chat.postMessage').at(-1)?.token).toBe(granted.access_token);
    // The first workspace saw none of it, and the client secret is not kept in the record.
    expect(slack.messagesIn('C1BIDS')).toEqual([]);
    expect(JSON.stringify(slack.callsOf('oauth.v2.access'))).not.toContain(APP.clientSecret);
  });

  it('says access_denied when the person cancels', async () => {
    const back = await decide('team:T0SECOND', 'cancel', 'cancelled-state');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('cancelled-state');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('uninstalls: app_uninstalled and tokens_revoked, signed; the tokens then answer token_revoked', async () => {
    const team = slack.team('T0SECOND');
    const [token] = team.botTokens;
    const before = app.received.length;
    const answers = await team.uninstallApp();
    const received = app.received.slice(before);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(received.map(({ json, valid }) => [json.team_id, json.event.type, valid])).toEqual([
      ['T0SECOND', 'app_uninstalled', true],
      ['T0SECOND', 'tokens_revoked', true],
    ]);
    expect(received[1]?.json.event).toMatchObject({ tokens: { oauth: [], bot: ['U0BOT'] } });
    await expect(clientWith(token ?? '').auth.test()).rejects.toThrow(/token_revoked/);
    expect(team.botTokens).toEqual([]);
    expect((await clientWith(TOKEN).auth.test()).team_id).toBe('T0TENDER');
  });

  it('installs organisation-wide: one token for every workspace of the organisation', async () => {
    const back = await decide('org:E0GRID', 'allow');
    const granted = await exchange(back.searchParams.get('code') ?? '');
    expect(granted).toMatchObject({
      team: null,
      enterprise: { id: 'E0GRID', name: 'Grid Holdings' },
      is_enterprise_install: true,
    });
    const org = clientWith(granted.access_token as string);
    await org.chat.postMessage({ channel: 'CBGRID', text: 'south' });
    expect(slack.team('T0GRIDB').lastMessage('CBGRID')?.text).toBe('south');
    expect(slack.team('T0GRIDA').messagesIn('CBGRID')).toEqual([]);
    expect((await org.auth.test()).is_enterprise_install).toBe(true);
    const covered = await org.auth.teams.list({});
    expect(covered.teams?.map((team) => team.id)).toEqual(['T0GRIDA', 'T0GRIDB']);

    // A command from a workspace of the organisation says so, as Slack's do.
    await slack.team('T0GRIDA').slashCommand('UAGRID', 'CAGRID', '/tender', 'help');
    expect(app.received.at(-1)?.json).toMatchObject({
      team_id: 'T0GRIDA',
      enterprise_id: 'E0GRID',
      is_enterprise_install: 'true',
    });
  });
});
