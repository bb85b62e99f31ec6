import type { Logger } from 'pino';
import type { BotStore } from '../storage/bot-store.ts';

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
