import { randomBytes } from 'node:crypto';
import type { Installation } from '@slack/oauth';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstallFlow } from '../../../../src/app/features/install/install-flow.ts';
import { forgetWorkspace, revokeTeamAccess } from '../../../../src/app/features/install/uninstall.ts';
import { KeyCipher } from '../../../../src/app/security/key-cipher.ts';
import type { BotStore } from '../../../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../../../src/app/storage/open-bot-store.ts';

// The handlers of Slack's departure events (app_uninstalled, tokens_revoked, team_access_revoked),
// called directly with a real SQLite store: what each removes, and what it leaves to others.

const ENTERPRISE = 'E0GRID';
const logger = pino({ level: 'silent' });
const cipher = new KeyCipher(randomBytes(32).toString('base64'));
let store: BotStore;
/** The app's install flow over the same store: what an organisation's install covers. */
let flow: InstallFlow;

beforeAll(() => {
  store = openBotStore('sqlite::memory:');
  flow = new InstallFlow({
    clientId: 'client',
    clientSecret: 'secret',
    stateSecret: 'state-secret-0123456789',
    redirectUri: null,
    slackApiUrl: 'http://127.0.0.1:9/api/',
    store,
    cipher,
    logger,
  });
});
afterAll(async () => {
  await store?.close();
});

/** A workspace as an install leaves it: its own installation (unless `own` is false), key, a person's key and settings. */
async function settle(teamId: string, own = true): Promise<void> {
  if (own)
    await flow.installations.storeInstallation({
      team: { id: teamId, name: teamId },
      enterprise: undefined,
      user: { id: 'U0ADMIN', token: undefined, scopes: undefined },
      bot: { token: `xoxb-${teamId}`, scopes: ['commands'], id: 'B0BOT', userId: 'U0BOT' },
      isEnterpriseInstall: false,
    } as Installation<'v2', false>);
  await store.saveConnection({
    teamId,
    encryptedApiKey: cipher.encrypt('pis_key_of_the_workspace_0123456789'),
    serviceUrl: null,
    connectedBy: 'U0ADMIN',
    connectedAt: new Date().toISOString(),
  });
  await store.savePersonalKey({
    teamId,
    userId: 'U0MEMBER',
    encryptedApiKey: cipher.encrypt('pis_key_of_a_person_0123456789'),
    serviceUrl: 'http://127.0.0.1:9',
    connectedAt: new Date(),
  });
  await store.saveWorkspaceSettings({ teamId, personalKeysForWrites: true });
}

/** An organisation's org-wide install covering `teamIds`. */
async function installForOrganisation(teamIds: string[]): Promise<void> {
  await flow.installations.storeInstallation({
    team: undefined,
    enterprise: { id: ENTERPRISE, name: 'Grid' },
    user: { id: 'U0ADMIN', token: undefined, scopes: undefined },
    bot: { token: 'xoxb-grid', scopes: ['commands'], id: 'B0BOT', userId: 'U0BOT' },
    isEnterpriseInstall: true,
  } as Installation<'v2', true>);
  await flow.recordCoverage(ENTERPRISE, { add: teamIds });
}

/** What the store still holds of a workspace. */
async function heldOf(teamId: string) {
  return {
    installation:
      (await store.findInstallation({ teamId, enterpriseId: null, isEnterpriseInstall: false })) !== null,
    connection: (await store.getConnection(teamId)) !== null,
    personalKey: (await store.getPersonalKey(teamId, 'U0MEMBER')) !== null,
    personalKeysForWrites: (await store.getWorkspaceSettings(teamId)).personalKeysForWrites,
  };
}
const ALL = { installation: true, connection: true, personalKey: true, personalKeysForWrites: true };
const NOTHING = { installation: false, connection: false, personalKey: false, personalKeysForWrites: false };
const NO_INSTALL = { ...ALL, installation: false };

