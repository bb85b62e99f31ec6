import type { Logger } from 'pino';
import type { BotStore } from '../storage/bot-store.ts';

/** Where an uninstall or a revocation comes from, as the event's envelope says. */
export interface Departure {
  teamId: string;
  enterpriseId: string | null;
  /** The app was installed for the whole organisation: its org-wide installation goes too. */
  isEnterpriseInstall: boolean;
  why: 'app_uninstalled' | 'tokens_revoked';
}

/**
 * The app was removed from a workspace (or its bot token revoked): its installation, key,
 * personal keys, settings and subscriptions go, in one step of the store; other workspaces keep
 * theirs. Nothing about it is kept in memory, so every copy of the app stops at once.
 */
export async function forgetWorkspace(
  store: Pick<BotStore, 'removeWorkspace' | 'deleteInstallation'>,
  logger: Logger,
  departure: Departure,
  forgetPeople: (teamId: string) => void = () => undefined,
): Promise<void> {
  const { teamId, enterpriseId, isEnterpriseInstall, why } = departure;
  if (isEnterpriseInstall && enterpriseId)
    await store.deleteInstallation({ teamId: null, enterpriseId, isEnterpriseInstall: true });
  const removed = teamId ? await store.removeWorkspace(teamId) : null;
  forgetPeople(teamId);
  logger.info(
    { teamId, enterpriseId, orgWide: isEnterpriseInstall, why, removed },
    'Tenderbot left a workspace',
  );
}
