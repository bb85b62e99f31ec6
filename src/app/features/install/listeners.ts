import type { App } from '@slack/bolt';
import type { FeatureContext } from '../../shared/feature-context.ts';
import type { InstallFlow } from './install-flow.ts';
import { type Departure, forgetWorkspace, revokeTeamAccess } from './uninstall.ts';

/**
 * Removed from a workspace, or its bot token revoked: that workspace's data goes, the others' stays
 * (with an org-wide install, every workspace it covered). Bolt runs the first two without
 * authorize: the token may be gone already.
 */
export function registerInstallListeners(
  app: Pick<App, 'event'>,
  context: FeatureContext,
  install: InstallFlow | null,
): void {
  const hooks = {
    forgetTeam: (teamId: string) => context.users.forgetTeam(teamId),
    ...(install ? { coveredTeams: (enterpriseId: string) => install.coveredTeams(enterpriseId) } : {}),
  };
  app.event('app_uninstalled', async ({ body }) => {
    await forgetWorkspace(context.store, context.logger, departureOf(body, 'app_uninstalled'), hooks);
  });
  app.event('tokens_revoked', async ({ event, body }) => {
    // A revoked person's token (none is ever asked for) leaves the bot working.
    if ((event.tokens.bot ?? []).length === 0) return;
    await forgetWorkspace(context.store, context.logger, departureOf(body, 'tokens_revoked'), hooks);
  });
  // An organisation-ready install removed from (or added to) some workspaces of the organisation.
  // Only workspaces that organisation's install covered go; a workspace standing alone stays.
  app.event('team_access_revoked', async ({ event, body }) => {
    const revocation = { enterpriseId: body.enterprise_id ?? null, teamIds: event.team_ids };
    await revokeTeamAccess(context.store, context.logger, revocation, install, hooks);
  });
  app.event('team_access_granted', async ({ event, body }) => {
    if (install && body.enterprise_id)
      await install.recordCoverage(body.enterprise_id, { add: event.team_ids });
  });
}

/** The workspace an uninstall or a revocation is about, from the Events API envelope. */
function departureOf(
  body: { team_id?: string; enterprise_id?: string; authorizations?: { is_enterprise_install?: boolean }[] },
  why: 'app_uninstalled' | 'tokens_revoked',
): Departure {
  return {
    teamId: body.team_id ?? '',
    enterpriseId: body.enterprise_id ?? null,
    isEnterpriseInstall: body.authorizations?.[0]?.is_enterprise_install === true,
    why,
  };
}
