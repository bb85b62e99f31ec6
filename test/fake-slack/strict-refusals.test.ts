import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import { firstAnswerToExpect } from '../support/expect-continue.ts';
import { StandInApp } from './stand-in-app.ts';

// The fake Slack refuses what Slack refuses (../shared/SLACK.md, "What Slack refuses"), by its own
// check of the limits table, so a suite run against it cannot pass what Slack would turn down.
const TOKEN = 'xoxb-fake-strict';
const SECRET = 'fake-strict-secret';

const started: FakeSlack[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((slack) => slack.stop()));
});

/** A fake Slack on a clock that moves only when the test says (`advanceClock`). */
async function startSlack(): Promise<FakeSlack> {
  const frozen = Date.UTC(2026, 10, 2, 9, 0, 0);
  const slack = await new FakeSlack({ signingSecret: SECRET, botToken: TOKEN, clock: () => frozen }).start();
  started.push(slack);
  return slack;
}

/** A Web API call as raw HTTP: Slack's status and answer. */
async function call(slack: FakeSlack, method: string, body: Record<string, unknown>) {
  const response = await request(`${slack.apiUrl}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: Slack's loose answer JSON.
  return (await response.body.json()) as any;
}

/** A POST to a response_url, as Bolt's respond() sends it: its status and answer. */
async function respond(url: string, body: unknown) {
  const response = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: response.statusCode,
    json: (await response.body.json()) as { ok: boolean; error?: string },
  };
}

const plain = (text: string) => ({ type: 'plain_text', text });
const mrkdwn = (text: string) => ({ type: 'mrkdwn', text });
const section = (text: string) => ({ type: 'section', text: mrkdwn(text) });
const button = (fields: Record<string, unknown> = {}) => ({
  type: 'button',
  action_id: 'go',
  text: plain('Go'),
  ...fields,
});
const options = (count: number, value = 'v') =>
  Array.from({ length: count }, (_, index) => ({
    text: plain(`Option ${index}`),
    value: `${value}${index}`,
  }));

/** One block breaking one rule of the limits table each, with the rule named. */
const BROKEN: [string, unknown[]][] = [
  ['51 blocks in a message', Array.from({ length: 51 }, () => ({ type: 'divider' }))],
  ['a header of 151 characters', [{ type: 'header', text: plain('h'.repeat(151)) }]],
  ['a header in mrkdwn', [{ type: 'header', text: mrkdwn('Title') }]],
  ['section text of 3,001 characters', [section('s'.repeat(3001))]],
  ['an empty section text', [section('')]],
  ['a section with neither text nor fields', [{ type: 'section' }]],
  ['11 fields', [{ type: 'section', fields: Array.from({ length: 11 }, () => mrkdwn('f')) }]],
  ['a field of 2,001 characters', [{ type: 'section', fields: [mrkdwn('f'.repeat(2001))] }]],
  ['a block_id of 256 characters', [{ type: 'divider', block_id: 'b'.repeat(256) }]],
  [
    'two blocks with one block_id',
    [
      { type: 'divider', block_id: 'same' },
      { type: 'divider', block_id: 'same' },
    ],
  ],
  [
    'an action_id of 256 characters',
    [{ type: 'actions', elements: [button({ action_id: 'a'.repeat(256) })] }],
  ],
  [
    'button text of 76 characters',
    [{ type: 'actions', elements: [button({ text: plain('t'.repeat(76)) })] }],
  ],
  [
    'a button value of 2,001 characters',
    [{ type: 'actions', elements: [button({ value: 'v'.repeat(2001) })] }],
  ],
  [
    'a button url of 3,001 characters',
    [{ type: 'actions', elements: [button({ url: `https://x.example/${'u'.repeat(2990)}` })] }],
  ],
  [
    'a button url a browser would not open as a web page (javascript:)',
    [{ type: 'actions', elements: [button({ url: 'javascript:alert(document.domain)//' })] }],
  ],
  ['a button url that is no URL at all', [{ type: 'actions', elements: [button({ url: 'https://' })] }]],
  [
    '26 elements in an actions block',
    [{ type: 'actions', elements: Array.from({ length: 26 }, (_, n) => button({ action_id: `go${n}` })) }],
  ],
  ['two elements of one action_id in a block', [{ type: 'actions', elements: [button(), button()] }]],
  [
    'a static_select of 101 options',
    [
      {
        type: 'actions',
        elements: [
          { type: 'static_select', action_id: 'pick', placeholder: plain('Pick'), options: options(101) },
        ],
      },
    ],
  ],
  [
    'an option value of 151 characters',
    [
      {
        type: 'actions',
        elements: [
          {
            type: 'static_select',
            action_id: 'pick',
            placeholder: plain('Pick'),
            options: options(2, 'v'.repeat(150)),
          },
        ],
      },
    ],
  ],
  [
    'option text of 76 characters',
    [
      {
        type: 'actions',
        elements: [
          {
            type: 'static_select',
            action_id: 'pick',
            placeholder: plain('Pick'),
            options: [{ text: plain('o'.repeat(76)), value: 'one' }],
          },
        ],
      },
    ],
  ],
  [
    'an overflow of 6 options',
    [{ type: 'actions', elements: [{ type: 'overflow', action_id: 'more', options: options(6) }] }],
  ],
  [
    'a confirm dialog text of 301 characters',
    [
      {
        type: 'actions',
        elements: [
          button({
            confirm: {
              title: plain('Sure?'),
              text: mrkdwn('c'.repeat(301)),
              confirm: plain('Yes'),
              deny: plain('No'),
            },
          }),
        ],
      },
    ],
  ],
  [
    'a confirm button of 31 characters',
    [
      {
        type: 'actions',
        elements: [
          button({
            confirm: {
              title: plain('Sure?'),
              text: mrkdwn('Really'),
              confirm: plain('y'.repeat(31)),
              deny: plain('No'),
            },
          }),
        ],
      },
    ],
  ],
  ['a block type Slack does not have', [{ type: 'banner', text: plain('x') }]],
  ['blocks that are not a list', { type: 'divider' } as unknown as unknown[]],
];

