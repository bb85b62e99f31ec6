import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack } from '../../src/fake-slack/fake-slack.ts';

/**
 * Slack's install page starts on the workspace a person means: the one the link names (Slack's
 * `team` parameter), else the one they were last in (a browser stays signed in to it), else the
 * first. Never simply the first, which in the workbench is the one that has the app already.
 */
const APP = { clientId: '1234.5678', clientSecret: 'secret', redirectUrls: ['http://127.0.0.1/'] };
let slack: FakeSlack;

beforeAll(async () => {
  slack = new FakeSlack({ signingSecret: 'signing', botToken: 'xoxb-first', oauth: APP });
  slack.addWorkspace({
    teamId: 'T0SECOND',
    teamName: 'Second Bid Team',
    users: [{ id: 'U1ADMIN', name: 'sam', realName: 'Sam Second', isAdmin: true }],
    channels: [{ id: 'C1BIDS', name: 'bids' }],
  });
  await slack.start();
});
afterAll(async () => {
  await slack.stop();
});

/** The choice checked on Slack's page, for an install link with these extra parameters. */
async function checkedChoice(extra: Record<string, string> = {}): Promise<string[]> {
  const query = new URLSearchParams({
    client_id: APP.clientId,
    scope: 'commands,chat:write',
    redirect_uri: 'http://127.0.0.1/slack/oauth_redirect',
    state: 'state-1',
    ...extra,
  });
  const answer = await request(`${slack.authorizeUrl}?${query}`);
  expect(answer.statusCode).toBe(200);
  const html = await answer.body.text();
  return [...html.matchAll(/value="(team:[^"]+)" checked/g)].map((match) => match[1] ?? '');
}

describe('the install page’s first choice', () => {
  it('is the first workspace when nothing says otherwise', async () => {
    expect(await checkedChoice()).toEqual(['team:T0TENDER']);
  });

  it('is the workspace the person was last in, not the first', async () => {
    slack.workspaceState.lastVisitedAt = 1_000;
    slack.team('T0SECOND').workspaceState.lastVisitedAt = 2_000;
    expect(await checkedChoice()).toEqual(['team:T0SECOND']);
    slack.workspaceState.lastVisitedAt = 3_000;
    expect(await checkedChoice()).toEqual(['team:T0TENDER']);
  });

  it('is the workspace the link names (team=), over the one last visited; an unknown one is ignored', async () => {
    slack.workspaceState.lastVisitedAt = 5_000;
    expect(await checkedChoice({ team: 'T0SECOND' })).toEqual(['team:T0SECOND']);
    expect(await checkedChoice({ team: 'T0NOWHERE' })).toEqual(['team:T0TENDER']);
  });
});
