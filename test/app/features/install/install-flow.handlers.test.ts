import { randomBytes } from 'node:crypto';
import type { Installation } from '@slack/oauth';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstallFlow } from '../../../../src/app/features/install/install-flow.ts';
import { KeyCipher } from '../../../../src/app/security/key-cipher.ts';
import type { BotStore } from '../../../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../../../src/app/storage/open-bot-store.ts';

// What the install flow answers for Slack's events with a real SQLite store: team_access_granted
// (recordCoverage), and the token a scheduled post is made with (botTokenFor). The HTTP install
// itself is tested end to end in install-suite.ts.

const ENTERPRISE = 'E0GRID';
const cipher = new KeyCipher(randomBytes(32).toString('base64'));
let store: BotStore;
let flow: InstallFlow;

beforeAll(() => {
  store = openBotStore('sqlite::memory:');
  flow = new InstallFlow({
    clientId: 'client',
    clientSecret: 'secret',
    stateSecret: 'state-secret-0123456789',
    redirectUri: null,
    // Never called: no org-wide install here asks Slack for its workspaces.
    slackApiUrl: 'http://127.0.0.1:9/api/',
    store,
    cipher,
    logger: pino({ level: 'silent' }),
  });
});
afterAll(async () => {
  await store?.close();
});

const orgWideQuery = { teamId: undefined, enterpriseId: ENTERPRISE, isEnterpriseInstall: true } as const;

describe('recordCoverage (team_access_granted, team_access_revoked)', () => {
  it('keeps the workspaces granted with the organisation’s install, and answers again for one granted back', async () => {
    await flow.installations.storeInstallation({
      team: undefined,
      enterprise: { id: ENTERPRISE, name: 'Grid' },
      user: { id: 'U0ADMIN', token: undefined, scopes: undefined },
      bot: { token: 'xoxb-grid', scopes: ['commands'], id: 'B0BOT', userId: 'U0BOT' },
      isEnterpriseInstall: true,
    } as Installation<'v2', true>);
    await flow.recordCoverage(ENTERPRISE, { add: ['T0SOUTH', 'T0NORTH'] });
    expect((await flow.installations.find(orgWideQuery))?.coveredTeamIds).toEqual(['T0NORTH', 'T0SOUTH']);

    await flow.recordCoverage(ENTERPRISE, { remove: ['T0NORTH'] });
    expect(
      await flow.installations.find({
        teamId: 'T0NORTH',
        enterpriseId: ENTERPRISE,
        isEnterpriseInstall: true,
      }),
    ).toBeNull();
    await flow.recordCoverage(ENTERPRISE, { add: ['T0NORTH'] });
    const granted = await flow.installations.find({
      teamId: 'T0NORTH',
      enterpriseId: ENTERPRISE,
      isEnterpriseInstall: true,
    });
    expect(granted?.bot?.token).toBe('xoxb-grid');
    expect(granted?.revokedTeamIds).toEqual([]);
    expect((await flow.coveredTeams(ENTERPRISE)).sort()).toEqual(['T0NORTH', 'T0SOUTH']);
  });

  it('stores nothing for an organisation with no org-wide install', async () => {
    await flow.recordCoverage('E0NONE', { add: ['T0LOST'] });
    expect(
      await store.findInstallation({ teamId: null, enterpriseId: 'E0NONE', isEnterpriseInstall: true }),
    ).toBeNull();
    expect((await store.listInstallations()).map((stored) => stored.enterpriseId)).toEqual([ENTERPRISE]);
  });
});

describe('botTokenFor (a scheduled post outside a request)', () => {
  it('gives a workspace’s own bot token', async () => {
    await flow.installations.storeInstallation({
      team: { id: 'T0ALONE', name: 'Alone' },
      enterprise: undefined,
      user: { id: 'U0ADMIN', token: undefined, scopes: undefined },
      bot: { token: 'xoxb-alone', scopes: ['commands'], id: 'B0BOT', userId: 'U0BOT' },
      isEnterpriseInstall: false,
    } as Installation<'v2', false>);
    expect(await flow.botTokenFor('T0ALONE')).toBe('xoxb-alone');
  });

  it('gives no token for a workspace the app is not installed in', async () => {
    await store.deleteInstallation({ teamId: null, enterpriseId: ENTERPRISE, isEnterpriseInstall: true });
    expect(await flow.botTokenFor('T0NEVER')).toBeNull();
  });
});
