import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installApp } from '../../../../src/workbench/workspaces.ts';
import { eventually } from '../../../support/bot.ts';
import { KEYS } from '../../../support/fixture.ts';
import { type InstallStack, startInstallStack } from './oauth-app.ts';

let stack: InstallStack;

beforeAll(async () => {
  // Around loadBotConfig's check (which refuses this): the app itself must still not share the key.
  stack = await startInstallStack({ app: { unchecked: { PROCUREMENT_API_KEY: KEYS.bobAdminAcme } } });
  await installApp(stack.slack, stack.app.base, stack.slack.teamId);
});
afterAll(async () => {
  await stack?.stop();
});

describe('a workspace that installed Tenderbot from the public page', () => {
  it('has no key until its admin connects one, whatever key the app was started with', async () => {
    const { slack, app } = stack;
    expect(app.config.PROCUREMENT_API_KEY).toBe(KEYS.bobAdminAcme);
    await slack.slashCommand('U0MEMBER', 'C0BIDS', '/tender', 'search cleaning');
    const answer = await eventually(() => slack.messagesIn('C0BIDS', 'U0MEMBER')[0], 'an answer');
    expect(JSON.stringify(answer)).toContain('/tender connect');
    expect(JSON.stringify(answer)).not.toContain('Tenders matching');
  });
});
