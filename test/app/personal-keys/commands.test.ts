import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BotStore, openBotStore } from '../../../src/app/storage/bot-store.ts';
import { eventually, type RunningBot, startBot, tenderCommand } from '../../support/bot.ts';
import { KEYS } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';
import { jargonIn, textsPeopleRead } from '../../support/workbench.ts';

// The typed commands of personal keys: `/tender connect me` (an admin too gets their own key's
// window), and `/tender disconnect me`.

const ADMIN = 'U0ADMIN';
const MEMBER = 'U0MEMBER';
const CHANNEL = 'C0BIDS';

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

const textOf = (value: unknown) => JSON.stringify(value);
const command = (user: string, text: string) => tenderCommand(bot, user, CHANNEL, text);

describe('/tender connect me and /tender disconnect me', () => {
  it('gives an admin the window for their own key, and leaves the workspace’s key alone', async () => {
    await bot.slack.slashCommand(ADMIN, CHANNEL, '/tender', 'connect me');
    const modal = await eventually(() => bot.slack.openModals(ADMIN)[0], 'the personal connect modal');
    expect(modal.view.title.text).toBe('Link your own key');
    const right = await bot.slack.submitView(ADMIN, modal.id, { 'connect/key': KEYS.bobAdminAcme });
    expect(right.json?.response_action).toBeUndefined();
    await eventually(
      () => bot.slack.messagesIn(CHANNEL, ADMIN).find((message) => message.text.startsWith('Linked.')),
      'the confirmation',
    );
    expect(await store.getPersonalKey(bot.slack.teamId, ADMIN)).not.toBeNull();
    expect(await store.getConnection(bot.slack.teamId)).toBeNull();
    expect(textOf(await command(ADMIN, 'bookmarks'))).toContain('These are *your own* bookmarks');
  });

  it('unlinks at once with disconnect me (no question: nobody else is affected)', async () => {
    const answer = await command(ADMIN, 'disconnect me');
    expect(answer.text).toContain('Unlinked: your own key is deleted.');
    expect(await store.getPersonalKey(bot.slack.teamId, ADMIN)).toBeNull();
    expect((await command(MEMBER, 'disconnect me')).text).toContain('You have no key of your own linked.');
    expect((await command(MEMBER, 'connect someone')).text).toContain(
      '`/tender connect me` links a key of your own',
    );
  });
});

describe('what people read', () => {
  it('says everything in plain words', () => {
    expect(jargonIn(textsPeopleRead(bot.slack))).toEqual([]);
  });
});