describe('forgetWorkspace (app_uninstalled, tokens_revoked)', () => {
  it('removes the uninstalled workspace’s installation, keys and settings; another workspace keeps its own', async () => {
    await settle('T0GONE');
    await settle('T0STAYS');
    const forgotten: string[] = [];
    await forgetWorkspace(
      store,
      logger,
      { teamId: 'T0GONE', enterpriseId: null, isEnterpriseInstall: false, why: 'app_uninstalled' },
      { forgetTeam: (teamId) => forgotten.push(teamId) },
    );
    expect(await heldOf('T0GONE')).toEqual(NOTHING);
    expect(await heldOf('T0STAYS')).toEqual(ALL);
    expect(forgotten).toEqual(['T0GONE']);
  });

  it('removes an organisation’s install and every workspace it covered when its bot token is revoked', async () => {
    await settle('T0NORTH', false);
    await settle('T0SOUTH', false);
    await installForOrganisation(['T0NORTH', 'T0SOUTH']);
    await forgetWorkspace(
      store,
      logger,
      { teamId: 'T0NORTH', enterpriseId: ENTERPRISE, isEnterpriseInstall: true, why: 'tokens_revoked' },
      { coveredTeams: (enterpriseId) => flow.coveredTeams(enterpriseId) },
    );
    expect(await heldOf('T0NORTH')).toEqual(NOTHING);
    expect(await heldOf('T0SOUTH')).toEqual(NOTHING);
    expect(
      await store.findInstallation({ teamId: null, enterpriseId: ENTERPRISE, isEnterpriseInstall: true }),
    ).toBeNull();
  });

  it('removes nothing for an event without a workspace, and keeps an organisation’s install for one that is not org-wide', async () => {
    await settle('T0KEPT');
    await installForOrganisation(['T0KEPT']);
    await forgetWorkspace(store, logger, {
      teamId: '',
      enterpriseId: ENTERPRISE,
      isEnterpriseInstall: false,
      why: 'tokens_revoked',
    });
    expect(await heldOf('T0KEPT')).toEqual(ALL);
    expect(
      await store.findInstallation({ teamId: null, enterpriseId: ENTERPRISE, isEnterpriseInstall: true }),
    ).not.toBeNull();
    await store.deleteInstallation({ teamId: null, enterpriseId: ENTERPRISE, isEnterpriseInstall: true });
  });
});

describe('revokeTeamAccess (team_access_revoked)', () => {
  it('removes a workspace the organisation’s install covered, and stops that install answering for it', async () => {
    await settle('T0EAST', false);
    await settle('T0WEST', false);
    await installForOrganisation(['T0EAST', 'T0WEST']);
    await revokeTeamAccess(store, logger, { enterpriseId: ENTERPRISE, teamIds: ['T0EAST'] }, flow);
    expect(await heldOf('T0EAST')).toEqual(NOTHING);
    expect(await heldOf('T0WEST')).toEqual(NO_INSTALL);
    expect(await flow.coveredTeams(ENTERPRISE)).not.toContain('T0EAST');
    expect(
      await flow.installations.find({
        teamId: 'T0EAST',
        enterpriseId: ENTERPRISE,
        isEnterpriseInstall: true,
      }),
    ).toBeNull();
    expect(
      await flow.installations.find({
        teamId: 'T0WEST',
        enterpriseId: ENTERPRISE,
        isEnterpriseInstall: true,
      }),
    ).not.toBeNull();
  });

  it('leaves a workspace with an install of its own, and one the organisation’s install never covered', async () => {
    await settle('T0OWN');
    await settle('T0ELSEWHERE', false);
    await installForOrganisation(['T0OWN']);
    await revokeTeamAccess(
      store,
      logger,
      { enterpriseId: ENTERPRISE, teamIds: ['T0OWN', 'T0ELSEWHERE'] },
      flow,
    );
    expect(await heldOf('T0OWN')).toEqual(ALL);
    expect(await heldOf('T0ELSEWHERE')).toEqual(NO_INSTALL);
  });

  it('ignores a revocation with no organisation’s install to speak of', async () => {
    await settle('T0ALONE');
    await revokeTeamAccess(store, logger, { enterpriseId: null, teamIds: ['T0ALONE'] }, flow);
    await revokeTeamAccess(store, logger, { enterpriseId: ENTERPRISE, teamIds: ['T0ALONE'] }, null);
    expect(await heldOf('T0ALONE')).toEqual(ALL);
  });
});
