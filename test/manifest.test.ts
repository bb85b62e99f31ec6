import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { INSTALL_PATH, REDIRECT_PATH } from '../src/app/features/install/install-flow.ts';
import { INSTALL_SCOPES } from '../src/app/features/install/scopes.ts';
import { UNFURL_DOMAINS } from '../src/app/features/links/notice-links.ts';
import { WORKFLOW_STEPS } from '../src/app/features/workflows/listeners.ts';
import { SUBSCRIBED_EVENTS, TENDER_COMMAND } from '../src/app/register-listeners.ts';
import { CONTROLS } from '../src/app/shared/controls/control-registry.ts';
import { ReachIds } from '../src/app/shared/ids.ts';

const root = resolve(import.meta.dirname, '..');
const manifest = parse(readFileSync(join(root, 'manifest.yml'), 'utf8'));

/** The bot scopes each Web API method needs (Slack's method reference); views.* need none. */
const SCOPES_OF_METHOD: Record<string, string[]> = {
  'chat.postMessage': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  'chat.update': ['chat:write'],
  'chat.delete': ['chat:write'],
  'chat.unfurl': ['links:write'],
  'users.info': ['users:read'],
  'conversations.info': ['channels:read'],
  'conversations.members': ['channels:read'],
  'conversations.join': ['channels:join'],
  'conversations.open': ['im:write'],
  'users.conversations': ['channels:read', 'groups:read'],
  // A subscription may be in a public or private channel, a DM or a group DM: the history of each
  // is its own scope (a post whose answer was lost is looked for there).
  'conversations.history': ['channels:history', 'groups:history', 'im:history', 'mpim:history'],
  'team.info': ['team:read'],
  'views.open': [],
  'views.update': [],
  'views.push': [],
  'views.publish': [],
};

/** The bot scopes each event needs (Slack's event reference). */
const SCOPES_OF_EVENT: Record<string, string[]> = {
  app_home_opened: [],
  link_shared: ['links:read'],
  'message.im': ['im:history'],
  member_joined_channel: ['channels:read', 'groups:read'],
  // A run of one of the app's own Workflow Builder steps: no scope.
  function_executed: [],
  // A person opens one of the app's Work Objects (docs/work-objects.md): "No scopes required".
  entity_details_requested: [],
  // Sent to every app, no scope needed.
  app_uninstalled: [],
  tokens_revoked: [],
  team_access_granted: [],
  team_access_revoked: [],
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
    const listenerFiles = sourceFiles(join(root, 'src/app'));
    const registered = listenerFiles.flatMap((file) => {
      const source = readFileSync(file, 'utf8');
      // Bolt's app.function listens to `function_executed` (the Workflow Builder steps).
      const steps = source.includes('app.function(') ? ['function_executed'] : [];
      return [...[...source.matchAll(/app\.event\('(\w+)'/g)].map((match) => match[1]), ...steps];
    });
    // Bolt listens to `message` for the manifest's `message.im` (the listener keeps DMs only).
    expect(registered.sort()).toEqual([...SUBSCRIBED_EVENTS].map((event) => event.split('.')[0]).sort());
  });

  it('asks for exactly the bot scopes the code needs', () => {
    const called = methodsCalled();
    expect(called.size).toBeGreaterThan(3);
    for (const method of called) expect(SCOPES_OF_METHOD, `a scope for ${method}`).toHaveProperty(method);
    for (const event of SUBSCRIBED_EVENTS)
      expect(SCOPES_OF_EVENT, `a scope for ${event}`).toHaveProperty(event);
    const needed = new Set([
      ...[...called].flatMap((method) => SCOPES_OF_METHOD[method] ?? []),
      ...SUBSCRIBED_EVENTS.flatMap((event) => SCOPES_OF_EVENT[event] ?? []),
    ]);
    needed.add('commands');
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual([...needed].sort());
  });

  it('declares the shortcuts the code registers, within Slack’s limits', () => {
    const shortcuts = manifest.features.shortcuts as {
      name: string;
      type: string;
      callback_id: string;
      description: string;
    }[];
    expect(shortcuts.map(({ type, callback_id }) => ({ type, callback_id }))).toEqual([
      { type: 'global', callback_id: ReachIds.searchShortcut },
      { type: 'message', callback_id: ReachIds.commentShortcut },
    ]);
    // Slack's manifest schema: a name of at most 24 characters, a description of at most 150.
    for (const shortcut of shortcuts) {
      expect(shortcut.name.length).toBeLessThanOrEqual(24);
      expect(shortcut.description.length).toBeLessThanOrEqual(150);
    }
    // Every shortcut is registered through the registry of controls, one row each.
    const registered = CONTROLS.filter((control) => control.kind === 'shortcut').map((control) => control.id);
    expect(registered.sort()).toEqual(shortcuts.map((shortcut) => shortcut.callback_id).sort());
  });

  it('declares the unfurl domains the link reader knows: five at most, as Slack allows', () => {
    expect(manifest.features.unfurl_domains).toEqual([...UNFURL_DOMAINS]);
    expect(manifest.features.unfurl_domains.length).toBeLessThanOrEqual(5);
  });

  it('turns on what the code uses: interactivity (buttons, modals, options), the Home and Messages tabs', () => {
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    expect(manifest.features.app_home.messages_tab_enabled).toBe(true);
    expect(manifest.features.app_home.messages_tab_read_only_enabled).toBe(false);
    for (const url of [
      manifest.settings.interactivity.request_url,
      manifest.settings.interactivity.message_menu_options_url,
      manifest.settings.event_subscriptions.request_url,
    ]) {
      expect(url).toMatch(/\/slack\/events$/);
    }
  });

  it('documents the install into many workspaces: the redirect URL, the uninstall events, the scopes asked', () => {
    const redirects = manifest.oauth_config.redirect_urls as string[];
    // Slack's manifest schema: unique, at most 1000, each at most 2500 characters.
    expect(new Set(redirects).size).toBe(redirects.length);
    expect(redirects.length).toBeLessThanOrEqual(1000);
    for (const url of redirects) {
      expect(url.length).toBeLessThanOrEqual(2500);
      expect(new URL(url).pathname).toBe(REDIRECT_PATH);
    }
    const events = manifest.settings.event_subscriptions.bot_events as string[];
    expect(events).toEqual(expect.arrayContaining(['app_uninstalled', 'tokens_revoked']));
    // Slack's manifest schema: at most 100 bot events, unique, each at most 50 characters.
    expect(events.length).toBeLessThanOrEqual(100);
    expect(new Set(events).size).toBe(events.length);
    for (const event of events) expect(event.length).toBeLessThanOrEqual(50);
    // The install asks for exactly what the manifest declares.
    expect([...INSTALL_SCOPES].sort()).toEqual([...manifest.oauth_config.scopes.bot].sort());
    expect(readFileSync(join(root, 'manifest.yml'), 'utf8')).toContain(INSTALL_PATH);
  });
});

