import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SUBSCRIBED_EVENTS, TENDER_COMMAND } from '../src/app/listeners/register-listeners.ts';

const root = resolve(import.meta.dirname, '..');
const manifest = parse(readFileSync(join(root, 'manifest.yml'), 'utf8'));

/** The bot scope each Web API method needs (Slack's method reference); views.* need none. */
const SCOPE_OF_METHOD: Record<string, string | null> = {
  'chat.postMessage': 'chat:write',
  'chat.postEphemeral': 'chat:write',
  'chat.update': 'chat:write',
  'chat.delete': 'chat:write',
  'users.info': 'users:read',
  'conversations.info': 'channels:read',
  'conversations.members': 'channels:read',
  'conversations.join': 'channels:join',
  'team.info': 'team:read',
  'views.open': null,
  'views.update': null,
  'views.push': null,
  'views.publish': null,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Every Web API method the app's code calls, as `client.chat.postMessage(`, `slack.users.info(`… */
function methodsCalled(): Set<string> {
  const methods = new Set<string>();
  for (const file of sourceFiles(join(root, 'src/app'))) {
    // Calls on a Slack client (`client.chat.postMessage(`, `request.slack.views.open(`).
    const calls = /(?:client|slack)\s*\.\s*(chat|users|views|conversations|team)\s*\.\s*(\w+)\s*\(/g;
    for (const match of readFileSync(file, 'utf8').matchAll(calls)) {
      methods.add(`${match[1]}.${match[2]}`);
    }
  }
  return methods;
}

describe('manifest.yml', () => {
  it('declares exactly the slash commands the code registers', () => {
    expect(manifest.features.slash_commands.map((command: { command: string }) => command.command)).toEqual([
      TENDER_COMMAND,
    ]);
  });

  it('subscribes to exactly the events the code listens to', () => {
    expect(manifest.settings.event_subscriptions.bot_events).toEqual([...SUBSCRIBED_EVENTS]);
    const listenerFiles = sourceFiles(join(root, 'src/app/listeners'));
    const registered = listenerFiles.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/app\.event\('(\w+)'/g)].map((match) => match[1]),
    );
    expect(registered.sort()).toEqual([...SUBSCRIBED_EVENTS].sort());
  });

  it('asks for exactly the bot scopes the code needs', () => {
    const called = methodsCalled();
    expect(called.size).toBeGreaterThan(3);
    for (const method of called) expect(SCOPE_OF_METHOD, `a scope for ${method}`).toHaveProperty(method);
    const needed = new Set(
      [...called].map((method) => SCOPE_OF_METHOD[method]).filter((scope): scope is string => scope !== null),
    );
    needed.add('commands');
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual([...needed].sort());
  });

  it('turns on what the code uses: interactivity (buttons, modals) and the Home tab', () => {
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    for (const url of [
      manifest.settings.interactivity.request_url,
      manifest.settings.event_subscriptions.request_url,
    ]) {
      expect(url).toMatch(/\/slack\/events$/);
    }
  });
});
