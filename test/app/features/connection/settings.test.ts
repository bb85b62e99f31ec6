import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { settingsCommand } from '../../../../src/app/features/connection/settings.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';

// `/tender settings`, its handler called directly: anyone reads, only owners and admins change.

let harness: HandlerHarness;
let teamId: string;

beforeAll(async () => {
  harness = await startHandlerHarness();
  teamId = harness.slack.teamId;
});
afterAll(async () => {
  await harness?.close();
});
beforeEach(async () => {
  await harness.context.store.saveWorkspaceSettings({ teamId, personalKeysForWrites: false });
});

const settings = async (userId: string, rest: string) => {
  const request = harness.request({ userId });
  await settingsCommand(harness.context, request, rest);
  return request.said();
};
const required = async () => (await harness.context.store.getWorkspaceSettings(teamId)).personalKeysForWrites;

describe('settingsCommand', () => {
  it('lets an admin require personal keys for changes, and anyone then reads so', async () => {
    expect(await settings('U0MEMBER', '')).toContain('*Personal keys*: optional.');
    expect(await settings('U0ADMIN', 'personal-keys required')).toContain(
      'Done: from now on, changes (bookmarks, comments, bids) need each person’s own key.',
    );
    expect(await required()).toBe(true);
    expect(await settings('U0GUEST', '')).toContain('*Personal keys*: required for changes.');
    expect(await settings('U0ADMIN', 'Personal-Keys OPTIONAL')).toContain('Done: people without a key');
    expect(await required()).toBe(false);
  });

  it('refuses a member and a guest the change, and changes nothing', async () => {
    for (const user of ['U0MEMBER', 'U0GUEST'])
      expect(await settings(user, 'personal-keys required')).toContain(
        'Only a workspace owner or admin can change whether changes need each person’s own key. Nothing was changed.',
      );
    expect(await required()).toBe(false);
  });

  it('answers words it does not know with the usage, and changes nothing', async () => {
    for (const rest of ['personal-keys maybe', 'personal-keys required now', 'colour blue'])
      expect(await settings('U0ADMIN', rest)).toContain('`/tender settings personal-keys required` makes');
    expect(await required()).toBe(false);
  });
});
