import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_NEEDS_OWN_KEY } from '../../../src/app/features/comments/comment-window.ts';
import { KeyCipher } from '../../../src/app/security/key-cipher.ts';
import { PERSONAL_KEY_REQUIRED_SENTENCE } from '../../../src/app/shared/failure-sentences.ts';
import { PipelineIds } from '../../../src/app/shared/ids.ts';
import { STATUS_LABELS } from '../../../src/app/shared/views/bid-parts.ts';
import { plainOf } from '../../../src/app/shared/views/plain-sentence.ts';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
import type { ProcurementClient } from '../../../src/client/procurement-client.ts';
import type { FakeMessage } from '../../../src/fake-slack/fake-slack.ts';
import { eventually, type RunningBot, startBot, tenderCommand } from '../../support/bot.ts';
import { KEYS, TENDER_A, TENDER_B } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';
import { jargonIn, textsPeopleRead } from '../../support/workbench.ts';
import {
  ADMIN,
  answerWith as answerIn,
  bookmarkIds,
  CHANNEL,
  GUEST,
  linkFromHome,
  MEMBER,
  openCommentModal,
  serviceAsCarolAndAlice,
  textOf,
  until,
} from './support.ts';

// Issue 13 item 2: a person's own key. The app runs on Carol's key (the default one); Max, a
// member, links Alice's key (Alice and Carol are two people of one organisation in the service).
// Carol has bookmarked TENDER_A; Alice has no bookmarks.

let sandbox: TestSandbox;
let bot: RunningBot;
/** A second copy of the app on the same database file (and the same ENCRYPTION_KEY). */
let secondCopy: RunningBot;
let databasePath: string;
/** The bot's ENCRYPTION_KEY (both copies), to store a key as the app would. */
let encryptionKey: string;
/** The service as Carol (the workspace's key) and as Alice (the member's own). */
let asCarol: ProcurementClient;
let asAlice: ProcurementClient;
let service: ReturnType<typeof serviceAsCarolAndAlice>;
/** The bot's database, opened by the test as a third reader (the workspace setting). */
let store: BotStore;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  databasePath = join(mkdtempSync(join(sandbox.dir, 'bot-')), 'bot.db');
  encryptionKey = randomBytes(32).toString('base64');
  bot = await startBot({
    serviceUrl: sandbox.baseUrl,
    defaultKey: KEYS.carolMemberAcme,
    databasePath,
    encryptionKey,
  });
  secondCopy = await startBot({
    serviceUrl: sandbox.baseUrl,
    defaultKey: KEYS.carolMemberAcme,
    databasePath,
    encryptionKey,
    slack: bot.slack,
  });
  bot.slack.appUrl = bot.url;
  service = serviceAsCarolAndAlice(sandbox);
  ({ asCarol, asAlice } = service);
  store = openBotStore(`sqlite:${databasePath}`);
}, 60_000);

afterAll(async () => {
  await store?.close();
  await secondCopy?.stop();
  await bot?.stop();
  await service?.close();
  await sandbox?.stop();
});

const command = (user: string, text: string) => tenderCommand(bot, user, CHANNEL, text);
const answerWith = (user: string, text: string, expected: string) =>
  answerIn(bot, user, CHANNEL, text, expected);
const openComment = (user: string, message: FakeMessage) => openCommentModal(bot, user, message);

async function tenderComments(tenderId: string) {
  return (await asCarol.comments.list({ entityType: 'tender', entityId: tenderId, limit: 100 })).data;
}