/** Slack's manifest schema (slackapi/manifest-schema, 1.0.0): the types a step's parameter may have. */
const PARAMETER_TYPES = [
  'integer',
  'number',
  'boolean',
  'string',
  'object',
  'array',
  'slack#/types/user_context',
  'slack#/types/user_permission',
  'slack#/types/user_id',
  'slack#/types/channel_id',
  'slack#/types/usergroup_id',
  'slack#/types/timestamp',
  'slack#/types/blocks',
  'slack#/types/credential/oauth2',
  'slack#/types/date',
  'slack#/types/interactivity',
  'slack#/types/rich_text',
  'slack#/types/form_input',
  'slack#/types/form_input_object',
  'slack#/types/message_ts',
  'slack#/types/message_context',
];

interface DeclaredParameter {
  type: string;
  title?: string;
  description?: string;
  is_required?: boolean;
}
interface DeclaredFunction {
  title: string;
  description: string;
  input_parameters: Record<string, DeclaredParameter>;
  output_parameters: Record<string, DeclaredParameter>;
}

const workflowsDir = join(root, 'src/app/features/workflows');

/** The inputs a step's handler reads (`textInput(run, 'words')`…), and `user_context` when it picks a key by person. */
function inputsReadBy(handlerName: string): Set<string> {
  const file = sourceFiles(workflowsDir).find((path) =>
    readFileSync(path, 'utf8').includes(`export async function ${handlerName}(`),
  );
  if (!file) throw new Error(`no file exports ${handlerName}`);
  const source = readFileSync(file, 'utf8');
  const read = new Set(
    [...source.matchAll(/(?:textInput|requiredInput)\(run, '(\w+)'/g)].map((match) => match[1] as string),
  );
  // The person a key is picked for is Slack's user context, never a free user_id input.
  if (/\b(readerOf|writerOf|actorOf)\(/.test(source)) read.add('user_context');
  return read;
}

describe('manifest.yml: the Workflow Builder steps', () => {
  const functions = manifest.functions as Record<string, DeclaredFunction>;

  it('declares exactly the steps the code registers with app.function', () => {
    expect(Object.keys(functions).sort()).toEqual(Object.keys(WORKFLOW_STEPS).sort());
    const listeners = readFileSync(join(workflowsDir, 'listeners.ts'), 'utf8');
    expect(listeners).toMatch(/app\.function\(callbackId,/);
  });

  it('declares the inputs each handler reads, and requires only inputs it reads', () => {
    for (const [callbackId, handler] of Object.entries(WORKFLOW_STEPS)) {
      const declared = functions[callbackId]?.input_parameters ?? {};
      const read = inputsReadBy(handler.name);
      expect([...read].sort(), `${callbackId} reads`).toEqual(Object.keys(declared).sort());
      for (const [name, parameter] of Object.entries(declared))
        if (parameter.is_required)
          expect(read.has(name), `${callbackId} uses its required ${name}`).toBe(true);
    }
  });

  it('is valid against Slack’s manifest schema: functions, their parameters, and the settings steps need', () => {
    expect(Object.keys(functions).length).toBeLessThanOrEqual(50);
    for (const [callbackId, declared] of Object.entries(functions)) {
      expect(Object.keys(declared).sort(), callbackId).toEqual(
        ['description', 'input_parameters', 'output_parameters', 'title'].sort(),
      );
      expect(typeof declared.title).toBe('string');
      expect(typeof declared.description).toBe('string');
      for (const parameters of [declared.input_parameters, declared.output_parameters]) {
        expect(Object.keys(parameters).length).toBeLessThanOrEqual(50);
        for (const [name, parameter] of Object.entries(parameters)) {
          expect(PARAMETER_TYPES, `${callbackId}.${name}`).toContain(parameter.type);
          for (const key of ['title', 'description'] as const)
            if (parameter[key] !== undefined) expect(typeof parameter[key]).toBe('string');
          if (parameter.is_required !== undefined) expect(typeof parameter.is_required).toBe('boolean');
          for (const key of Object.keys(parameter))
            expect(['type', 'title', 'description', 'is_required', 'is_hidden', 'hint']).toContain(key);
        }
      }
    }
    // SLACK.md: steps need an organisation-ready app whose functions run remotely (on our servers).
    expect(manifest.settings.org_deploy_enabled).toBe(true);
    expect(manifest.settings.function_runtime).toBe('remote');
    expect(manifest.settings.event_subscriptions.bot_events).toContain('function_executed');
  });
});
