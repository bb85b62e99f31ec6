import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import { installApp, SECOND_WORKSPACE } from '../../src/workbench/workspaces.ts';
import { type InstallStack, type OAuthApp, startInstallStack } from '../app/features/install/oauth-app.ts';
import { eventually } from '../support/bot.ts';

let stack: InstallStack;
let slack: FakeSlack;
let app: OAuthApp;

beforeAll(async () => {
  stack = await startInstallStack({ prepare: (fake) => fake.addWorkspace(SECOND_WORKSPACE) });
  ({ slack, app } = stack);
});
afterAll(async () => {
  await stack?.stop();
});

describe('the workbench’s workspaces', () => {
  it('installs the app into its first workspace at start, leaving the second to install by hand', async () => {
    expect(await installApp(slack, app.base, slack.teamId)).toContain('Tenderbot is installed');
    expect((await app.store.listInstallations()).map((installation) => installation.teamId)).toEqual([
      slack.teamId,
    ]);
    await slack.slashCommand('U0ADMIN', 'C0BIDS', '/tender', 'help');
    const answer = await eventually(() => slack.messagesIn('C0BIDS', 'U0ADMIN')[0], 'an answer');
    expect(JSON.stringify(answer.blocks)).toContain('/tender search');
    expect(slack.team(SECOND_WORKSPACE.teamId).botTokens).toEqual([]);
  });

  it('says when a step is refused', async () => {
    const settings = slack.oauthApp;
    if (!settings) throw new Error('the fake Slack has no app settings');
    slack.oauthApp = { ...settings, clientSecret: 'not-the-secret' };
    await expect(installApp(slack, app.base, SECOND_WORKSPACE.teamId)).rejects.toThrow(/refused the install/);
    slack.oauthApp = settings;
  });
});
