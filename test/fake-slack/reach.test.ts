import type { View } from '@slack/types';
import { WebClient } from '@slack/web-api';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import { StandInApp } from './stand-in-app.ts';

// What Slack-native reach (issue 12) needs of the fake Slack: link unfurls, shortcuts, external
// selects, direct messages to the app and the Messages tab, each signed and shaped as Slack's.
const TOKEN = 'xoxb-fake-reach';
const SECRET = 'fake-reach-secret';
const DOMAIN = 'tenders.example.gov.uk';

const app = new StandInApp(SECRET);
let slack: FakeSlack;
let web: WebClient;

beforeAll(async () => {
  const appUrl = await app.start();
  slack = await new FakeSlack({
    signingSecret: SECRET,
    botToken: TOKEN,
    appUrl,
    unfurlDomains: [DOMAIN],
  }).start();
  web = new WebClient(TOKEN, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
});
beforeEach(() => {
  app.received.length = 0;
  app.answer = () => null;
});
afterAll(async () => {
  await slack.stop();
  await app.stop();
});

/** A modal opened with a trigger the app got from a shortcut. */
async function openModal(blocks: View['blocks']): Promise<string> {
  await slack.globalShortcut('U0MEMBER', 'reach/search_tenders');
  const trigger = app.received.at(-1)?.json.trigger_id as string;
  const opened = await web.views.open({
    trigger_id: trigger,
    view: {
      type: 'modal',
      callback_id: 'reach/search_builder',
      title: { type: 'plain_text', text: 'Search' },
      submit: { type: 'plain_text', text: 'Search' },
      blocks,
    } as View,
  });
  return opened.view?.id as string;
}

describe('link unfurls', () => {
  it('sends link_shared for a person’s links on the unfurl domains only', async () => {
    const url = `https://find.${DOMAIN}/tenders/ocds-123`;
    const { message, answers } = await slack.sendAsUser(
      'U0MEMBER',
      'C0BIDS',
      `have a look ${url} and <https://elsewhere.example/x|this>`,
    );
    expect(answers.map((answer) => answer.status)).toEqual([200]);
    expect(
      app.received.every((received) => received.valid && received.contentType === 'application/json'),
    ).toBe(true);
    const [event] = app.events('link_shared');
    expect(event).toMatchObject({
      type: 'link_shared',
      channel: 'C0BIDS',
      user: 'U0MEMBER',
      message_ts: message.ts,
      source: 'conversations_history',
      is_bot_user_member: true,
      links: [{ domain: DOMAIN, url }],
    });
    expect(event.unfurl_id).toMatch(/^C0BIDS\./);
    // No event for a message without such links, nor for the app's own messages.
    await slack.sendAsUser('U0MEMBER', 'C0BIDS', 'no links at all, and https://elsewhere.example/y');
    await web.chat.postMessage({ channel: 'C0BIDS', text: url });
    await slack.settle();
    expect(app.events('link_shared')).toHaveLength(1);
  });

  it('keeps chat.unfurl previews on the message, by channel and ts or by unfurl_id', async () => {
    const first = `https://www.${DOMAIN}/tenders/a`;
    const second = `https://www.${DOMAIN}/tenders/b`;
    const { message } = await slack.sendAsUser('U0ADMIN', 'C0BIDS', `${first} <${second}>`);
    const unfurlId = app.events('link_shared')[0].unfurl_id as string;
    const card = (title: string) => ({
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: `*${title}*` } },
        {
          type: 'actions',
          elements: [
            { type: 'button', action_id: 'tender/bookmark', text: { type: 'plain_text', text: 'Bookmark' } },
          ],
        },
      ],
    });
    await web.chat.unfurl({ channel: 'C0BIDS', ts: message.ts, unfurls: { [first]: card('Cleaning A') } });
    await web.chat.unfurl({
      unfurl_id: unfurlId,
      source: 'conversations_history',
      unfurls: { [second]: card('B') },
    });
    expect(Object.keys(message.unfurls ?? {})).toEqual([first, second]);
    expect(message.unfurls?.[first]).toEqual(card('Cleaning A'));
    const history = await web.conversations.history({ channel: 'C0BIDS', limit: 1 });
    expect(history.messages?.[0]?.attachments).toHaveLength(2);

    await expect(
      web.chat.unfurl({
        channel: 'C0BIDS',
        ts: message.ts,
        unfurls: { 'https://not-in-it.example/': card('x') },
      }),
    ).rejects.toThrow(/cannot_unfurl_url/);
    await expect(
      web.chat.unfurl({
        unfurl_id: 'made-up',
        source: 'conversations_history',
        unfurls: { [first]: card('x') },
      }),
    ).rejects.toThrow(/cannot_unfurl_message/);
  });
});