describe('invalid_blocks: blocks breaking the limits table', () => {
  it.each(BROKEN)('chat.postMessage refuses %s, and nothing is posted', async (_rule, blocks) => {
    const slack = await startSlack();
    const answer = await call(slack, 'chat.postMessage', { channel: 'C0BIDS', text: 'fallback', blocks });
    expect(answer).toMatchObject({ ok: false, error: 'invalid_blocks' });
    expect(answer.response_metadata.messages.join('\n')).toMatch(/\[ERROR\].*json-pointer:\/blocks/);
    expect(slack.messagesIn('C0BIDS')).toEqual([]);
  });

  it('accepts messages at the limits: 50 blocks, a header of 150, section text of 3,000, 10 fields, 25 buttons of 75, 100 options, 5 in an overflow', async () => {
    const slack = await startSlack();
    const first = [
      { type: 'header', text: plain('h'.repeat(150)) },
      { type: 'section', text: mrkdwn('s'.repeat(3000)) },
      { type: 'section', fields: Array.from({ length: 10 }, () => mrkdwn('f'.repeat(200))) },
      { type: 'actions', elements: [{ type: 'overflow', action_id: 'more', options: options(5) }] },
      ...Array.from({ length: 46 }, () => ({ type: 'divider' })),
    ];
    const second = [
      {
        type: 'actions',
        elements: Array.from({ length: 25 }, (_, n) =>
          button({ action_id: `go${n}`, text: plain('t'.repeat(75)), value: `v${n}` }),
        ),
      },
      {
        type: 'actions',
        elements: [
          { type: 'static_select', action_id: 'pick', placeholder: plain('Pick'), options: options(100) },
        ],
      },
    ];
    expect(first).toHaveLength(50);
    for (const blocks of [first, second])
      expect(
        (await call(slack, 'chat.postMessage', { channel: 'C0BIDS', text: 'fallback', blocks })).ok,
      ).toBe(true);
    expect(slack.messagesIn('C0BIDS')).toHaveLength(2);
  });

  it('refuses them in chat.postEphemeral, chat.update, a response_url and chat.unfurl too, changing nothing', async () => {
    const slack = await startSlack();
    const broken = [{ type: 'header', text: plain('h'.repeat(151)) }];
    expect(
      await call(slack, 'chat.postEphemeral', {
        channel: 'C0BIDS',
        user: 'U0MEMBER',
        text: 'x',
        blocks: broken,
      }),
    ).toMatchObject({ ok: false, error: 'invalid_blocks' });
    expect(slack.messagesIn('C0BIDS', 'U0MEMBER')).toEqual([]);

    const posted = await call(slack, 'chat.postMessage', {
      channel: 'C0BIDS',
      text: 'first',
      blocks: [section('first')],
    });
    expect(
      await call(slack, 'chat.update', { channel: 'C0BIDS', ts: posted.ts, text: 'x', blocks: broken }),
    ).toMatchObject({ ok: false, error: 'invalid_blocks' });
    expect(slack.lastMessage('C0BIDS')).toMatchObject({ text: 'first', blocks: [section('first')] });

    const message = slack.lastMessage('C0BIDS');
    const refused = await respond(message?.responseUrl ?? '', {
      replace_original: true,
      text: 'x',
      blocks: broken,
    });
    expect(refused).toEqual({
      status: 400,
      json: { ok: false, error: 'invalid_blocks', response_metadata: expect.anything() },
    });
    expect(slack.lastMessage('C0BIDS')).toMatchObject({ text: 'first' });
    expect(slack.callsOf('response_url')).toEqual([]);

    const link = 'https://tenders.example/t/1';
    const shared = slack.postAsUser('U0MEMBER', 'C0BIDS', `look ${link}`);
    expect(
      await call(slack, 'chat.unfurl', {
        channel: 'C0BIDS',
        ts: shared.ts,
        unfurls: { [link]: { blocks: broken } },
      }),
    ).toMatchObject({ ok: false, error: 'invalid_blocks' });
    expect(shared.unfurls).toBeUndefined();
  });

  it('refuses a view breaking its limits with invalid_arguments: a title of 25, 101 blocks, private_metadata of 3,001, inputs without submit', async () => {
    const slack = await startSlack();
    const view = (fields: Record<string, unknown>) => ({
      type: 'home',
      blocks: [section('Home')],
      ...fields,
    });
    const modal = (fields: Record<string, unknown>) => ({
      type: 'modal',
      title: plain('Start a bid'),
      submit: plain('Start'),
      blocks: [section('Hello')],
      ...fields,
    });
    const refusals = [
      view({ blocks: Array.from({ length: 101 }, () => ({ type: 'divider' })) }),
      view({ private_metadata: 'm'.repeat(3001) }),
      view({ callback_id: 'c'.repeat(256) }),
      modal({ title: plain('t'.repeat(25)) }),
      modal({ submit: plain('s'.repeat(25)) }),
      modal({ close: plain('c'.repeat(25)) }),
      modal({
        submit: undefined,
        blocks: [
          {
            type: 'input',
            block_id: 'name',
            label: plain('Name'),
            element: { type: 'plain_text_input', action_id: 'name' },
          },
        ],
      }),
      modal({
        blocks: [
          {
            type: 'input',
            block_id: 'name',
            label: plain('Name'),
            element: { type: 'plain_text_input', action_id: 'name', max_length: 3001 },
          },
        ],
      }),
    ];
    for (const refused of refusals) {
      const answer = await call(slack, 'views.publish', { user_id: 'U0MEMBER', view: refused });
      expect(answer).toMatchObject({ ok: false, error: 'invalid_arguments' });
      expect(answer.response_metadata.messages.length).toBeGreaterThan(0);
    }
    expect(slack.homeOf('U0MEMBER')).toBeUndefined();
    // At the limits: 100 blocks and private_metadata of 3,000.
    const fits = view({
      blocks: Array.from({ length: 100 }, () => ({ type: 'divider' })),
      private_metadata: 'm'.repeat(3000),
    });
    expect((await call(slack, 'views.publish', { user_id: 'U0MEMBER', view: fits })).ok).toBe(true);
  });
});

