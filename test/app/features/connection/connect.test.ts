import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BOT_TOKEN,
  eventually,
  type RunningBot,
  SIGNING_SECRET,
  startBot,
  tenderCommand,
} from '../../../support/bot.ts';
import { KEYS } from '../../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../../support/sandbox.ts';
import { textOf } from '../../../support/slack-text.ts';

const ADMIN = 'U0ADMIN';
const MEMBER = 'U0MEMBER';
const CHANNEL = 'C0BIDS';

let sandbox: TestSandbox;
let bot: RunningBot;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  // No default key: until someone connects, commands say how to.
  bot = await startBot({
    serviceUrl: sandbox.baseUrl,
    databasePath: join(mkdtempSync(join(sandbox.dir, 'bot-')), 'bot.db'),
  });
});
afterAll(async () => {
  await bot?.stop();
  await sandbox?.stop();
});

const command = (user: string, text: string) => tenderCommand(bot, user, CHANNEL, text);

describe('the workspace key', () => {
  it('tells people how to connect while no key is set', async () => {
    const answer = await command(MEMBER, 'search clean');
    expect(textOf(answer)).toContain('A workspace admin can add one with `/tender connect`');
    expect(textOf(await command(MEMBER, 'status'))).toContain('*Key*: none');
  });

  it('refuses the workspace’s key to a member who is not an admin, and says how to link their own', async () => {
    const refusal = await command(MEMBER, 'connect');
    expect(textOf(refusal)).toContain('Only a workspace owner or admin');
    expect(textOf(refusal)).toContain('`/tender connect me`');
    expect(bot.slack.openModals(MEMBER)).toEqual([]);
  });

  it('lets an admin connect: a wrong key shows on the field, a right one is saved and used', async () => {
    await bot.slack.slashCommand(ADMIN, CHANNEL, '/tender', 'connect');
    const modal = await eventually(() => bot.slack.openModals(ADMIN)[0], 'the connect modal');
    expect(modal.view.title.text).toBe('Connect Tenderbot');

    const wrong = await bot.slack.submitView(ADMIN, modal.id, {
      'connect/key': 'pis_wrong_0123456789abcdefghijklmnopqrstuvwx',
    });
    expect(wrong.json).toEqual({
      response_action: 'errors',
      errors: { 'connect/key_block': expect.stringContaining('does not recognise this key') },
    });
    expect(bot.slack.openModals(ADMIN)).toHaveLength(1);

    const expired = await bot.slack.submitView(ADMIN, modal.id, { 'connect/key': KEYS.aliceExpired });
    expect(expired.json.errors['connect/key_block']).toContain('expired');

    const right = await bot.slack.submitView(ADMIN, modal.id, { 'connect/key': KEYS.aliceAcme });
    expect(right.status).toBe(200);
    expect(right.json?.response_action).toBeUndefined();
    expect(bot.slack.openModals(ADMIN)).toEqual([]);
    const confirmation = await eventually(
      () => bot.slack.messagesIn(CHANNEL, ADMIN).find((message) => message.text.startsWith('Connected.')),
      'the confirmation',
    );
    expect(confirmation.ephemeralTo).toBe(ADMIN);

    const status = await command(MEMBER, 'status');
    expect(textOf(status)).toContain('this workspace’s own, connected by <@U0ADMIN>');
    expect(textOf(status)).toContain('*This key can read*: tenders, buyers, suppliers');
    expect(textOf(status)).toContain('Everything Tenderbot offers will work.');
    expect(textOf(status)).toContain('*Tender service*: answering.');
    const results = await command(MEMBER, 'search clean');
    expect(textOf(results)).toContain('1–5 of');
  });

  it('never sends the key into Slack nor writes it to the logs', () => {
    expect(JSON.stringify(bot.slack.calls)).not.toContain(KEYS.aliceAcme);
    expect(JSON.stringify(bot.slack.messages)).not.toContain(KEYS.aliceAcme);
    for (const secret of [KEYS.aliceAcme, KEYS.aliceExpired, BOT_TOKEN, SIGNING_SECRET])
      expect(bot.logs()).not.toContain(secret);
  });

  it('shows the connection and the commands in the App Home tab; the workspace’s connect button only to admins', async () => {
    await bot.slack.openHome(ADMIN);
    const home = await eventually(() => bot.slack.homeOf(ADMIN), 'the Home tab');
    expect(textOf(home.view)).toContain('Connected with this workspace’s own key');
    expect(textOf(home.view)).toContain('/tender search');
    expect(textOf(home.view)).toContain('home/connect');
    await bot.slack.openHome(MEMBER);
    const memberHome = await eventually(() => bot.slack.homeOf(MEMBER), 'the member’s Home tab');
    expect(textOf(memberHome.view)).not.toContain('Connect an API key');
    // A member gets the same button for a key of their own, and the Home tab says what it is for.
    expect(textOf(memberHome.view)).toContain('Link your own key');
    expect(textOf(memberHome.view)).toContain('`/tender connect me`');
    await bot.slack.clickInView(ADMIN, home.id, 'home/connect');
    const adminModal = await eventually(() => bot.slack.openModals(ADMIN)[0], 'the connect modal from Home');
    expect(adminModal.view.title.text).toBe('Connect Tenderbot');
    await bot.slack.closeView(ADMIN, adminModal.id);
    // An admin is offered a key of their own as well: the button's value says which window.
    expect(textOf(home.view)).toContain('Link your own key');
    await bot.slack.clickInView(ADMIN, home.id, 'home/connect', 'me');
    const adminOwn = await eventually(() => bot.slack.openModals(ADMIN)[0], 'the admin’s own-key modal');
    expect(adminOwn.view.title.text).toBe('Link your own key');
    await bot.slack.closeView(ADMIN, adminOwn.id);
    // The member's button opens the window for a key of their own: one field, no service address.
    await bot.slack.clickInView(MEMBER, memberHome.id, 'home/connect');
    const own = await eventually(() => bot.slack.openModals(MEMBER)[0], 'the personal connect modal');
    expect(own.view.title.text).toBe('Link your own key');
    expect(JSON.stringify(own.view.blocks)).toContain('Only your own `/tender` commands will use it');
    expect(JSON.stringify(own.view.blocks)).not.toContain('connect/url_block');
    await bot.slack.closeView(MEMBER, own.id);
  });

  it('says when a key made by someone else brings another bookmark list', async () => {
    const open = bot.slack.openModals(ADMIN).length;
    await bot.slack.slashCommand(ADMIN, CHANNEL, '/tender', 'connect');
    const modal = await eventually(() => bot.slack.openModals(ADMIN)[open], 'the connect modal');
    // Alice's key is connected, with no bookmarks; Bob's has one.
    await bot.slack.submitView(ADMIN, modal.id, { 'connect/key': KEYS.bobAdminAcme });
    const confirmation = await eventually(
      () => bot.slack.messagesIn(CHANNEL, ADMIN).findLast((message) => message.text.startsWith('Connected.')),
      'the confirmation',
    );
    expect(confirmation.text).toContain(
      'The bookmark list has changed: bookmarks belong to whoever made the key, so the workspace now shares this key’s list (1 tender) instead of the previous one (0 tenders).',
    );
  });

  it('says when bids seen with the previous key are not seen with the new one, and the way back', async () => {
    const connectKey = async (key: string) => {
      const open = bot.slack.openModals(ADMIN).length;
      const before = bot.slack.messagesIn(CHANNEL, ADMIN).length;
      await bot.slack.slashCommand(ADMIN, CHANNEL, '/tender', 'connect');
      const modal = await eventually(() => bot.slack.openModals(ADMIN)[open], 'the connect modal');
      await bot.slack.submitView(ADMIN, modal.id, { 'connect/key': key });
      return eventually(
        () =>
          bot.slack
            .messagesIn(CHANNEL, ADMIN)
            .slice(before)
            .findLast((message) => message.text.startsWith('Connected.')),
        'the confirmation',
      );
    };
    // Carol sees her private bid and Bob's shared one; Bob's key saw only his: nothing is hidden.
    expect((await connectKey(KEYS.carolMemberAcme)).text).not.toContain('not seen with this one');
    // Alice is not shared Carol's private bid.
    const toAlice = await connectKey(KEYS.aliceAcme);
    expect(toAlice.text).toContain(
      '1 bid seen with the previous key is not seen with this one: the service shows a bid to the person whose key started it and to those it is shared with. To work on it, connect the previous key again',
    );
  });

  it('says in plain words what a narrower key cannot read, and what to do', async () => {
    const open = bot.slack.openModals(ADMIN).length;
    await bot.slack.slashCommand(ADMIN, CHANNEL, '/tender', 'connect');
    const modal = await eventually(() => bot.slack.openModals(ADMIN)[open], 'the connect modal');
    const submitted = await bot.slack.submitView(ADMIN, modal.id, { 'connect/key': KEYS.aliceTendersOnly });
    expect(submitted.json ?? {}).toEqual({});
    await eventually(
      () => !bot.slack.openModals(ADMIN).some((view) => view.id === modal.id),
      'the modal closed',
    );
    const status = textOf(await command(MEMBER, 'status'));
    expect(status).toContain('✅ Tenders');
    expect(status).toContain('❌ Buyers');
    expect(status).toContain('Bids: this key is not allowed to read them; ask whoever made the key');
    // No scope names, error classes or field names reach people.
    expect(status).not.toMatch(/:read|Error\b|pipeline/);
  });

  it('lets only an admin disconnect, after asking', async () => {
    const refused = textOf(await command(MEMBER, 'disconnect'));
    expect(refused).toContain('Only a workspace owner or admin');
    expect(refused).toContain('Ask one of them to run `/tender disconnect`');
    // The admin is asked first; "Keep it" keeps the key.
    const question = await command(ADMIN, 'disconnect');
    expect(textOf(question)).toContain('Disconnect this workspace’s key, connected by <@U0ADMIN>?');
    expect(textOf(question)).toContain('no `/tender` command will work here');
    await bot.slack.clickInMessage(ADMIN, question, 'connect/keep_key');
    await eventually(() => textOf(question).includes('Kept:'), 'the key kept');
    expect(textOf(await command(MEMBER, 'status'))).toContain('this workspace’s own');
    // A member who forges the button is refused, and the key stays.
    const forged = bot.slack.postEphemeralAsApp(MEMBER, CHANNEL, 'forged', [
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            action_id: 'connect/disconnect',
            value: 'disconnect',
            text: { type: 'plain_text', text: 'x' },
          },
        ],
      },
    ]);
    await bot.slack.clickInMessage(MEMBER, forged, 'connect/disconnect');
    await eventually(() => textOf(forged).includes('Only a workspace owner or admin'), 'the refusal');
    expect(textOf(await command(MEMBER, 'status'))).toContain('this workspace’s own');
    const again = await command(ADMIN, 'disconnect');
    await bot.slack.clickInMessage(ADMIN, again, 'connect/disconnect');
    await eventually(() => textOf(again).includes('Disconnected'), 'disconnected');
    expect(textOf(await command(MEMBER, 'status'))).toContain('*Key*: none');
  });
});

