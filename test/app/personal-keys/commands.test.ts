import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyCipher } from '../../../src/app/security/key-cipher.ts';
import { PERSONAL_KEY_REQUIRED_SENTENCE } from '../../../src/app/shared/failure-sentences.ts';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
import { eventually, type RunningBot, startBot, tenderCommand } from '../../support/bot.ts';
import { KEYS, TENDER_B } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';
import { jargonIn, textsPeopleRead } from '../../support/workbench.ts';
import { ADMIN, answerWith as answerIn, CHANNEL, MEMBER, textOf } from './support.ts';

// The typed commands of personal keys: `/tender connect me` (an admin too gets their own key's
// window), `/tender disconnect me`, and `/tender settings personal-keys required|optional`.

let sandbox: TestSandbox;
let bot: RunningBot;
let store: BotStore;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  const databasePath = join(mkdtempSync(join(sandbox.dir, 'bot-')), 'bot.db');
  bot = await startBot({ serviceUrl: sandbox.baseUrl, defaultKey: KEYS.carolMemberAcme, databasePath });
  store = openBotStore(`sqlite:${databasePath}`);
}, 60_000);

afterAll(async () => {
  await store?.close();
  await bot?.stop();
  await sandbox?.stop();
});

const command = (user: string, text: string) => tenderCommand(bot, user, CHANNEL, text);
const answerWith = (user: string, text: string, expected: string) =>
  answerIn(bot, user, CHANNEL, text, expected);

describe('/tender connect me and /tender disconnect me', () => {
  it('gives an admin the window for their own key, and leaves the workspace’s key alone', async () => {
    await bot.slack.slashCommand(ADMIN, CHANNEL, '/tender', 'connect me');
    const modal = await eventually(() => bot.slack.openModals(ADMIN)[0], 'the personal connect modal');
    expect(modal.view.title.text).toBe('Link your own key');
    const right = await bot.slack.submitView(ADMIN, modal.id, { 'connect/key': KEYS.bobAdminAcme });
    expect(right.json?.response_action).toBeUndefined();
    const linked = await eventually(
      () => bot.slack.messagesIn(CHANNEL, ADMIN).find((message) => message.text.startsWith('Linked.')),
      'the confirmation',
    );
    // The shared key (Carol's) sees her private bid; Bob's own does not: said, with the way back.
    expect(linked.text).toContain(
      '1 bid you saw with the shared key is not seen with your own: the service shows a bid to the person whose key started it and to those it is shared with. To work on it, `/tender disconnect me` goes back to the shared key.',
    );
    expect(await store.getPersonalKey(bot.slack.teamId, ADMIN)).not.toBeNull();
    expect(await store.getConnection(bot.slack.teamId)).toBeNull();
    expect(textOf(await command(ADMIN, 'bookmarks'))).toContain('These are *your own* bookmarks');
    // The word alone is about the workspace's key (which it does not have here), and names the other.
    expect((await command(ADMIN, 'disconnect')).text).toContain(
      'This workspace has no key of its own to disconnect. Your own key is unlinked with `/tender disconnect me`.',
    );
  });

  it('unlinks at once with disconnect me (no question: nobody else is affected)', async () => {
    const answer = await command(ADMIN, 'disconnect me');
    expect(answer.text).toContain('Unlinked: your own key is deleted.');
    // Back to the shared key, which sees every bid Bob's did.
    expect(answer.text).not.toContain('not seen');
    expect(await store.getPersonalKey(bot.slack.teamId, ADMIN)).toBeNull();
    expect((await command(MEMBER, 'disconnect me')).text).toContain('You have no key of your own linked.');
    expect((await command(MEMBER, 'connect someone')).text).toContain(
      '`/tender connect me` links a key of your own',
    );
  });
});

