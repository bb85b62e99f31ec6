import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { SlackUsers, USER_CACHE } from '../../../src/app/adapters/slack-users.ts';

function setUp() {
  const asked: string[] = [];
  const client = {
    users: {
      info: async ({ user }: { user: string }) => {
        asked.push(user);
        return { ok: true, user: { id: user, is_admin: user === 'U0ADMIN' } };
      },
    },
  } as unknown as WebClient;
  let now = 5_000;
  const users = new SlackUsers(client, () => now);
  return { users, asked, advance: (ms: number) => (now += ms) };
}

describe('the cache of Slack roles', () => {
  it('keeps at most its bound', async () => {
    const { users } = setUp();
    for (let index = 0; index < USER_CACHE.max + 50; index++) await users.facts(`U${index}`);
    expect(users.size).toBe(USER_CACHE.max);
  });

  it('asks Slack again once the time limit passed (a fake clock)', async () => {
    const { users, asked, advance } = setUp();
    expect((await users.facts('U0ADMIN')).isAdmin).toBe(true);
    await users.facts('U0ADMIN');
    expect(asked).toEqual(['U0ADMIN']);
    advance(USER_CACHE.ttlMs + 1);
    await users.facts('U0ADMIN');
    expect(asked).toEqual(['U0ADMIN', 'U0ADMIN']);
  });

  it('asks each workspace with its own token and keeps their answers apart', async () => {
    const asked: { user: string; token: string | undefined }[] = [];
    const client = {
      users: {
        info: async ({ user, token }: { user: string; token?: string }) => {
          asked.push({ user, token });
          return { ok: true, user: { id: user, is_admin: token === 'xoxb-first' } };
        },
      },
    } as unknown as WebClient;
    const tokens: Record<string, string> = { T0FIRST: 'xoxb-first', T0SECOND: 'xoxb-second' };
    const users = new SlackUsers(client, undefined, async (teamId) => tokens[teamId] ?? null);
    expect((await users.facts('U0SAME', 'T0FIRST')).isAdmin).toBe(true);
    expect((await users.facts('U0SAME', 'T0SECOND')).isAdmin).toBe(false);
    await users.facts('U0SAME', 'T0FIRST');
    expect(asked).toEqual([
      { user: 'U0SAME', token: 'xoxb-first' },
      { user: 'U0SAME', token: 'xoxb-second' },
    ]);
    // An uninstalled workspace's people are forgotten, and without a token nothing is asked.
    users.forgetTeam('T0FIRST');
    delete tokens.T0FIRST;
    await expect(users.facts('U0SAME', 'T0FIRST')).rejects.toThrow(/not installed/);
    expect(asked).toHaveLength(2);
  });
});