describe('requests from Slack', () => {
  const body = new URLSearchParams({
    command: '/tender',
    text: 'help',
    team_id: 'T0TENDER',
    user_id: MEMBER,
    channel_id: CHANNEL,
    response_url: 'http://127.0.0.1:9/x',
    trigger_id: '1',
  }).toString();

  it('refuses a bad signature and a stale one', async () => {
    const now = Math.floor(Date.now() / 1000);
    const forged = await bot.slack.sendRaw(body, 'application/x-www-form-urlencoded', 'not-the-secret', now);
    expect(forged.status).toBe(401);
    const stale = await bot.slack.sendRaw(
      body,
      'application/x-www-form-urlencoded',
      SIGNING_SECRET,
      now - 600,
    );
    expect(stale.status).toBe(401);
    const fresh = await bot.slack.sendRaw(body, 'application/x-www-form-urlencoded', SIGNING_SECRET, now);
    expect(fresh.status).toBe(200);
  });

  it('answers GET /healthz', async () => {
    const answer = await request(`http://127.0.0.1:${bot.port}/healthz`);
    expect(answer.statusCode).toBe(200);
    expect(await answer.body.json()).toMatchObject({ ok: true });
  });
});

describe('a slow service', () => {
  let slowProxy: Server;
  let slowBot: RunningBot;

  beforeAll(async () => {
    // Every request to the service waits 5 s before it is passed on.
    slowProxy = createServer(async (incoming, outgoing) => {
      await new Promise((resolve) => setTimeout(resolve, 5000));
      const answer = await request(`${sandbox.baseUrl}${incoming.url}`, {
        headers: { authorization: incoming.headers.authorization ?? '' },
      });
      outgoing.writeHead(answer.statusCode, { 'content-type': 'application/json' });
      outgoing.end(await answer.body.text());
    });
    await new Promise<void>((ready) => slowProxy.listen(0, '127.0.0.1', ready));
    slowBot = await startBot({
      serviceUrl: `http://127.0.0.1:${(slowProxy.address() as AddressInfo).port}`,
      defaultKey: KEYS.carolMemberAcme,
      databasePath: join(mkdtempSync(join(sandbox.dir, 'slow-bot-')), 'bot.db'),
    });
  });
  afterAll(async () => {
    await slowBot?.stop();
    slowProxy?.closeAllConnections();
    await new Promise((done) => slowProxy?.close(done));
  });

  it('acknowledges every slash command within 3 s, then answers when the service does', async () => {
    for (const text of [
      'search clean',
      'show ocds-tbdemo-0000201',
      'bookmarks',
      'buyers',
      'saved',
      'status',
      'help',
    ]) {
      // 200, not the receiver's 404 after 3 s: acknowledged in time (timed in listeners/controls.test.ts).
      const answer = await slowBot.slack.slashCommand(MEMBER, CHANNEL, '/tender', text);
      expect(answer.status, text).toBe(200);
    }
    const results = await eventually(
      () => slowBot.slack.messagesIn(CHANNEL, MEMBER).find((message) => textOf(message).includes('1–5 of')),
      'search results after the slow service answered',
      // Seven commands at once through a 5 s proxy: each answer replaces its own notice (each
      // command has its own response_url, as in Slack; they shared one until that was fixed).
      20_000,
    );
    expect(results.ephemeralTo).toBe(MEMBER);
  }, 70_000);

  it('acknowledges every button, and a click hears first that the service is slow', async () => {
    // Next first: no earlier click's notice can be taken for its own.
    const buttons: [string, string][] = [
      ['search/next', JSON.stringify({ f: { q: 'clean' }, o: 5 })],
      ['tender/bookmark', JSON.stringify({ t: 'ocds-tbdemo-0000201', c: 'detail' })],
      ['tender/remove_bookmark', JSON.stringify({ t: 'ocds-tbdemo-0000201', c: 'detail' })],
      ['search/previous', JSON.stringify({ f: { q: 'clean' }, o: 0 })],
      ['tender/share', 'ocds-tbdemo-0000201'],
      ['directory/show_buyer', '9711454a-f86c-5415-9d6b-f37e32a7b68e'],
      ['directory/show_supplier', '9711454a-f86c-5415-9d6b-f37e32a7b68e'],
      ['directory/show_framework', 'ocds-tbdemo-fw-0001'],
      ['saved/run', '00000000-0000-4000-8000-000000000001'],
      ['error/try_again', 'search clean'],
    ];
    expect(buttons.length).toBeGreaterThan(0);
    for (const [actionId, value] of buttons) {
      const card = slowBot.slack.postEphemeralAsApp(MEMBER, CHANNEL, 'a card', [
        {
          type: 'actions',
          elements: [{ type: 'button', action_id: actionId, value, text: { type: 'plain_text', text: 'x' } }],
        },
      ]);
      const answer = await slowBot.slack.clickInMessage(MEMBER, card, actionId);
      expect(answer.status, actionId).toBe(200);
      if (actionId === 'search/next') {
        // Nothing else came first: the first thing the person sees is that the service is slow.
        const notice = await eventually(
          () =>
            slowBot.slack
              .messagesIn(CHANNEL, MEMBER)
              .slice(slowBot.slack.messagesIn(CHANNEL, MEMBER).indexOf(card))
              .find((seen) => seen.text.includes('slow to answer')),
          'the slow notice',
        );
        expect(notice.ephemeralTo).toBe(MEMBER);
      }
    }
  }, 60_000);

  it('acknowledges the connect modal, then shows the outcome in it', async () => {
    await slowBot.slack.slashCommand(ADMIN, CHANNEL, '/tender', 'connect');
    const modal = await eventually(() => slowBot.slack.openModals(ADMIN)[0], 'the connect modal');
    const answer = await slowBot.slack.submitView(ADMIN, modal.id, { 'connect/key': KEYS.aliceAcme });
    expect(answer.status).toBe(200);
    // The service takes 5 s: the key cannot be checked in time, which the modal says, on the field or in it.
    const said = await eventually(
      () =>
        [JSON.stringify(answer.json), JSON.stringify(slowBot.slack.views.get(modal.id)?.view ?? {})].find(
          (text) => text.includes('did not answer at this address'),
        ),
      'the outcome in the modal',
      15_000,
    );
    expect(said).toBeDefined();
    expect(JSON.stringify(slowBot.slack.calls)).not.toContain(KEYS.aliceAcme);
  }, 30_000);
});
