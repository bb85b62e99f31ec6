import type { WebClient } from '@slack/web-api';

export interface SlackUserFacts {
  isAdmin: boolean;
  isGuest: boolean;
}

const LIFETIME_MS = 60_000;

/** Roles of Slack users, read with users.info and kept for a minute (a role rarely changes mid-task). */
export class SlackUsers {
  private readonly cache = new Map<string, { facts: SlackUserFacts; until: number }>();

  constructor(private readonly client: WebClient) {}

  async facts(userId: string): Promise<SlackUserFacts> {
    const cached = this.cache.get(userId);
    if (cached && cached.until > Date.now()) return cached.facts;
    const { user } = await this.client.users.info({ user: userId });
    const facts = {
      isAdmin: Boolean(user?.is_admin || user?.is_owner || user?.is_primary_owner),
      isGuest: Boolean(user?.is_restricted || user?.is_ultra_restricted),
    };
    this.cache.set(userId, { facts, until: Date.now() + LIFETIME_MS });
    return facts;
  }
}