describe('bids an own key hides, or shows', () => {
  it('says on unlinking which bids the own key saw that the shared one does not, and how to see them again', async () => {
    await bot.slack.slashCommand(MEMBER, CHANNEL, '/tender', 'connect me');
    const modal = await eventually(
      () => bot.slack.openModals(MEMBER).find((view) => view.view.title.text === 'Link your own key'),
      'the personal connect modal',
    );
    await bot.slack.submitView(MEMBER, modal.id, { 'connect/key': KEYS.daveBeta });
    await eventually(
      () => bot.slack.messagesIn(CHANNEL, MEMBER).find((message) => message.text.startsWith('Linked.')),
      'the confirmation',
    );
    // Dave's key (another organisation) sees its own bid, which the shared key (Carol's) does not.
    const answer = await command(MEMBER, 'disconnect me');
    expect(answer.text).toContain(
      '1 bid you saw with your own key is not seen with the shared one: the service shows a bid to the person whose key started it and to those it is shared with. To work on it, link your key again with `/tender connect me`.',
    );
  });
});

describe('/tender settings personal-keys required|optional', () => {
  it('says the setting to anyone, and lets only an owner or admin change it', async () => {
    expect((await command(MEMBER, 'settings')).text).toContain('*Personal keys*: optional');
    const refused = await command(MEMBER, 'settings personal-keys required');
    expect(refused.text).toContain('Only a workspace owner or admin can change');
    expect((await store.getWorkspaceSettings(bot.slack.teamId)).personalKeysForWrites).toBe(false);

    const done = await command(ADMIN, 'settings personal-keys required');
    expect(done.text).toContain('changes (bookmarks, comments, bids) need each person’s own key');
    expect((await store.getWorkspaceSettings(bot.slack.teamId)).personalKeysForWrites).toBe(true);
    expect((await command(MEMBER, 'settings')).text).toContain('*Personal keys*: required');

    const detail = await answerWith(MEMBER, TENDER_B, 'tender/bookmark');
    const seen = bot.slack.messagesIn(CHANNEL, MEMBER).length;
    await bot.slack.clickInMessage(MEMBER, detail, 'tender/bookmark');
    const refusal = await eventually(() => bot.slack.messagesIn(CHANNEL, MEMBER)[seen], 'the refusal');
    expect(refusal.text).toBe(PERSONAL_KEY_REQUIRED_SENTENCE);

    expect((await command(ADMIN, 'settings personal-keys optional')).text).toContain('Done');
    expect((await store.getWorkspaceSettings(bot.slack.teamId)).personalKeysForWrites).toBe(false);
    expect((await command(ADMIN, 'settings nonsense')).text).toContain(
      '`/tender settings personal-keys required`',
    );
  });
});

describe('an own key this ENCRYPTION_KEY cannot read', () => {
  it('is said on the Home tab and on each command, with what to do; the workspace’s key is not used instead', async () => {
    await store.savePersonalKey({
      teamId: bot.slack.teamId,
      userId: MEMBER,
      encryptedApiKey: new KeyCipher(randomBytes(32).toString('base64')).encrypt(KEYS.aliceAcme),
      serviceUrl: null,
      connectedAt: new Date(),
    });
    try {
      await bot.slack.openHome(MEMBER);
      const home = await eventually(
        () => textOf(bot.slack.homeOf(MEMBER)?.view).includes('your own API key') && bot.slack.homeOf(MEMBER),
        'the Home tab',
      );
      expect(textOf(home.view)).toContain('`/tender connect me`');
      const answer = await answerWith(MEMBER, 'bookmarks', 'your own API key');
      expect(textOf(answer)).toContain('Link it again with `/tender connect me`');
      expect(textOf(answer)).not.toContain('Bookmarks belong to');
    } finally {
      await store.removePersonalKey(bot.slack.teamId, MEMBER);
    }
  });
});

describe('what people read', () => {
  it('says everything in plain words', () => {
    expect(jargonIn(textsPeopleRead(bot.slack))).toEqual([]);
  });
});
