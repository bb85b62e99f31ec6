import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { FakeSlack } from '../../src/fake-slack/fake-slack.ts';

// The fake Slack's Socket Mode endpoint, driven by a bare WebSocket client so that each frame of
// Slack's protocol (../shared/SLACK.md, "Socket Mode") is seen as it travels.
const APP_TOKEN = 'xapp-1-fake-socket';
const BOT_TOKEN = 'xoxb-fake-socket';

const started: FakeSlack[] = [];
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await Promise.all(started.splice(0).map((slack) => slack.stop()));
});

async function startSlack(): Promise<FakeSlack> {
  const slack = await new FakeSlack({
    signingSecret: 'fake-socket-secret',
    botToken: BOT_TOKEN,
    appToken: APP_TOKEN,
  }).start();
  started.push(slack);
  return slack;
}

/** A connection as an app opens one: its frames, parsed, as they arrive. */
async function connect(url: string): Promise<{ socket: WebSocket; frames: Record<string, unknown>[] }> {
  const socket = new WebSocket(url);
  sockets.push(socket);
  const frames: Record<string, unknown>[] = [];
  socket.on('message', (data) => frames.push(JSON.parse(data.toString())));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { socket, frames };
}

async function until<T>(check: () => T | undefined, what: string): Promise<T> {
  for (let tries = 0; tries < 400; tries++) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never saw ${what}`);
}

describe('Socket Mode', () => {
  it('opens a connection only with the app-level token, each URL once', async () => {
    const slack = await startSlack();
    const asApp = new WebClient('', {
      slackApiUrl: slack.apiUrl,
      headers: { Authorization: `Bearer ${APP_TOKEN}` },
    });
    const opened = await asApp.apps.connections.open({});
    expect(opened.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/socket-mode\?ticket=[0-9a-f]+$/);
    const asBot = new WebClient(BOT_TOKEN, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    await expect(asBot.apps.connections.open({})).rejects.toThrow(/not_allowed_token_type/);
    const wrongApp = new WebClient('', {
      slackApiUrl: slack.apiUrl,
      headers: { Authorization: 'Bearer xapp-1-someone-else' },
      retryConfig: { retries: 0 },
    });
    await expect(wrongApp.apps.connections.open({})).rejects.toThrow(/invalid_auth/);

    const { frames } = await connect(opened.url as string);
    await until(() => frames[0], 'hello');
    expect(frames[0]).toMatchObject({ type: 'hello', num_connections: 1 });
    expect(slack.inSocketMode).toBe(true);
    // The same URL a second time is refused.
    const again = new WebSocket(opened.url as string);
    sockets.push(again);
    const refused = await new Promise<string>((resolve) => {
      again.once('unexpected-response', (_request, response) => resolve(String(response.statusCode)));
      again.once('error', (error) => resolve(error.message));
    });
    expect(refused).toMatch(/401/);
  });

  it('sends commands, clicks and events as envelopes and answers with what the app acknowledged', async () => {
    const slack = await startSlack();
    const asApp = new WebClient('', {
      slackApiUrl: slack.apiUrl,
      headers: { Authorization: `Bearer ${APP_TOKEN}` },
    });
    const { socket, frames } = await connect((await asApp.apps.connections.open({})).url as string);
    await until(() => frames[0], 'hello');
    // The app: acknowledges every envelope, a command with a message for the person.
    socket.on('message', (data) => {
      const envelope = JSON.parse(data.toString());
      if (!envelope.envelope_id) return;
      const payload =
        envelope.type === 'slash_commands' ? { text: `you typed ${envelope.payload.text}` } : undefined;
      socket.send(JSON.stringify({ envelope_id: envelope.envelope_id, ...(payload ? { payload } : {}) }));
    });

    const command = await slack.slashCommand('U0MEMBER', 'C0BIDS', '/tender', 'search cleaning');
    expect(command).toEqual({
      status: 200,
      text: '{"text":"you typed search cleaning"}',
      json: { text: 'you typed search cleaning' },
      responseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/response\//),
    });
    const commandEnvelope = frames[1] as { envelope_id: unknown; payload: { response_url: string } };
    expect(commandEnvelope).toMatchObject({
      type: 'slash_commands',
      accepts_response_payload: true,
      payload: { command: '/tender', text: 'search cleaning', user_id: 'U0MEMBER', channel_id: 'C0BIDS' },
    });
    expect(commandEnvelope.envelope_id).toEqual(expect.any(String));
    expect(commandEnvelope.payload.response_url).toContain('/response/');

    const card = slack.postAsApp(
      'C0BIDS',
      'card',
      [
        {
          type: 'actions',
          elements: [{ type: 'button', action_id: 'go', text: { type: 'plain_text', text: 'Go' } }],
        },
      ],
      null,
    );
    expect(await slack.clickInMessage('U0MEMBER', card, 'go')).toMatchObject({
      status: 200,
      text: '',
      json: null,
    });
    expect(frames[2]).toMatchObject({
      type: 'interactive',
      accepts_response_payload: false,
      payload: { type: 'block_actions', actions: [{ action_id: 'go' }] },
    });

    expect((await slack.openHome('U0MEMBER')).status).toBe(200);
    expect(frames[3]).toMatchObject({
      type: 'events_api',
      accepts_response_payload: false,
      payload: { type: 'event_callback', event: { type: 'app_home_opened', user: 'U0MEMBER' } },
    });
    // Slack's retry of an event says which attempt it is.
    await slack.sendEvent({ type: 'app_home_opened', user: 'U0MEMBER', tab: 'home' }, { retryNum: 1 });
    expect(frames[4]).toMatchObject({ type: 'events_api', retry_attempt: 1, retry_reason: 'http_timeout' });
    expect(slack.socketMode.acks.map((ack) => ack.envelope_id)).toEqual(
      frames.slice(1).map((frame) => frame.envelope_id),
    );
  });

  it('answers 404 when the app does not acknowledge within 3 s, as Slack gives up on it', async () => {
    const slack = await startSlack();
    const asApp = new WebClient('', {
      slackApiUrl: slack.apiUrl,
      headers: { Authorization: `Bearer ${APP_TOKEN}` },
    });
    const { frames } = await connect((await asApp.apps.connections.open({})).url as string);
    await until(() => frames[0], 'hello');
    const answer = await slack.slashCommand('U0MEMBER', 'C0BIDS', '/tender', 'help');
    expect(answer.status).toBe(404);
    expect(frames[1]).toMatchObject({ type: 'slash_commands' });
    expect(slack.socketMode.acks).toEqual([]);
  });

  it('asks the app to reconnect with a disconnect frame', async () => {
    const slack = await startSlack();
    const asApp = new WebClient('', {
      slackApiUrl: slack.apiUrl,
      headers: { Authorization: `Bearer ${APP_TOKEN}` },
    });
    const { socket, frames } = await connect((await asApp.apps.connections.open({})).url as string);
    await until(() => frames[0], 'hello');
    slack.askToReconnect();
    await until(() => frames[1], 'disconnect');
    expect(frames[1]).toMatchObject({ type: 'disconnect', reason: 'refresh_requested' });
    socket.close();
    await until(() => (slack.inSocketMode ? undefined : true), 'the connection closed');
    // With no connection, deliveries go to the app's HTTP address again (none here).
    await expect(slack.slashCommand('U0MEMBER', 'C0BIDS', '/tender', 'help')).rejects.toThrow(/appUrl/);
  });
});
