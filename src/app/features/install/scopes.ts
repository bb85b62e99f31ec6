/**
 * The bot permissions an install asks for: the manifest's `oauth_config.scopes.bot`, which
 * test/manifest.test.ts keeps equal to this list.
 */
export const INSTALL_SCOPES = [
  'channels:history',
  'channels:read',
  'chat:write',
  'commands',
  'groups:history',
  'groups:read',
  'im:history',
  // The Home tab's buttons answer in the person's direct messages (conversations.open).
  'im:write',
  'links:read',
  'links:write',
  'mpim:history',
  'users:read',
] as const;