describe('shortcuts', () => {
  it('sends a global shortcut whose trigger opens a modal', async () => {
    await slack.globalShortcut('U0ADMIN', 'reach/search_tenders');
    const payload = app.received[0]?.json;
    expect(app.received[0]?.valid).toBe(true);
    expect(app.received[0]?.contentType).toBe('application/x-www-form-urlencoded');
    expect(payload).toMatchObject({
      type: 'shortcut',
      callback_id: 'reach/search_tenders',
      user: { id: 'U0ADMIN' },
    });
    const opened = await web.views.open({
      trigger_id: payload.trigger_id,
      view: { type: 'modal', title: { type: 'plain_text', text: 'Search tenders' }, blocks: [] },
    });
    expect(slack.openModals('U0ADMIN').map((view) => view.id)).toContain(opened.view?.id);
  });

  it('sends a message shortcut with the message, its channel and a response_url for the person', async () => {
    const message = slack.postAsUser('U0ADMIN', 'C0GENERAL', 'Can we bid on the Leeds cleaning one?');
    await slack.messageShortcut('U0MEMBER', message, 'reach/comment_on_message');
    const payload = app.received.at(-1)?.json;
    expect(payload).toMatchObject({
      type: 'message_action',
      callback_id: 'reach/comment_on_message',
      user: { id: 'U0MEMBER' },
      channel: { id: 'C0GENERAL', name: 'general' },
      message_ts: message.ts,
      message: { type: 'message', text: message.text, ts: message.ts, user: 'U0ADMIN' },
    });
    expect(payload.trigger_id).toBeTruthy();
    const answer = await request(payload.response_url, {
      method: 'POST',
      body: JSON.stringify({ text: 'Which tender is this about?' }),
    });
    await answer.body.dump();
    expect(slack.lastMessage('C0GENERAL', 'U0MEMBER')).toMatchObject({
      text: 'Which tender is this about?',
      ephemeralTo: 'U0MEMBER',
    });
  });
});

describe('external selects', () => {
  it('asks the app for options as the person types, and submits the one picked', async () => {
    const viewId = await openModal([
      {
        type: 'input',
        block_id: 'buyer_block',
        label: { type: 'plain_text', text: 'Buyer' },
        element: { type: 'external_select', action_id: 'reach/buyer_select', min_query_length: 2 },
      },
    ]);
    const options = [
      { text: { type: 'plain_text', text: 'Leeds City Council' }, value: 'buyer-leeds' },
      { text: { type: 'plain_text', text: 'Leeds Teaching Hospitals' }, value: 'buyer-lth' },
    ];
    app.answer = (received) => (received.json.type === 'block_suggestion' ? { options } : null);
    const answer = await slack.suggestOptions('U0MEMBER', viewId, 'reach/buyer_select', 'lee');
    expect(answer.json).toEqual({ options });
    expect(app.received.at(-1)?.json).toMatchObject({
      type: 'block_suggestion',
      action_id: 'reach/buyer_select',
      block_id: 'buyer_block',
      value: 'lee',
      container: { type: 'view', view_id: viewId },
      view: { id: viewId },
    });
    await expect(
      slack.submitView('U0MEMBER', viewId, { 'reach/buyer_select': 'buyer-made-up' }),
    ).rejects.toThrow(/not suggested/);
    await slack.submitView('U0MEMBER', viewId, { 'reach/buyer_select': 'buyer-lth' });
    const submitted = app.received.at(-1)?.json;
    expect(submitted.type).toBe('view_submission');
    expect(submitted.view.state.values.buyer_block['reach/buyer_select']).toEqual({
      type: 'external_select',
      selected_option: options[1],
    });
  });
});

describe('direct messages to the app and its Messages tab', () => {
  it('sends a person’s DM as a message event of channel_type im, without a subtype', async () => {
    const { message } = await slack.sendAsUser('U0MEMBER', 'DU0MEMBER', 'search cleaning in Leeds');
    const [event] = app.events('message');
    expect(event).toMatchObject({
      type: 'message',
      channel: 'DU0MEMBER',
      channel_type: 'im',
      user: 'U0MEMBER',
      text: 'search cleaning in Leeds',
      ts: message.ts,
    });
    expect(event.subtype).toBeUndefined();
    expect(slack.messagesIn('DU0MEMBER').map((item) => item.text)).toEqual(['search cleaning in Leeds']);
    // A message in a channel sends no message event (the app does not subscribe to channels).
    await slack.sendAsUser('U0MEMBER', 'C0BIDS', 'hello channel');
    expect(app.events('message')).toHaveLength(1);
  });

  it('sends app_home_opened with the messages tab', async () => {
    await slack.openMessagesTab('U0GUEST');
    expect(app.events('app_home_opened')).toEqual([
      expect.objectContaining({ user: 'U0GUEST', channel: 'DU0GUEST', tab: 'messages' }),
    ]);
  });
});

describe('the Home tab', () => {
  it('sends app_home_opened without a view on the first visit, and with the published Home after', async () => {
    await slack.openHome('U0ADMIN');
    expect(app.events('app_home_opened')[0]).toMatchObject({ tab: 'home', user: 'U0ADMIN' });
    expect(app.events('app_home_opened')[0].view).toBeUndefined();
    const published = await web.views.publish({
      user_id: 'U0ADMIN',
      view: { type: 'home', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Welcome back' } }] },
    });
    await slack.openHome('U0ADMIN');
    expect(app.events('app_home_opened')[1].view).toMatchObject({
      id: published.view?.id,
      type: 'home',
      blocks: [{ text: { text: 'Welcome back' } }],
    });
  });
});