describe('msg_too_long and no_text', () => {
  it('refuses text over 40,000 characters and takes 40,000', async () => {
    const slack = await startSlack();
    expect(
      await call(slack, 'chat.postMessage', { channel: 'C0BIDS', text: 'x'.repeat(40_001) }),
    ).toMatchObject({
      ok: false,
      error: 'msg_too_long',
    });
    expect(slack.messagesIn('C0BIDS')).toEqual([]);
    expect((await call(slack, 'chat.postMessage', { channel: 'C0BIDS', text: 'x'.repeat(40_000) })).ok).toBe(
      true,
    );
  });

  it('refuses blocks whose JSON is far over a message’s size, each block within its own limits', async () => {
    const slack = await startSlack();
    // 16 sections of 1,000 characters: every block fits, the message does not.
    const blocks = Array.from({ length: 16 }, (_, n) => section(`${n}`.padEnd(1000, 'x')));
    expect(await call(slack, 'chat.postMessage', { channel: 'C0BIDS', text: 'big', blocks })).toMatchObject({
      ok: false,
      error: 'msg_too_long',
    });
    const posted = await call(slack, 'chat.postMessage', {
      channel: 'C0BIDS',
      text: 'small',
      blocks: blocks.slice(0, 8),
    });
    expect(posted.ok).toBe(true);
    expect(
      await call(slack, 'chat.update', { channel: 'C0BIDS', ts: posted.ts, text: 'big', blocks }),
    ).toMatchObject({ ok: false, error: 'msg_too_long' });
    expect(slack.lastMessage('C0BIDS')?.blocks).toHaveLength(8);
  });

  it('refuses a request body over 8 MB (413 request_too_large), and does not invite one sent with Expect', async () => {
    const slack = await startSlack();
    const huge = await request(`${slack.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ channel: 'C0BIDS', text: 'x'.repeat(9 * 1024 * 1024) }),
    });
    expect(huge.statusCode).toBe(413);
    expect(await huge.body.json()).toMatchObject({ ok: false, error: 'request_too_large' });
    const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };
    expect(await firstAnswerToExpect(`${slack.apiUrl}chat.postMessage`, 9 * 1024 * 1024, headers)).toBe(413);
    expect(await firstAnswerToExpect(`${slack.apiUrl}chat.postMessage`, 100, headers)).toBe(100);
    expect(slack.lastMessage('C0BIDS')).toBeUndefined();
  });

  it('refuses a message with neither text nor blocks in chat.postMessage, chat.postEphemeral, chat.update and a response_url', async () => {
    const slack = await startSlack();
    expect(await call(slack, 'chat.postMessage', { channel: 'C0BIDS' })).toMatchObject({
      ok: false,
      error: 'no_text',
    });
    expect(await call(slack, 'chat.postMessage', { channel: 'C0BIDS', text: '', blocks: [] })).toMatchObject({
      ok: false,
      error: 'no_text',
    });
    expect(await call(slack, 'chat.postEphemeral', { channel: 'C0BIDS', user: 'U0MEMBER' })).toMatchObject({
      ok: false,
      error: 'no_text',
    });
    const posted = await call(slack, 'chat.postMessage', { channel: 'C0BIDS', text: 'kept' });
    expect(await call(slack, 'chat.update', { channel: 'C0BIDS', ts: posted.ts, text: '' })).toMatchObject({
      ok: false,
      error: 'no_text',
    });
    expect(slack.messagesIn('C0BIDS', 'U0MEMBER').map((message) => message.text)).toEqual(['kept']);
    const refused = await respond(slack.lastMessage('C0BIDS')?.responseUrl ?? '', {
      response_type: 'ephemeral',
    });
    expect(refused).toEqual({ status: 400, json: { ok: false, error: 'no_text' } });
    // Deleting through it needs no text.
    expect(
      (await respond(slack.lastMessage('C0BIDS')?.responseUrl ?? '', { delete_original: true })).status,
    ).toBe(200);
    expect(slack.messagesIn('C0BIDS')).toEqual([]);
  });
});

describe('a response_url works 5 times within 30 minutes', () => {
  it('answers a sixth use with an error status and posts nothing', async () => {
    const slack = await startSlack();
    const url = slack.postAsApp('C0BIDS', 'card', [], null).responseUrl;
    for (let use = 1; use <= 5; use++)
      expect((await respond(url, { text: `answer ${use}` })).status).toBe(200);
    expect(await respond(url, { text: 'answer 6' })).toEqual({
      status: 404,
      json: { ok: false, error: 'used_url' },
    });
    const texts = slack.messagesIn('C0BIDS', 'U0ANYONE').map((message) => message.text);
    expect(texts).toEqual(['card', 'answer 1', 'answer 2', 'answer 3', 'answer 4', 'answer 5']);
    expect(slack.callsOf('response_url')).toHaveLength(5);
    expect(slack.refusals.map((refused) => [refused.method, refused.error])).toEqual([
      ['response_url.refused', 'used_url'],
    ]);
  });

  it('answers a use after 30 minutes with an error status, and takes one at 30 minutes', async () => {
    const slack = await startSlack();
    const early = slack.postAsApp('C0BIDS', 'first card', [], null).responseUrl;
    const late = slack.postAsApp('C0BIDS', 'second card', [], null).responseUrl;
    slack.advanceClock(30 * 60_000);
    expect((await respond(early, { text: 'in time' })).status).toBe(200);
    slack.advanceClock(1);
    expect(await respond(late, { text: 'too late' })).toEqual({
      status: 404,
      json: { ok: false, error: 'expired_url' },
    });
    expect(slack.messagesIn('C0BIDS', 'U0ANYONE').map((message) => message.text)).toEqual([
      'first card',
      'second card',
      'in time',
    ]);
  });

  it('answers a URL it never gave out with an error status', async () => {
    const slack = await startSlack();
    const forged = `${slack.baseUrl}/response/${Buffer.from('C0BIDS|U0MEMBER|').toString('base64url')}`;
    expect(await respond(forged, { text: 'hello' })).toEqual({
      status: 404,
      json: { ok: false, error: 'invalid_url' },
    });
    expect(slack.messagesIn('C0BIDS', 'U0MEMBER')).toEqual([]);
  });

  it('gives each command its own URL, counted and timed from the command', async () => {
    const app = new StandInApp(SECRET);
    const slack = await new FakeSlack({
      signingSecret: SECRET,
      botToken: TOKEN,
      appUrl: await app.start(),
    }).start();
    started.push(slack);
    try {
      await slack.slashCommand('U0MEMBER', 'C0BIDS', '/tender', 'search cleaning');
      const url = app.received.at(-1)?.json.response_url as string;
      slack.advanceClock(29 * 60_000);
      expect((await respond(url, { text: 'Searching…' })).status).toBe(200);
      expect((await respond(url, { text: 'Found 3', replace_original: true })).status).toBe(200);
      slack.advanceClock(2 * 60_000);
      expect((await respond(url, { text: 'Found 4', replace_original: true })).json.error).toBe(
        'expired_url',
      );
      expect(slack.messagesIn('C0BIDS', 'U0MEMBER').map((message) => message.text)).toEqual(['Found 3']);
    } finally {
      await app.stop();
    }
  });
});

describe('the app changes only its own messages', () => {
  it('answers cant_update_message and cant_delete_message for a person’s message or Slackbot’s, changing nothing', async () => {
    const slack = await startSlack();
    const person = slack.postAsUser('U0MEMBER', 'C0BIDS', 'my own words');
    const slackbot = slack.postAsSlackbot('U0MEMBER', 'C0BIDS', '`/tender` failed');
    expect(
      await call(slack, 'chat.update', { channel: 'C0BIDS', ts: person.ts, text: 'changed' }),
    ).toMatchObject({
      ok: false,
      error: 'cant_update_message',
    });
    expect(await call(slack, 'chat.delete', { channel: 'C0BIDS', ts: person.ts })).toMatchObject({
      ok: false,
      error: 'cant_delete_message',
    });
    expect(person).toMatchObject({ text: 'my own words', deleted: false });
    // Slackbot's line is ephemeral: chat.update cannot find it at all.
    expect(await call(slack, 'chat.update', { channel: 'C0BIDS', ts: slackbot.ts, text: 'x' })).toMatchObject(
      {
        ok: false,
        error: 'message_not_found',
      },
    );
    // Its own message, it may change and delete.
    const own = await call(slack, 'chat.postMessage', { channel: 'C0BIDS', text: 'the app’s' });
    expect((await call(slack, 'chat.update', { channel: 'C0BIDS', ts: own.ts, text: 'changed' })).ok).toBe(
      true,
    );
    expect((await call(slack, 'chat.delete', { channel: 'C0BIDS', ts: own.ts })).ok).toBe(true);
  });
});

describe('chat.postEphemeral to someone not in the channel', () => {
  it('answers user_not_in_channel and shows nothing', async () => {
    const slack = await startSlack();
    slack.removeMember('C0BIDS', 'U0GUEST');
    expect(
      await call(slack, 'chat.postEphemeral', { channel: 'C0BIDS', user: 'U0GUEST', text: 'only for Gus' }),
    ).toMatchObject({ ok: false, error: 'user_not_in_channel' });
    expect(slack.messagesIn('C0BIDS', 'U0GUEST')).toEqual([]);
    // Someone else's direct messages with the app hold only them.
    expect(
      await call(slack, 'chat.postEphemeral', { channel: 'DU0MEMBER', user: 'U0GUEST', text: 'x' }),
    ).toMatchObject({ ok: false, error: 'user_not_in_channel' });
    expect(
      (await call(slack, 'chat.postEphemeral', { channel: 'DU0MEMBER', user: 'U0MEMBER', text: 'x' })).ok,
    ).toBe(true);
    slack.addMember('C0BIDS', 'U0GUEST');
    expect(
      (await call(slack, 'chat.postEphemeral', { channel: 'C0BIDS', user: 'U0GUEST', text: 'back' })).ok,
    ).toBe(true);
    expect(slack.messagesIn('C0BIDS', 'U0GUEST').map((message) => message.text)).toEqual(['back']);
  });
});
