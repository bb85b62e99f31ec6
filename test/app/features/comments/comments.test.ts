import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELETE_REFUSAL } from '../../../../src/app/features/comments/delete-comment.ts';
import { STALE_MODAL_SENTENCE } from '../../../../src/app/features/comments/submit-comment.ts';
import { COMMENT_LABELS } from '../../../../src/app/features/comments/views/comment-modal.ts';
import { blockKitProblems, viewProblems } from '../../../../src/app/shared/views/block-kit-limits.ts';
import { ProcurementClient } from '../../../../src/client/procurement-client.ts';
import type { Comment } from '../../../../src/contract/schemas.ts';
import type { FakeMessage, FakeView } from '../../../../src/fake-slack/fake-slack.ts';
import {
  eventually,
  type RunningBot,
  SIGNING_SECRET,
  startBot,
  startBotAsCarol,
} from '../../../support/bot.ts';
import { KEYS, LARGE_FRAMEWORK_ID } from '../../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../../support/sandbox.ts';
import { type ServiceProxy, startServiceProxy } from '../../../support/service-proxy.ts';
import { textOf } from '../../../support/slack-text.ts';
import { filledCommentModal } from '../../personal-keys/support.ts';

const ADMIN = 'U0ADMIN';
const MEMBER = 'U0MEMBER';
const GUEST = 'U0GUEST';
const CHANNEL = 'C0BIDS';

let sandbox: TestSandbox;
/** Fails or holds comment posts on cue. */
let proxy: ServiceProxy;
let bot: RunningBot;
let service: ProcurementClient;
/** Every view the app answered a submission with (they are not Web API calls), for the validator. */
const answeredViews: unknown[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox();
  proxy = await startServiceProxy(
    sandbox.baseUrl,
    (method, url) => method === 'POST' && url.startsWith('/v1/comments'),
  );
  bot = await startBotAsCarol(sandbox, proxy.url);
  service = new ProcurementClient({ baseUrl: sandbox.baseUrl, apiKey: KEYS.carolMemberAcme });
}, 60_000);

afterAll(async () => {
  await bot?.stop();
  await service?.close();
  await proxy?.stop();
  await sandbox?.stop();
});

async function threadIn(entityType: Comment['entityType'], entityId: string): Promise<Comment[]> {
  return (await service.comments.list({ entityType, entityId, limit: 100 })).data;
}

/**
 * Runs `/tender TEXT` as `user`; resolves with the first new message that is its answer (a
 * "posted" sentence from an earlier submission may still arrive in between) and, if given,
 * contains `expected`.
 */
async function ask(user: string, text: string, expected?: string): Promise<FakeMessage> {
  const before = bot.slack.messagesIn(CHANNEL, user).length;
  const answer = await bot.slack.slashCommand(user, CHANNEL, '/tender', text);
  expect(answer.status).toBe(200);
  return eventually(
    () =>
      bot.slack
        .messagesIn(CHANNEL, user)
        .slice(before)
        .find(
          (message) =>
            !message.text.startsWith('Your comment on') &&
            (expected === undefined || textOf(message.blocks).includes(expected)),
        ),
    `an answer to /tender ${text}`,
  );
}

/** The first new message of a command's answer that carries a Comment button. */
const firstCard = (user: string, text: string) => ask(user, text, 'comment/open');

function commentValueIn(message: FakeMessage): { e: string; id: string } {
  const element = message.blocks
    .flatMap((block: { elements?: { action_id: string; value: string }[] }) => block.elements ?? [])
    .find((candidate: { action_id: string }) => candidate.action_id === 'comment/open');
  expect(element, 'a Comment button').toBeTruthy();
  return JSON.parse(element?.value ?? 'null');
}

/** Clicks "Comment" in `message` as `user`; resolves with the modal once it is filled. */
async function openModal(user: string, message: FakeMessage): Promise<FakeView> {
  const opensBefore = bot.slack.callsOf('views.open').length;
  const openBefore = new Set(bot.slack.openModals(user).map((view) => view.id));
  const answer = await bot.slack.clickInMessage(user, message, 'comment/open');
  expect(answer.status).toBe(200);
  const opened = await eventually(
    () => bot.slack.callsOf('views.open')[opensBefore],
    'views.open with the loading view',
  );
  // Opened within the trigger's 3 s: the fake refuses an expired trigger, and the window is open below.
  expect(textOf(opened.args.view)).toContain('Loading the comments');
  return filledCommentModal(bot.slack, user, openBefore);
}

