import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';

export interface SlackUserFacts {
  isAdmin: boolean;
  isGuest: boolean;
}

/** A role rarely changes mid-task: kept a minute, for at most this many people. */
export const USER_CACHE = { max: 1000, ttlMs: 60_000 } as const;

/** A workspace's bot token for work outside a request; null when the app is not installed there. */
export type TokenFor = (teamId: string) => Promise<string | null>;

/**
 * Roles of Slack users, read with users.info and kept briefly in a bounded cache, per workspace:
 * each workspace is asked with its own token (`tokenFor`'s, read from the store as Bolt reads a
 * request's; the client's own with one workspace). The caller names the workspace: no request
 * scope is carried through every promise for it (async hooks cost every request about 4 % of its
 * CPU in `bench:bot`'s profile).
 */
export class SlackUsers {
  private readonly cache: LRUCache<string, SlackUserFacts>;

  constructor(
    private readonly client: WebClient,
    /** Milliseconds, for the time limit; a test passes a fake clock. */
    now: () => number = () => performance.now(),
    private readonly tokenFor: TokenFor | null = null,
  ) {
    this.cache = new LRUCache({
      max: USER_CACHE.max,
      ttl: USER_CACHE.ttlMs,
      ttlResolution: 0,
      perf: { now },
    });
  }

  /** A person's role in `teamId` (none: the one workspace of a single-workspace app). */
  async facts(userId: string, teamId?: string): Promise<SlackUserFacts> {
    const key = `${teamId ?? ''}|${userId}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const { user } = await this.client.users.info({ user: userId, ...(await this.tokenOf(teamId)) });
    const facts = {
      isAdmin: Boolean(user?.is_admin || user?.is_owner || user?.is_primary_owner),
      isGuest: Boolean(user?.is_restricted || user?.is_ultra_restricted),
    };
    this.cache.set(key, facts);
    return facts;
  }

  /** Forgets a workspace's people (it was uninstalled). */
  forgetTeam(teamId: string): void {
    for (const key of [...this.cache.keys()]) if (key.startsWith(`${teamId}|`)) this.cache.delete(key);
  }

  get size(): number {
    this.cache.purgeStale();
    return this.cache.size;
  }

  /** The token argument for the call: none (the client's own) in single-workspace mode. */
  private async tokenOf(teamId: string | undefined): Promise<{ token?: string }> {
    if (!this.tokenFor || !teamId) return {};
    const token = await this.tokenFor(teamId);
    if (!token) throw new Error('Tenderbot is not installed in this workspace');
    return { token };
  }
}
