import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BotStore } from '../../../../src/app/storage/bot-store.ts';
import type { BotApp } from '../../../../src/cli/compose-bot.ts';
import type { FakeMessage, FakeSlack } from '../../../../src/fake-slack/fake-slack.ts';
import { installAppAt } from '../../../../src/workbench/workspaces.ts';
import { eventually } from '../../../support/bot.ts';
import { KEYS } from '../../../support/fixture.ts';
import { deadlineSubscription, type InstallStack, type OAuthApp, startInstallStack } from './oauth-app.ts';

const GRID = { id: 'E0GRID', name: 'Grid Holdings' };
/** How long to wait for what the app does after acknowledging (a wait, not a bound: two busy cores). */
const AFTER_ACK = { timeout: 15_000 };
/** Two workspaces of one Enterprise Grid organisation, each with its own admin and channel. */
const NORTH = { teamId: 'T0NORTH', admin: 'UNADMIN', channel: 'CNBIDS' };
const SOUTH = { teamId: 'T0SOUTH', admin: 'USADMIN', channel: 'CSBIDS' };

let stack: InstallStack;
let slack: FakeSlack;
let app: OAuthApp;
let store: BotStore;
let bot: BotApp;

beforeAll(async () => {
  stack = await startInstallStack({
    // The first workspace stands alone; the organisation's two are installed nowhere yet.
    prepare: (fake) => {
      for (const workspace of [NORTH, SOUTH])
        fake.addWorkspace({
          teamId: workspace.teamId,
          teamName: `Grid ${workspace.teamId.slice(3)}`,
          enterprise: GRID,
          users: [{ id: workspace.admin, name: 'gia', realName: 'Gia Grid', isAdmin: true }],
          channels: [{ id: workspace.channel, name: 'bids' }],
        });
    },
    // This app names its redirect URL (SLACK_REDIRECT_URI): Slack's code is then traded only with it.
    app: { namedRedirect: true },
  });
  ({ slack, app } = stack);
  ({ store, bot } = app);
});
afterAll(async () => {
  await stack?.stop();
});

/** "Add to Slack", then Allow for the whole organisation on Slack's page, then back to the app. */
async function installForOrganisation(): Promise<string> {
  const page = await request(`${app.base}/slack/install`);
  // The install link carries the named redirect URL.
  expect(decodeURIComponent(await page.body.text())).toContain(
    `redirect_uri=${app.base}/slack/oauth_redirect`,
  );
  return installAppAt(slack, app.base, `org:${GRID.id}`);
}

async function command(workspace: typeof NORTH, text: string): Promise<FakeMessage> {
  const team = slack.team(workspace.teamId);
  const before = team.messagesIn(workspace.channel, workspace.admin).length;
  const sent = await team.slashCommand(workspace.admin, workspace.channel, '/tender', text);
  expect(sent.status).toBe(200);
  return eventually(
    () => team.answerTo(sent, workspace.channel, workspace.admin, before),
    `an answer to ${text}`,
  );
}