function inputOf(view: FakeView, actionId: string) {
  return view.view.blocks.find(
    (block: { element?: { action_id?: string } }) => block.element?.action_id === actionId,
  )?.element;
}

function deleteValuesIn(view: FakeView): string[] {
  return view.view.blocks
    .filter(
      (block: { accessory?: { action_id?: string } }) => block.accessory?.action_id === 'comment/delete',
    )
    .map((block: { accessory: { value: string } }) => JSON.parse(block.accessory.value).d);
}

async function submit(user: string, view: FakeView, values: Record<string, string>) {
  const answer = await bot.slack.submitView(user, view.id, values);
  if (answer.json?.view) answeredViews.push(answer.json.view);
  return answer;
}

describe('the comment modal', () => {
  it('opens at once with the thread, a 3,000-character box saying so, the bookmark notice, and posts one comment', async () => {
    const results = await firstCard(MEMBER, 'search cleaning');
    const target = commentValueIn(results);
    expect(target.e).toBe('tender');
    const modal = await openModal(MEMBER, results);
    const box = inputOf(modal, 'comment/text');
    expect(box).toMatchObject({ type: 'plain_text_input', multiline: true, max_length: 3000 });
    const all = textOf(modal.view);
    expect(all).toContain(COMMENT_LABELS.inputHint);
    expect(all).toContain('3,000 characters');
    expect(all).toContain(COMMENT_LABELS.tenderNotice);
    expect(modal.view.title.text).toBe(COMMENT_LABELS.title);
    expect(modal.view.submit.text).toBe(COMMENT_LABELS.submit);

    const before = (await threadIn('tender', target.id)).length;
    const answer = await submit(MEMBER, modal, { 'comment/text': 'We should bid on this one.' });
    expect(answer.status).toBe(200);
    expect(answer.json?.response_action).toBeUndefined();
    const after = await threadIn('tender', target.id);
    expect(after.length).toBe(before + 1);
    expect(after.at(-1)?.body).toBe('We should bid on this one.');
    const told = await eventually(
      () =>
        bot.slack
          .messagesIn(CHANNEL, MEMBER)
          .find((message) => message.text.includes('Your comment on the tender')),
      'the "posted" sentence',
    );
    expect(told.ephemeralTo).toBe(MEMBER);
    expect(bot.slack.openModals(MEMBER).filter((view) => view.id === modal.id)).toEqual([]);
  });

  it('a view_submission delivered twice (freshly signed, as Slack retries) makes exactly one comment', async () => {
    const results = await firstCard(MEMBER, 'search software');
    const target = commentValueIn(results);
    const modal = await openModal(MEMBER, results);
    const before = (await threadIn('tender', target.id)).length;
    await submit(MEMBER, modal, { 'comment/text': 'Retry-safe comment' });
    const sent = bot.slack.lastSent;
    expect(sent).toBeTruthy();
    // A replay of the same bytes is refused by the receiver (same signature); a retry is signed anew.
    const again = await bot.slack.sendRaw(
      sent?.body ?? '',
      'application/x-www-form-urlencoded',
      SIGNING_SECRET,
      Math.floor(Date.now() / 1000) - 7,
    );
    expect(again.status).toBe(200);
    const after = await threadIn('tender', target.id);
    expect(after.length).toBe(before + 1);
    expect(after.filter((comment) => comment.body === 'Retry-safe comment')).toHaveLength(1);
  });

  it('a double click on submit (two submissions of the same view at once) makes exactly one comment', async () => {
    const results = await firstCard(MEMBER, 'search road');
    const target = commentValueIn(results);
    const modal = await openModal(MEMBER, results);
    const before = (await threadIn('tender', target.id)).length;
    const answers = await Promise.all([
      submit(MEMBER, modal, { 'comment/text': 'Double click' }),
      submit(MEMBER, modal, { 'comment/text': 'Double click' }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const after = await threadIn('tender', target.id);
    expect(after.length).toBe(before + 1);
    expect(after.filter((comment) => comment.body === 'Double click')).toHaveLength(1);
  });

  it('while the service answers 503, the modal stays open with the text kept and says why; posting again works', async () => {
    const results = await firstCard(MEMBER, 'search cleaning');
    const target = commentValueIn(results);
    const modal = await openModal(MEMBER, results);
    const before = (await threadIn('tender', target.id)).length;
    const text = 'A long considered comment\nwith two lines that must not be lost.';
    proxy.fail = true;
    const seen = proxy.seen;
    let answer: Awaited<ReturnType<typeof submit>>;
    try {
      answer = await submit(MEMBER, modal, { 'comment/text': text });
    } finally {
      proxy.fail = false;
    }
    // Acknowledged even after the client's retries: 200, not the receiver's 404 after 3 s.
    expect(answer.status).toBe(200);
    expect(proxy.seen).toBeGreaterThan(seen);
    expect(answer.json?.response_action).toBe('update');
    const stillOpen = bot.slack.openModals(MEMBER).find((view) => view.id === modal.id);
    expect(stillOpen).toBeTruthy();
    expect(inputOf(stillOpen as FakeView, 'comment/text')?.initial_value).toBe(text);
    const said = textOf(stillOpen?.view);
    expect(said).toContain('Your comment was not posted');
    expect(said).toContain('failed to answer');
    // The status as a number on its own: random ids in the view may hold the digits 503.
    expect(said).not.toMatch(/ServerError|\b503\b|comments:write/);
    expect((await threadIn('tender', target.id)).length).toBe(before);

    // The service is back: the same window posts the kept text (no retyping).
    const retry = await submit(MEMBER, stillOpen as FakeView, {});
    expect(retry.json?.response_action).toBeUndefined();
    const after = await threadIn('tender', target.id);
    expect(after.length).toBe(before + 1);
    expect(after.at(-1)?.body).toBe(text);
  });

  it('says on the field when the text is empty or over 3,000 characters, and writes nothing', async () => {
    const results = await firstCard(MEMBER, 'search cleaning');
    const target = commentValueIn(results);
    const modal = await openModal(MEMBER, results);
    const before = (await threadIn('tender', target.id)).length;
    const blank = await submit(MEMBER, modal, { 'comment/text': '   ' });
    expect(blank.json).toEqual({
      response_action: 'errors',
      errors: { 'comment/text_block': 'Write your comment first.' },
    });
    const long = await submit(MEMBER, modal, { 'comment/text': 'x'.repeat(10_000) });
    expect(long.json?.response_action).toBe('errors');
    expect(long.json?.errors['comment/text_block']).toContain('at most 3,000 characters');
    expect((await threadIn('tender', target.id)).length).toBe(before);
    expect(bot.slack.openModals(MEMBER).some((view) => view.id === modal.id)).toBe(true);
  });
});

describe('a slow service', () => {
  it('the submission is acknowledged within 3 s with "posting…", and the modal then says it is posted', async () => {
    const results = await firstCard(MEMBER, 'search cleaning');
    const target = commentValueIn(results);
    const modal = await openModal(MEMBER, results);
    const before = (await threadIn('tender', target.id)).length;
    proxy.delayMs = 3500;
    let answer: Awaited<ReturnType<typeof submit>>;
    try {
      answer = await submit(MEMBER, modal, { 'comment/text': 'Posted through a slow service' });
    } finally {
      proxy.delayMs = 0;
    }
    expect(answer.status).toBe(200);
    expect(answer.json?.response_action).toBe('update');
    expect(textOf(answer.json?.view)).toContain('Posting your comment');
    await eventually(
      () =>
        bot.slack
          .openModals(MEMBER)
          .find((view) => view.id === modal.id && textOf(view.view).includes('is posted')),
      'the posted view',
      10_000,
    );
    const after = await threadIn('tender', target.id);
    expect(after.length).toBe(before + 1);
    expect(after.at(-1)?.body).toBe('Posted through a slow service');
  });
});

describe('tampered and over-long state', () => {
  it('a forged or over-long private_metadata, a forged reply choice: a sentence on the field, nothing written, nothing thrown', async () => {
    const results = await firstCard(MEMBER, 'search cleaning');
    const target = commentValueIn(results);
    const modal = await openModal(MEMBER, results);
    const before = (await threadIn('tender', target.id)).length;
    const original = modal.view.private_metadata;
    for (const forged of [
      JSON.stringify({ e: 'pipeline', id: target.id, k: 'x', c: null, u: MEMBER }),
      `~${'Q'.repeat(22)}`,
      'x'.repeat(50_000),
      '',
      // Someone else's modal: the person who opened it is in the metadata.
      original.startsWith('{') ? original.replace(MEMBER, ADMIN) : original,
    ]) {
      modal.view.private_metadata = forged;
      const answer = await submit(MEMBER, modal, { 'comment/text': 'Should never be posted' });
      expect(answer.status, forged.slice(0, 40)).toBe(200);
      if (forged === original) continue;
      expect(answer.json?.errors?.['comment/text_block'], forged.slice(0, 40)).toBe(STALE_MODAL_SENTENCE);
    }
    modal.view.private_metadata = original;
    // A reply choice that is not one the modal offered (the select's value forged in the payload).
    const parentSelect = inputOf(modal, 'comment/parent');
    if (parentSelect) {
      parentSelect.options.push({
        text: { type: 'plain_text', text: 'forged' },
        value: '~not-a-token-at-all-zz',
      });
      const answer = await submit(MEMBER, modal, {
        'comment/text': 'Should never be posted',
        'comment/parent': '~not-a-token-at-all-zz',
      });
      expect(answer.json?.response_action).toBe('errors');
      expect(Object.keys(answer.json?.errors ?? {})).toEqual(['comment/parent_block']);
    }
    const after = await threadIn('tender', target.id);
    expect(after.length).toBe(before);
    expect(after.some((comment) => comment.body === 'Should never be posted')).toBe(false);
    expect(bot.logs()).not.toContain('unhandled error');
  });
});

describe('who wrote it, and who may delete it', () => {
  it('shows the Slack author; a member cannot delete another’s comment (no button, forged click refused); an admin can', async () => {
    const buyers = await firstCard(MEMBER, 'buyers council');
    const target = commentValueIn(buyers);
    expect(target.e).toBe('buyer');

    const memberModal = await openModal(MEMBER, buyers);
    await submit(MEMBER, memberModal, { 'comment/text': 'Member’s note on this buyer' });
    const adminModal = await openModal(ADMIN, buyers);
    await submit(ADMIN, adminModal, { 'comment/text': 'Admin’s note on this buyer' });
    const thread = await threadIn('buyer', target.id);
    const memberComment = thread.find((comment) => comment.body === 'Member’s note on this buyer');
    const adminComment = thread.find((comment) => comment.body === 'Admin’s note on this buyer');
    expect(memberComment && adminComment).toBeTruthy();
    // Through one key the service sees one author for both.
    expect(memberComment?.author.id).toBe(adminComment?.author.id);

    const shown = await ask(MEMBER, `comments ${target.id}`);
    expect(shown.ephemeralTo).toBeNull();
    const shownText = textOf(shown.blocks);
    expect(shownText).toContain('<@U0MEMBER>');
    expect(shownText).toContain('<@U0ADMIN>');
    expect(shownText).toContain('Member’s note on this buyer');

    // The member's modal offers Delete on their own comment only.
    const again = await openModal(MEMBER, buyers);
    const offered = deleteValuesIn(again);
    expect(offered.length).toBeGreaterThan(0);
    expect(offered).toContain(memberComment?.id);
    expect(offered).not.toContain(adminComment?.id);
    // A forged click (their own button, carrying the admin's comment): refused with a sentence.
    await bot.slack.clickInView(MEMBER, again.id, 'comment/delete', JSON.stringify({ d: adminComment?.id }));
    const refused = await eventually(
      () =>
        bot.slack
          .openModals(MEMBER)
          .find((view) => view.id === again.id && textOf(view.view).includes('Only the person')),
      'the refusal in the modal',
    );
    expect(textOf(refused.view)).toContain(DELETE_REFUSAL.slice(0, 40));
    expect((await threadIn('buyer', target.id)).find((c) => c.id === adminComment?.id)?.deletedAt).toBeNull();
    // A tampered value: a sentence, nothing deleted.
    await bot.slack.clickInView(MEMBER, again.id, 'comment/delete', '{"d":');
    await eventually(
      () =>
        bot.slack
          .openModals(MEMBER)
          .find((view) => view.id === again.id && textOf(view.view).includes('out of date')),
      'the out-of-date sentence',
    );

    // The admin sees Delete on both, and deletes the member's.
    const adminView = await openModal(ADMIN, buyers);
    const adminOffered = deleteValuesIn(adminView);
    expect(adminOffered).toEqual(expect.arrayContaining([memberComment?.id, adminComment?.id]));
    await bot.slack.clickInView(
      ADMIN,
      adminView.id,
      'comment/delete',
      JSON.stringify({ d: memberComment?.id }),
    );
    await eventually(
      () =>
        bot.slack
          .openModals(ADMIN)
          .find((view) => view.id === adminView.id && textOf(view.view).includes('The comment was deleted')),
      'the deleted notice',
    );
    const afterDelete = await threadIn('buyer', target.id);
    expect(afterDelete.find((comment) => comment.id === memberComment?.id)?.deletedAt).not.toBeNull();
    // The thread posted in the channel before is redrawn: the deleted words leave it too.
    await eventually(
      () => !textOf(shown.blocks).includes('Member’s note on this buyer'),
      'the posted thread redrawn',
    );
    expect(textOf(shown.blocks)).toContain('This comment was deleted');
    expect(textOf(shown.blocks)).toContain('Admin’s note on this buyer');
    const redrawn = await ask(ADMIN, `comments buyer:${target.id}`);
    expect(textOf(redrawn.blocks)).toContain('This comment was deleted');
    expect(textOf(redrawn.blocks)).not.toContain('Member’s note on this buyer');
  });

  it('a guest reads the thread in the modal but gets no box, and a forged guest submission is refused', async () => {
    const results = await firstCard(GUEST, 'search cleaning');
    const target = commentValueIn(results);
    const modal = await openModal(GUEST, results);
    expect(inputOf(modal, 'comment/text')).toBeUndefined();
    expect(textOf(modal.view)).toContain('Guests can read comments');
    expect(modal.view.submit).toBeUndefined();
    const before = (await threadIn('tender', target.id)).length;
    // The guest's own modal with a box added by hand (a forged submission).
    modal.view.blocks.push({
      type: 'input',
      block_id: 'comment/text_block',
      label: { type: 'plain_text', text: 'x' },
      element: { type: 'plain_text_input', action_id: 'comment/text' },
    });
    const answer = await submit(GUEST, modal, { 'comment/text': 'guest words' });
    expect(answer.json?.errors?.['comment/text_block']).toContain('Guests can read comments');
    expect((await threadIn('tender', target.id)).length).toBe(before);
  });
});

describe('/tender comments <id>', () => {
  it('shows a thread in the channel with replies under their parent; finds the kind from the id; says when not found', async () => {
    // A comment made from a framework card is found again by the framework's id alone.
    const frameworks = await firstCard(MEMBER, 'frameworks');
    const fw = commentValueIn(frameworks);
    expect(fw.e).toBe('framework');
    const fwModal = await openModal(MEMBER, frameworks);
    await submit(MEMBER, fwModal, { 'comment/text': 'Framework-level note' });
    const fwShown = await ask(MEMBER, `comments ${fw.id}`);
    expect(textOf(fwShown.blocks)).toContain('Comments on the framework');
    expect(textOf(fwShown.blocks)).toContain('Framework-level note');
    const large = await ask(MEMBER, `comments tender:${LARGE_FRAMEWORK_ID}`);
    expect(textOf(large.blocks)).toMatch(/Comments on the tender|No tender has the id/);

    const results = await firstCard(ADMIN, 'search cleaning');
    const target = commentValueIn(results);
    const modal = await openModal(ADMIN, results);
    await submit(ADMIN, modal, { 'comment/text': 'Parent comment for replies' });
    const parent = (await threadIn('tender', target.id)).find((c) => c.body === 'Parent comment for replies');
    const replyModal = await openModal(MEMBER, results);
    const select = inputOf(replyModal, 'comment/parent');
    expect(select?.placeholder.text).toBe(COMMENT_LABELS.parentPlaceholder);
    const option = select.options.find((candidate: { text: { text: string } }) =>
      candidate.text.text.includes('Parent comment for replies'),
    );
    expect(option).toBeTruthy();
    await submit(MEMBER, replyModal, { 'comment/text': 'A reply under it', 'comment/parent': option.value });
    const reply = (await threadIn('tender', target.id)).find((c) => c.body === 'A reply under it');
    expect(reply?.parentId).toBe(parent?.id);

    const shown = await ask(MEMBER, `comments ${target.id}`);
    expect(shown.ephemeralTo).toBeNull();
    const shownText = shown.blocks
      .map((block: { text?: { text: string } }) => block.text?.text ?? '')
      .join('\n');
    const parentAt = shownText.indexOf('Parent comment for replies');
    const replyAt = shownText.indexOf('A reply under it');
    expect(parentAt).toBeGreaterThan(-1);
    expect(replyAt).toBeGreaterThan(parentAt);
    expect(shownText.slice(parentAt, replyAt)).toContain('↳ *<@U0MEMBER>*');
    expect(shownText).toMatch(/\d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC/);
    // Posted by Tenderbot, so a comment written after it joins it in the channel.
    const laterModal = await openModal(ADMIN, results);
    await submit(ADMIN, laterModal, { 'comment/text': 'Written after the thread was posted' });
    await eventually(
      () => textOf(shown.blocks).includes('Written after the thread was posted'),
      'the posted thread with the new comment',
    );

    const missing = await ask(MEMBER, 'comments ocds-no-such-thing-9');
    expect(missing.ephemeralTo).toBe(MEMBER);
    expect(textOf(missing.blocks)).toContain('No tender, buyer, supplier or framework has the id');
    const usage = await ask(MEMBER, 'comments');
    expect(textOf(usage.blocks)).toContain('Give the id');
    const unknownBuyer = await ask(MEMBER, 'comments buyer:00000000-0000-4000-8000-000000000000');
    expect(textOf(unknownBuyer.blocks)).toContain('No buyer has the id');
  });
});

describe('a viewer’s key', () => {
  it('reads the thread, and a post gets the service’s refusal as a sentence with the text kept', async () => {
    const viewerBot = await startBot({
      serviceUrl: sandbox.baseUrl,
      defaultKey: KEYS.victorViewerAcme,
      databasePath: join(mkdtempSync(join(sandbox.dir, 'viewer-bot-')), 'bot.db'),
    });
    try {
      const before = viewerBot.slack.messagesIn(CHANNEL, MEMBER).length;
      await viewerBot.slack.slashCommand(MEMBER, CHANNEL, '/tender', 'search cleaning');
      const results = await eventually(
        () =>
          viewerBot.slack
            .messagesIn(CHANNEL, MEMBER)
            .slice(before)
            .find((message) => textOf(message.blocks).includes('comment/open')),
        'cards',
      );
      const target = commentValueIn(results);
      await viewerBot.slack.clickInMessage(MEMBER, results, 'comment/open');
      const modal = await eventually(
        () => viewerBot.slack.openModals(MEMBER).find((view) => textOf(view.view).includes('comment/text')),
        'the filled modal',
      );
      const count = (await threadIn('tender', target.id)).length;
      const answer = await viewerBot.slack.submitView(MEMBER, modal.id, { 'comment/text': 'Viewer words' });
      expect(answer.json?.response_action).toBe('update');
      answeredViews.push(answer.json.view);
      const said = textOf(answer.json.view);
      expect(said).toContain('Your comment was not posted. The service did not allow this');
      expect(said).toContain('copy it before closing');
      expect(said).toContain('"initial_value":"Viewer words"');
      expect(said).not.toMatch(/forbidden|comments:write|ForbiddenError/);
      expect((await threadIn('tender', target.id)).length).toBe(count);
      for (const call of viewerBot.slack.calls)
        if (call.args.view) expect(viewProblems(call.args.view)).toEqual([]);
    } finally {
      await viewerBot.stop();
    }
  }, 30_000);
});

describe('what reached Slack', () => {
  it('every message and modal the app sent (and every view it answered with) is within Slack’s limits', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const call of bot.slack.calls) {
      if (call.args.blocks) {
        checked++;
        problems.push(...blockKitProblems(call.args.blocks, 'message').map((p) => `${call.method}: ${p}`));
      }
      if (call.args.view) {
        checked++;
        problems.push(...viewProblems(call.args.view).map((p) => `${call.method}: ${p}`));
      }
    }
    for (const message of bot.slack.messages) {
      checked++;
      problems.push(...blockKitProblems(message.blocks, 'message').map((p) => `message ${message.ts}: ${p}`));
    }
    for (const view of answeredViews) {
      checked++;
      problems.push(...viewProblems(view).map((p) => `answered view: ${p}`));
    }
    expect(answeredViews.length).toBeGreaterThan(0);
    expect(checked).toBeGreaterThan(30);
    expect(problems).toEqual([]);
  });
});