describe('a person’s own key', () => {
  it('is linked from the Home tab’s “Link your own key”: checked first, then kept for that person alone', async () => {
    const modal = await linkFromHome(bot, MEMBER, '');

    const wrong = await bot.slack.submitView(MEMBER, modal.id, {
      'connect/key': 'pis_wrong_0123456789abcdefghijklmnopqrstuvwx',
    });
    expect(wrong.json?.errors?.['connect/key_block']).toContain('does not recognise this key');
    const expired = await bot.slack.submitView(MEMBER, modal.id, { 'connect/key': KEYS.aliceExpired });
    expect(expired.json?.errors?.['connect/key_block']).toContain('expired');
    expect(await store.getPersonalKey(bot.slack.teamId, MEMBER)).toBeNull();

    const right = await bot.slack.submitView(MEMBER, modal.id, { 'connect/key': KEYS.aliceAcme });
    expect(right.status).toBe(200);
    expect(right.json?.response_action).toBeUndefined();
    const saved = await store.getPersonalKey(bot.slack.teamId, MEMBER);
    expect(saved?.userId).toBe(MEMBER);
    // Stored encrypted: the key's text is nowhere in the row.
    expect(saved?.encryptedApiKey).not.toContain(KEYS.aliceAcme);
    expect(await store.getPersonalKey(bot.slack.teamId, ADMIN)).toBeNull();
    const again = await eventually(
      () =>
        textOf(bot.slack.homeOf(MEMBER)?.view).includes('You linked your own key') &&
        bot.slack.homeOf(MEMBER),
      'the Home tab saying the key is linked',
    );
    expect(textOf(again.view)).toContain('`/tender disconnect me`');

    const status = await command(MEMBER, 'status');
    expect(textOf(status)).toContain('*Your key*: your own');
    expect(textOf(await command(ADMIN, 'status'))).toContain('*Your key*: none of your own');
  });

  it('gives the person their own bookmark list, and every card says whose list it shows', async () => {
    expect(await bookmarkIds(asCarol)).toEqual([TENDER_A]);
    expect(await bookmarkIds(asAlice)).toEqual([]);

    const detail = await answerWith(MEMBER, TENDER_B, 'tender/bookmark');
    expect(textOf(detail)).toContain('Bookmark buttons here change your own list.');
    await bot.slack.clickInMessage(MEMBER, detail, 'tender/bookmark');
    await until(() => bookmarkIds(asAlice).then((ids) => ids.includes(TENDER_B)), 'Alice’s bookmark');
    expect(await bookmarkIds(asAlice)).toEqual([TENDER_B]);
    // The workspace's list (Carol's) did not change.
    expect(await bookmarkIds(asCarol)).toEqual([TENDER_A]);

    const mine = await command(MEMBER, 'bookmarks');
    expect(textOf(mine)).toContain('*Your own bookmarks*');
    expect(textOf(mine)).toContain('These are *your own* bookmarks');
    expect(textOf(mine)).toContain(TENDER_B);
    expect(textOf(mine)).not.toContain(TENDER_A);

    const workspace = await command(ADMIN, 'bookmarks');
    expect(textOf(workspace)).toContain(
      'Bookmarks belong to whoever made the key Tenderbot was set up with, so everyone here shares this one list.',
    );
    expect(textOf(workspace)).toContain(TENDER_A);
    expect(textOf(workspace)).not.toContain(TENDER_B);

    const search = await command(ADMIN, TENDER_A);
    expect(textOf(search)).toContain('Bookmark buttons here change the workspace’s shared list.');
  });

  it('posts the person’s comments as them in the service; the workspace’s key posts as its maker', async () => {
    const card = await answerWith(MEMBER, TENDER_A, 'comment/open');
    const modal = await openComment(MEMBER, card);
    expect(textOf(modal.view)).toContain('Posted with your own key: the service shows you as the author.');
    const body = `Max, with his own key ${randomBytes(4).toString('hex')}`;
    const posted = await bot.slack.submitView(MEMBER, modal.id, { 'comment/text': body });
    expect(posted.status).toBe(200);
    expect(posted.json?.response_action).toBeUndefined();
    const mine = await until(
      async () => (await tenderComments(TENDER_A)).find((comment) => comment.body === body),
      'the comment in the service',
    );
    expect(mine.author.id).toBe('usr-alice');

    const adminCard = await answerWith(ADMIN, TENDER_A, 'comment/open');
    const adminModal = await openComment(ADMIN, adminCard);
    expect(textOf(adminModal.view)).toContain('the service shows its maker as the author');
    const adminBody = `Ada, with the workspace's key ${randomBytes(4).toString('hex')}`;
    await bot.slack.submitView(ADMIN, adminModal.id, { 'comment/text': adminBody });
    const theirs = await until(
      async () => (await tenderComments(TENDER_A)).find((comment) => comment.body === adminBody),
      'the admin’s comment in the service',
    );
    expect(theirs.author.id).toBe('usr-carol');
  });

  it('starts bids owned by the person; their changes redraw the card though only their key sees the bid', async () => {
    const detail = await answerWith(MEMBER, TENDER_B, PipelineIds.startBid);
    await bot.slack.clickInMessage(MEMBER, detail, PipelineIds.startBid);
    const modal = await eventually(
      () =>
        bot.slack
          .openModals(MEMBER)
          .find((view) => textOf(view.view.blocks).includes(PipelineIds.stagesInput)),
      'the start-a-bid form',
    );
    const name = `Max’s own bid ${randomBytes(3).toString('hex')}`;
    const started = await bot.slack.submitView(MEMBER, modal.id, {
      [PipelineIds.nameInput]: name,
      [PipelineIds.stagesInput]: 'Qualify | 2\nDraft | 5',
    });
    expect(started.status).toBe(200);
    const card = await eventually(
      () =>
        bot.slack
          .messagesIn(CHANNEL)
          .find((message) => message.ephemeralTo === null && message.text.startsWith(name)),
      'the new bid’s card',
    );
    const pipelineId: string = card.metadata.event_payload.pipeline_id;
    expect((await asAlice.pipelines.get(pipelineId)).owner.id).toBe('usr-alice');
    // Not shared with Carol, whose key the workspace uses: only Max's own key sees it.
    await expect(asCarol.pipelines.get(pipelineId)).rejects.toThrow();

    const listed = await answerWith(MEMBER, 'pipelines', pipelineId);
    expect(textOf(listed)).toContain('Bids your own key can see');
    expect(textOf(await command(ADMIN, 'pipelines'))).not.toContain(pipelineId);

    const changed = await answerWith(MEMBER, `pipeline status ${pipelineId} bidding`, 'is now');
    expect(changed.text).toContain('Its card shows it now');
    expect((await asAlice.pipelines.get(pipelineId)).status).toBe('bidding');
    await eventually(
      () =>
        textOf(bot.slack.messagesIn(CHANNEL).find((message) => message.ts === card.ts)?.blocks).includes(
          STATUS_LABELS.bidding,
        ),
      'the card redrawn',
    );
    const refused = await answerWith(ADMIN, `pipeline status ${pipelineId} draft`, 'No bid');
    expect(refused.text).toContain('can be seen with this workspace’s key');
    expect((await asAlice.pipelines.get(pipelineId)).status).toBe('bidding');
  });

  it('when the workspace requires personal keys for changes, someone without one is told so and nothing is written', async () => {
    await store.saveWorkspaceSettings({ teamId: bot.slack.teamId, personalKeysForWrites: true });
    try {
      const bookmarksBefore = await bookmarkIds(asCarol);
      const detail = await answerWith(ADMIN, TENDER_B, 'tender/bookmark');
      const seen = bot.slack.messagesIn(CHANNEL, ADMIN).length;
      await bot.slack.clickInMessage(ADMIN, detail, 'tender/bookmark');
      const refusal = await eventually(
        () => bot.slack.messagesIn(CHANNEL, ADMIN)[seen],
        'the sentence about personal keys',
      );
      expect(refusal.text).toBe(PERSONAL_KEY_REQUIRED_SENTENCE);
      expect(refusal.text).toContain('`/tender connect me`');
      expect(await bookmarkIds(asCarol)).toEqual(bookmarksBefore);

      const commentsBefore = (await tenderComments(TENDER_B)).length;
      const modal = await openComment(ADMIN, detail);
      // The window says so instead of the form; a submission sent anyway (forged) is refused too.
      expect(textOf(modal.view)).toContain(COMMENT_NEEDS_OWN_KEY);
      expect(textOf(modal.view)).not.toContain('comment/text_block');
      const refused = await bot.slack.submitView(ADMIN, modal.id, { 'comment/text': 'Should not be posted' });
      expect(refused.json).toEqual({
        response_action: 'errors',
        // A field's error is plain text: the sentence without its code marks.
        errors: { 'comment/text_block': plainOf(PERSONAL_KEY_REQUIRED_SENTENCE) },
      });
      expect((await tenderComments(TENDER_B)).length).toBe(commentsBefore);
      await bot.slack.closeView(ADMIN, modal.id);

      // Reading still works without a key of one's own, and the person with one still writes.
      expect(textOf(await command(ADMIN, 'bookmarks'))).toContain(TENDER_A);
      const mine = await answerWith(MEMBER, TENDER_B, 'tender/remove_bookmark');
      await bot.slack.clickInMessage(MEMBER, mine, 'tender/remove_bookmark');
      await until(
        () => bookmarkIds(asAlice).then((ids) => !ids.includes(TENDER_B)),
        'the bookmark gone from Alice’s list',
      );
      expect(textOf(await command(ADMIN, 'status'))).toContain('*Changes*');
    } finally {
      await store.saveWorkspaceSettings({ teamId: bot.slack.teamId, personalKeysForWrites: false });
    }
  });

  it('is unlinked by /tender disconnect me, and the other copy of the app stops using it at once', async () => {
    await bot.slack.clickInMessage(
      MEMBER,
      await answerWith(MEMBER, TENDER_B, 'tender/bookmark'),
      'tender/bookmark',
    );
    await until(() => bookmarkIds(asAlice).then((ids) => ids.includes(TENDER_B)), 'Alice’s bookmark');

    // The second copy uses the key too (it has now decrypted it and keeps it in memory).
    bot.slack.appUrl = secondCopy.url;
    const onSecond = await tenderCommand(secondCopy, MEMBER, CHANNEL, 'bookmarks');
    expect(textOf(onSecond)).toContain('*Your own bookmarks*');
    expect(textOf(onSecond)).toContain(TENDER_B);

    // Unlinked through the first copy.
    bot.slack.appUrl = bot.url;
    const unlinked = await command(MEMBER, 'disconnect me');
    expect(unlinked.text).toContain('Unlinked: your own key is deleted.');
    expect(await store.getPersonalKey(bot.slack.teamId, MEMBER)).toBeNull();

    // The second copy's very next command uses the workspace's key: its list, not Alice's.
    bot.slack.appUrl = secondCopy.url;
    const after = await tenderCommand(secondCopy, MEMBER, CHANNEL, 'bookmarks');
    expect(textOf(after)).toContain('Bookmarks belong to whoever made the key Tenderbot was set up with');
    expect(textOf(after)).toContain(TENDER_A);
    expect(textOf(after)).not.toContain(TENDER_B);
    bot.slack.appUrl = bot.url;
  });

  it('an own key the service refuses (expired) is said to be the person’s own, with what to do', async () => {
    await store.savePersonalKey({
      teamId: bot.slack.teamId,
      userId: GUEST,
      encryptedApiKey: new KeyCipher(encryptionKey).encrypt(KEYS.aliceExpired),
      serviceUrl: null,
      connectedAt: new Date(),
    });
    try {
      const answer = await answerWith(GUEST, 'bookmarks', 'expired');
      expect(textOf(answer)).toContain('Your own API key has expired.');
      expect(textOf(answer)).toContain('`/tender connect me`');
      expect(textOf(answer)).not.toContain('workspace admin');
    } finally {
      await store.removePersonalKey(bot.slack.teamId, GUEST);
    }
  });

  it('never sends the key into Slack nor writes it to either copy’s logs; every sentence is in plain words', () => {
    expect(textOf(bot.slack.calls)).not.toContain(KEYS.aliceAcme);
    expect(textOf(bot.slack.messages)).not.toContain(KEYS.aliceAcme);
    expect(bot.logs()).not.toContain(KEYS.aliceAcme);
    expect(secondCopy.logs()).not.toContain(KEYS.aliceAcme);
    expect(jargonIn(textsPeopleRead(bot.slack))).toEqual([]);
  });
});
