import type { Logger } from 'pino';
import type { BotStore } from '../../storage/bot-store.ts';

/** Where an uninstall or a revocation comes from, as the event's envelope says. */
export interface Departure {
  teamId: string;
  enterpriseId: string | null;
  /** The app was installed for the whole organisation: its org-wide installation goes too. */
  isEnterpriseInstall: boolean;
  why: 'app_uninstalled' | 'tokens_revoked' | 'team_access_revoked';
}

/** What else leaving a workspace touches beside the store. */
export interface DepartureHooks {
  /** The workspaces an organisation's org-wide install covers (read before it is removed). */
  coveredTeams?: (enterpriseId: string) => Promise<string[]>;
  /** Forgets what this copy keeps in memory about a workspace (people's roles). */
  forgetTeam?: (teamId: string) => void;
}

/** A database blip must not leave a workspace's keys behind: each removal is tried a few times. */
const ATTEMPTS = 3;
const PAUSE_MS = 250;

/**
 * The app was removed from a workspace (or its bot token revoked): its installation, key,
 * personal keys, settings and subscriptions go, in one step of the store; other workspaces keep
 * theirs. Removed from a whole organisation: every workspace its install covered goes. Nothing
 * about it is kept in memory, so every copy of the app stops at once.
 */
export async function forgetWorkspace(
  store: Pick<BotStore, 'removeWorkspace' | 'deleteInstallation'>,
  logger: Logger,
  departure: Departure,
  hooks: DepartureHooks = {},
): Promise<void> {
  const { teamId, enterpriseId, isEnterpriseInstall, why } = departure;
  const orgWide = isEnterpriseInstall && enterpriseId !== null;
  const covered = orgWide && hooks.coveredTeams ? await hooks.coveredTeams(enterpriseId) : [];
  const teams = [...new Set([teamId, ...covered].filter((id) => id !== ''))];
  if (orgWide)
    await retried(() => store.deleteInstallation({ teamId: null, enterpriseId, isEnterpriseInstall: true }));
  await forgetTeams(store, logger, teams, why, hooks);
  logger.info({ teamId, enterpriseId, orgWide, why, teams: teams.length }, 'Tenderbot left a workspace');
}

/** Removes each workspace's data (installation, keys, settings, subscriptions), one step each. */
export async function forgetTeams(
  store: Pick<BotStore, 'removeWorkspace'>,
  logger: Logger,
  teamIds: readonly string[],
  why: Departure['why'],
  hooks: DepartureHooks = {},
): Promise<void> {
  for (const teamId of teamIds) {
    const removed = await retried(() => store.removeWorkspace(teamId));
    hooks.forgetTeam?.(teamId);
    logger.info({ teamId, why, removed }, 'removed a workspace’s data');
  }
}

/** What revoking an organisation's access reads and records (the app's InstallFlow). */
export interface OrganisationAccess {
  coveredTeams(enterpriseId: string): Promise<string[]>;
  recordCoverage(enterpriseId: string, change: { add?: string[]; remove?: string[] }): Promise<void>;
}

/**
 * `team_access_revoked`: the organisation's install (the event's enterprise) no longer serves these
 * workspaces. The revocation is recorded first, so the organisation's install stops answering for
 * them at once; then the data of each workspace that install covered goes. A workspace it did not
 * cover (another organisation's, or one standing alone) and one with an install of its own keep
 * everything: the event speaks for that organisation's install only.
 */
export async function revokeTeamAccess(
  store: Pick<BotStore, 'removeWorkspace' | 'findInstallation'>,
  logger: Logger,
  revocation: { enterpriseId: string | null; teamIds: readonly string[] },
  access: OrganisationAccess | null,
  hooks: DepartureHooks = {},
): Promise<void> {
  const { enterpriseId } = revocation;
  const named = [...new Set(revocation.teamIds.filter((id) => id !== ''))];
  if (!enterpriseId || !access) {
    // No organisation's install to speak of (single-workspace mode, or no enterprise id): nothing it covered.
    logger.warn(
      { enterpriseId, teams: named },
      'team_access_revoked without an organisation install: ignored',
    );
    return;
  }
  const covered = new Set(await access.coveredTeams(enterpriseId));
  await retried(() => access.recordCoverage(enterpriseId, { remove: named }));
  const removable: string[] = [];
  for (const teamId of named) {
    const own = await retried(() =>
      store.findInstallation({ teamId, enterpriseId: null, isEnterpriseInstall: false }),
    );
    if (covered.has(teamId) && !own) removable.push(teamId);
    else
      logger.warn(
        { teamId, enterpriseId, coveredByOrganisation: covered.has(teamId), ownInstall: own !== null },
        'team_access_revoked named a workspace that organisation’s install does not hold: left installed',
      );
  }
  await forgetTeams(store, logger, removable, 'team_access_revoked', hooks);
  logger.info(
    { enterpriseId, named: named.length, removed: removable.length },
    'organisation access revoked',
  );
}

async function retried<T>(step: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS * attempt));
    }
  }
}
