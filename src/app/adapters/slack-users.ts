import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';

export interface SlackUserFacts {
  isAdmin: boolean;
  isGuest: boolean;
}

/** A role rarely changes mid-task: kept a minute, for at most this many people. */
export const USER_CACHE = { max: 1000, ttlMs: 60_000 } as const;

/** Roles of Slack users, read with users.info and kept briefly in a bounded cache. */
export class SlackUsers {
  private readonly cache: LRUCache<string, SlackUserFacts>;

  constructor(
    private readonly client: WebClient,
    /** Milliseconds, for the time limit; a test passes a fake clock. */
    now: () => number = () => performance.now(),
  ) {
    this.cache = new LRUCache({
      max: USER_CACHE.max,
      ttl: USER_CACHE.ttlMs,
      ttlResolution: 0,
      perf: { now },
    });
  }

  async facts(userId: string): Promise<SlackUserFacts> {
    const cached = this.cache.get(userId);
    if (cached) return cached;
    const { user } = await this.client.users.info({ user: userId });
    const facts = {
      isAdmin: Boolean(user?.is_admin || user?.is_owner || user?.is_primary_owner),
      isGuest: Boolean(user?.is_restricted || user?.is_ultra_restricted),
    };
    this.cache.set(userId, facts);
    return facts;
  }

  get size(): number {
    this.cache.purgeStale();
    return this.cache.size;
  }
}