describe('an organisation-wide install on Enterprise Grid', () => {
  it('installs once for the organisation and answers in each of its workspaces with its token', async () => {
    expect(await installForOrganisation()).toContain(`every workspace of ${GRID.name}`);
    const installations = await store.listInstallations();
    expect(installations).toHaveLength(1);
    expect(installations[0]).toMatchObject({
      teamId: null,
      enterpriseId: GRID.id,
      isEnterpriseInstall: true,
    });
    const orgToken = slack.team(NORTH.teamId).botTokens[0];
    expect(slack.team(SOUTH.teamId).botTokens).toEqual([orgToken]);
    // The stand-alone workspace is not part of it.
    expect(slack.botTokens).toEqual([]);

    for (const workspace of [NORTH, SOUTH]) {
      const team = slack.team(workspace.teamId);
      expect(JSON.stringify((await command(workspace, 'help')).blocks)).toContain('/tender search');
      // An admin's /tender connect: users.info and views.open with the organisation's token.
      await team.slashCommand(workspace.admin, workspace.channel, '/tender', 'connect');
      await eventually(() => team.openModals(workspace.admin)[0], 'the connect window');
      const calls = team.calls.filter((call) => ['users.info', 'views.open'].includes(call.method));
      expect(calls.map((call) => call.method).sort()).toEqual(['users.info', 'views.open']);
      expect(calls.every((call) => call.token === orgToken)).toBe(true);
    }
  });

  it('posts a scheduled post in a workspace of the organisation with the organisation’s token', async () => {
    // The workspace's admin connects its key in the window the last test opened.
    const south = slack.team(SOUTH.teamId);
    const modal = south.openModals(SOUTH.admin)[0];
    if (!modal) throw new Error('the connect window is not open');
    expect((await south.submitView(SOUTH.admin, modal.id, { 'connect/key': KEYS.bobAdminAcme })).status).toBe(
      200,
    );
    await expect.poll(() => store.getConnection(SOUTH.teamId), AFTER_ACK).not.toBeNull();
    const now = new Date();
    await store.createSubscription(
      deadlineSubscription({
        id: 's-grid-south',
        teamId: SOUTH.teamId,
        channelId: SOUTH.channel,
        createdBy: SOUTH.admin,
        days: 30,
        nextRunAt: new Date(now.getTime() - 1000),
      }),
    );
    await bot.scheduler.runDue();
    const posts = south.callsOf('chat.postMessage');
    expect(posts.length).toBeGreaterThan(0);
    expect(
      posts.every((call) => call.token === south.botTokens[0] && call.args.channel === SOUTH.channel),
    ).toBe(true);
    // Which workspaces the install covers was asked of Slack once, with that token.
    expect(
      south.callsOf('auth.teams.list').length + slack.team(NORTH.teamId).callsOf('auth.teams.list').length,
    ).toBe(1);
  });

  it('forgets a workspace the organisation’s install no longer covers, and hears when it covers it again', async () => {
    const south = slack.team(SOUTH.teamId);
    expect(await store.getConnection(SOUTH.teamId)).not.toBeNull();
    expect(await store.channelSubscriptions(SOUTH.teamId, SOUTH.channel)).toHaveLength(1);
    expect((await south.removeFromOrganisationInstall())?.status).toBe(200);
    // team_access_revoked: that workspace's key and subscriptions go; the other workspace keeps answering.
    await expect.poll(() => store.getConnection(SOUTH.teamId), AFTER_ACK).toBeNull();
    await expect.poll(() => store.channelSubscriptions(SOUTH.teamId, SOUTH.channel), AFTER_ACK).toEqual([]);
    expect(JSON.stringify((await command(NORTH, 'help')).blocks)).toContain('/tender search');
    await expect.poll(() => bot.install?.coveredTeams(GRID.id), AFTER_ACK).toEqual([NORTH.teamId]);

    // team_access_granted: covered again; its admin connects a key again.
    expect((await south.addToOrganisationInstall())?.status).toBe(200);
    await expect
      .poll(async () => (await bot.install?.coveredTeams(GRID.id))?.sort(), AFTER_ACK)
      .toEqual([NORTH.teamId, SOUTH.teamId]);
    await south.slashCommand(SOUTH.admin, SOUTH.channel, '/tender', 'connect');
    const modal = await eventually(() => south.openModals(SOUTH.admin).at(-1), 'the connect window');
    await south.submitView(SOUTH.admin, modal.id, { 'connect/key': KEYS.bobAdminAcme });
    await expect.poll(() => store.getConnection(SOUTH.teamId), AFTER_ACK).not.toBeNull();
  });

  it('team_access_revoked naming a workspace outside the organisation leaves it installed, with its key and subscriptions', async () => {
    // The fake's first workspace stands alone: installed on its own, its key connected, a subscription.
    expect(await installAppAt(slack, app.base, `team:${slack.teamId}`)).not.toContain('every workspace');
    const alone = { teamId: slack.teamId, admin: 'U0ADMIN', channel: 'C0BIDS' };
    await slack.slashCommand(alone.admin, alone.channel, '/tender', 'connect');
    const modal = await eventually(() => slack.openModals(alone.admin).at(-1), 'the connect window');
    await slack.submitView(alone.admin, modal.id, { 'connect/key': KEYS.bobAdminAcme });
    await expect.poll(() => store.getConnection(alone.teamId), AFTER_ACK).not.toBeNull();
    await store.createSubscription(
      deadlineSubscription({
        id: 's-alone',
        teamId: alone.teamId,
        channelId: alone.channel,
        createdBy: alone.admin,
        days: 30,
        nextRunAt: new Date(Date.now() + 86_400_000),
      }),
    );
    const ownInstall = { teamId: alone.teamId, enterpriseId: null, isEnterpriseInstall: false };
    const installedBefore = await store.findInstallation(ownInstall);
    expect(installedBefore).not.toBeNull();

    // The organisation's install (sent from a workspace it covers, signed) names the lone workspace.
    const loggedBefore = app.logged.length;
    const answer = await slack.team(NORTH.teamId).sendEvent({
      type: 'team_access_revoked',
      team_ids: [alone.teamId],
    });
    expect(answer.status).toBe(200);
    // The app acknowledges first: its log says when it has acted on the event.
    await expect
      .poll(() => app.logged.slice(loggedBefore).join(''), AFTER_ACK)
      .toContain('organisation access revoked');
    expect(await store.findInstallation(ownInstall)).toEqual(installedBefore);
    expect(await store.getConnection(alone.teamId)).not.toBeNull();
    expect((await store.channelSubscriptions(alone.teamId, alone.channel)).map((each) => each.id)).toEqual([
      's-alone',
    ]);
    // It still answers there with its own token, and in the organisation as before.
    const before = slack.messagesIn(alone.channel, alone.admin).length;
    const sent = await slack.slashCommand(alone.admin, alone.channel, '/tender', 'help');
    const help = await eventually(() => slack.answerTo(sent, alone.channel, alone.admin, before), 'help');
    expect(JSON.stringify(help.blocks)).toContain('/tender search');
    expect(JSON.stringify((await command(NORTH, 'help')).blocks)).toContain('/tender search');
  });

  it('no longer serves a workspace through the organisation’s install once its access was revoked', async () => {
    const south = slack.team(SOUTH.teamId);
    expect(JSON.stringify((await command(SOUTH, 'help')).blocks)).toContain('/tender search');
    expect((await south.removeFromOrganisationInstall())?.status).toBe(200);
    await expect.poll(() => store.getConnection(SOUTH.teamId), AFTER_ACK).toBeNull();
    // A request from it (the organisation's id still on it) finds no install; the organisation's
    // other workspace is still answered, and scheduled posts find no token for it.
    expect(JSON.stringify(await command(SOUTH, 'help'))).toContain('not installed in this workspace');
    expect(JSON.stringify((await command(NORTH, 'help')).blocks)).toContain('/tender search');
    expect(await bot.install?.botTokenFor(SOUTH.teamId)).toBeNull();
    expect(await bot.install?.botTokenFor(NORTH.teamId)).toBe(slack.team(NORTH.teamId).botTokens[0]);
  });

  it('forgets the organisation-wide install and every workspace it covered when the app is removed from the organisation', async () => {
    const answers = await slack.team(NORTH.teamId).uninstallApp();
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    // The workspace standing alone keeps its own install.
    await expect
      .poll(async () => (await store.listInstallations()).map((each) => each.teamId), AFTER_ACK)
      .toEqual([slack.teamId]);
    // Not only the workspace the events came from: the other one's key goes too.
    await expect.poll(() => store.getConnection(SOUTH.teamId), AFTER_ACK).toBeNull();
    for (const workspace of [NORTH, SOUTH])
      expect(JSON.stringify(await command(workspace, 'help'))).toContain('not installed in this workspace');
  });
});
