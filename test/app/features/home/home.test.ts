import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { publishHome } from '../../../../src/app/features/home/home.ts';
import { KeyCipher } from '../../../../src/app/security/key-cipher.ts';
import { HomeIds } from '../../../../src/app/shared/ids.ts';
import { KEYS } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';
import { textOf } from '../../../support/slack-text.ts';

// The Home tab's handler, called directly: what it draws for whom, with the local service's lists.

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
  await harness.context.clients.forget(teamId);
  await harness.context.store.removeConnection(teamId);
});

/** The Home tab as Slack holds it for `userId` after publishHome: its text, and its buttons' ids and values. */
const homeOf = async (userId: string, options: { firstVisit?: boolean } = {}) => {
  await publishHome(harness.context, harness.request({ userId }).slack, teamId, userId, options);
  const view = harness.slack.homeOf(userId)?.view;
  const buttons: { id: string; value: string; label: string }[] = [];
  JSON.stringify(view, (_key, value) => {
    if (value?.type === 'button')
      buttons.push({ id: value.action_id, value: value.value, label: value.text?.text });
    return value;
  });
  return { text: textOf(view), buttons };
};

describe('publishHome', () => {
  it('draws an admin’s Home: the connection in use, the workspace’s connect button and the key’s lists', async () => {
    const home = await homeOf('U0ADMIN', { firstVisit: true });
    expect(home.text).toContain('Tenderbot uses the connection to the tender service it was set up with.');
    expect(home.buttons).toContainEqual({
      id: HomeIds.connect,
      value: 'connect',
      label: 'Connect an API key',
    });
    expect(home.buttons).toContainEqual({ id: HomeIds.connect, value: 'me', label: 'Link your own key' });
    expect(home.text).toContain('*Bookmarks*');
    expect(home.text).toContain('*Current bids*');
    // Each bid named by its reference, as its card names it.
    expect(home.text).toMatch(/\*Bob’s hospital cleaning bid\* · `BID-\d+` ·/);
    expect(home.text).toContain('*Saved searches*');
  });

  it('gives a member no button for the workspace’s key, only the one for their own', async () => {
    const home = await homeOf('U0MEMBER');
    expect(home.buttons.filter((button) => button.id === HomeIds.connect)).toEqual([
      { id: HomeIds.connect, value: 'me', label: 'Link your own key' },
    ]);
  });

  it('tells a member their own key makes bookmarks theirs and comments and bids in their name; a guest, only what it reads', async () => {
    const member = await homeOf('U0MEMBER');
    expect(member.text).toContain('to keep bookmarks of your own and comment and start bids in your name');
    const guest = await homeOf('U0GUEST');
    expect(guest.text).toContain(
      'Link your own key with `/tender connect me` to read the bookmarks and bids it sees here (as a guest you can read them, not change them).',
    );
    expect(guest.text).not.toContain('comment and start bids in your name');
  });

  it('says a workspace key this app can no longer read must be connected again, and shows no lists', async () => {
    const otherCipher = new KeyCipher(randomBytes(32).toString('base64'));
    await harness.context.store.saveConnection({
      teamId,
      encryptedApiKey: otherCipher.encrypt(KEYS.aliceAcme),
      serviceUrl: null,
      connectedBy: 'U0ADMIN',
      connectedAt: new Date().toISOString(),
    });
    const home = await homeOf('U0GUEST');
    expect(home.text).toContain('Tenderbot can no longer read this workspace’s key');
    expect(home.text).not.toContain('*Bookmarks*');
    expect(home.text).not.toContain('*Saved searches*');
  });
});
