import { randomBytes, randomUUID } from 'node:crypto';
import { request } from 'undici';
import { actionFor, type Choice, inputState, optionsOf } from './element-state.ts';
import { functionFieldsOf } from './functions.ts';
import { linksOnDomains } from './links.ts';
import { signedHeaders } from './signing.ts';
import type { SocketMode } from './socket-mode.ts';
import { type AppAnswer, BOT_USER_ID, type FakeMessage, type SentRequest } from './types.ts';
import { enterpriseFields, findElement, type Workspace } from './workspace.ts';

export type { Choice } from './element-state.ts';

/**
 * What the fake Slack sends to the app, signed as Slack signs: slash commands, clicks in messages
 * and views, view submissions and closes, events, and raw bodies or replays for the guard's tests.
 */
export class AppSender {
  /** The last request sent to the app, byte for byte (to replay it). */
  lastSent: SentRequest | null = null;

  constructor(
    private readonly workspace: Workspace,
    private readonly signingSecret: string,
    private readonly appUrl: () => string | null,
    /** Slack's Socket Mode: while the app holds a connection, deliveries go through it. */
    private readonly socketMode: () => SocketMode | null = () => null,
  ) {}

  /** Types a slash command, as Slack posts it: form-encoded, signed, with a response_url. */
  async slashCommand(userId: string, channelId: string, command: string, text: string): Promise<AppAnswer> {
    const { workspace } = this;
    const user = workspace.user(userId);
    const responseUrl = workspace.newResponseUrl(channelId, userId);
    const body = new URLSearchParams({
      token: 'fake-verification-token',
      team_id: workspace.teamId,
      team_domain: workspace.domain,
      channel_id: channelId,
      channel_name: workspace.channel(channelId).name,
      user_id: userId,
      user_name: user.name,
      command,
      text,
      api_app_id: 'A0TENDERBOT',
      ...(workspace.enterprise ? { enterprise_id: workspace.enterprise.id } : {}),
      is_enterprise_install: String(workspace.orgWideInstall),
      response_url: responseUrl,
      trigger_id: workspace.newTrigger(userId),
    }).toString();
    return { ...(await this.sendToApp(body, 'application/x-www-form-urlencoded')), responseUrl };
  }

  /** Clicks a button (or picks an option, or a date) in a stored message, building the payload as Slack does. */
  async clickInMessage(
    userId: string,
    message: FakeMessage,
    actionId: string,
    choice?: Choice,
  ): Promise<AppAnswer> {
    const { workspace } = this;
    // A button may be in the message, or in a link preview the app attached to it (chat.unfurl).
    const unfurls = Object.entries(message.unfurls ?? {});
    let found = findElement(message.blocks, actionId);
    let container: Record<string, unknown> = { type: 'message' };
    if (!found) {
      for (const [index, [url, attachment]] of unfurls.entries()) {
        found = findElement(attachment.blocks ?? [], actionId);
        if (found) {
          container = {
            type: 'message_attachment',
            attachment_id: index + 1,
            is_app_unfurl: true,
            app_unfurl_url: url,
          };
          break;
        }
      }
    }
    if (!found) throw new Error(`no element with action_id ${actionId} in message ${message.ts}`);
    const user = workspace.user(userId);
    const responseUrl = workspace.newResponseUrl(message.channel, userId, message.ts);
    const payload: Record<string, unknown> = {
      type: 'block_actions',
      user: { id: userId, username: user.name, name: user.name, team_id: workspace.teamId },
      api_app_id: 'A0TENDERBOT',
      token: 'fake-verification-token',
      container: {
        ...container,
        message_ts: message.ts,
        channel_id: message.channel,
        is_ephemeral: message.ephemeralTo !== null,
        ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
      },
      trigger_id: workspace.newTrigger(userId),
      team: { id: workspace.teamId, domain: workspace.domain },
      ...enterpriseFields(workspace),
      channel: { id: message.channel, name: workspace.channel(message.channel).name },
      // Slack makes a response_url per click: what it posts is for the person who clicked.
      response_url: responseUrl,
      actions: [actionFor(found.element, actionId, found.blockId, workspace.nextTs(), choice)],
      state: { values: {} },
      // A message a workflow step posted: the click carries the run (function_data) and its token.
      ...functionFieldsOf(workspace, message.channel, message.ts),
    };
    // Slack sends the message only for one posted in a channel; an ephemeral click carries none.
    if (message.ephemeralTo === null) {
      payload.message = {
        type: 'message',
        ts: message.ts,
        text: message.text,
        blocks: message.blocks,
        user: message.authorId,
        ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
        ...(unfurls.length > 0 ? { attachments: unfurls.map(([, attachment]) => attachment) } : {}),
        ...(message.metadata ? { metadata: message.metadata } : {}),
      };
    }
    return { ...(await this.sendPayload(payload)), responseUrl };
  }

  /** Clicks a button (or picks an option) in a Home tab or modal view. */
  async clickInView(
    userId: string,
    viewId: string,
    actionId: string,
    value?: string | Choice,
  ): Promise<AppAnswer> {
    const { workspace } = this;
    const stored = workspace.views.get(viewId);
    if (!stored) throw new Error(`no view ${viewId}`);
    const found = findElement(stored.view.blocks ?? [], actionId);
    if (!found) throw new Error(`no element with action_id ${actionId} in view ${viewId}`);
    const choice = typeof value === 'string' ? { value } : value;
    return this.sendPayload({
      type: 'block_actions',
      user: { id: userId, username: workspace.user(userId).name, team_id: workspace.teamId },
      api_app_id: 'A0TENDERBOT',
      token: 'fake-verification-token',
      container: { type: 'view', view_id: viewId },
      trigger_id: workspace.newTrigger(userId),
      team: { id: workspace.teamId, domain: workspace.domain },
      ...enterpriseFields(workspace),
      view: stored.view,
      actions: [
        actionFor(
          found.element,
          actionId,
          found.blockId,
          workspace.nextTs(),
          choice,
          workspace.suggested.get(`${viewId}|${actionId}`),
        ),
      ],
    });
  }

  /**
   * Submits an open modal with values by block_id or by action_id (text for a text input,
   * `YYYY-MM-DD` for a date picker, an option's value for a select); answers the app's reply
   * (`response_action` errors stay visible to the test, as a person would see them). Slack keys
   * state.values by block, and two blocks may share an action id: a value given by block_id is that
   * block's alone; one given by action_id fills every block with that action.
   */
  async submitView(userId: string, viewId: string, typed: Record<string, string>): Promise<AppAnswer> {
    const { workspace } = this;
    const stored = workspace.views.get(viewId);
    if (!stored) throw new Error(`no view ${viewId}`);
    const values: Record<string, Record<string, unknown>> = {};
    for (const block of stored.view.blocks ?? []) {
      if (block.type !== 'input' || !block.element?.action_id) continue;
      const actionId = block.element.action_id as string;
      values[block.block_id] = {
        [actionId]: inputState(
          block.element,
          typed[block.block_id] ?? typed[actionId],
          workspace.suggested.get(`${viewId}|${actionId}`),
        ),
      };
    }
    const answer = await this.sendPayload({
      type: 'view_submission',
      team: { id: workspace.teamId, domain: workspace.domain },
      ...enterpriseFields(workspace),
      user: { id: userId, username: workspace.user(userId).name, team_id: workspace.teamId },
      api_app_id: 'A0TENDERBOT',
      token: 'fake-verification-token',
      trigger_id: workspace.newTrigger(userId),
      view: { ...stored.view, state: { values } },
    });
    // A submission without errors closes the modal, as in Slack.
    const action = answer.json?.response_action;
    if (answer.status === 200 && action !== 'errors' && action !== 'update' && action !== 'push')
      workspace.views.delete(viewId);
    if (action === 'update' && answer.json.view) stored.view = { ...answer.json.view, id: viewId };
    return answer;
  }

  /**
   * Opens the App Home tab: an `app_home_opened` event, carrying the Home the app last published
   * for this person (`view`), as Slack's does; a first visit has none.
   */
  async openHome(userId: string): Promise<AppAnswer> {
    const home = this.workspace.homeOf(userId);
    return this.sendEvent({
      type: 'app_home_opened',
      user: userId,
      channel: `D${userId}`,
      tab: 'home',
      ...(home ? { view: home.view } : {}),
    });
  }

  /** Opens the Messages tab of the app's Home: `app_home_opened` with `tab: 'messages'`. */
  async openMessagesTab(userId: string): Promise<AppAnswer> {
    return this.sendEvent({ type: 'app_home_opened', user: userId, channel: `D${userId}`, tab: 'messages' });
  }

  /** A global shortcut (the ⚡ menu): `type: 'shortcut'` with its callback_id and a fresh trigger_id. */
  async globalShortcut(userId: string, callbackId: string): Promise<AppAnswer> {
    const { workspace } = this;
    return this.sendPayload({
      type: 'shortcut',
      token: 'fake-verification-token',
      action_ts: workspace.nextTs(),
      team: { id: workspace.teamId, domain: workspace.domain },
      user: { id: userId, username: workspace.user(userId).name, team_id: workspace.teamId },
      ...enterpriseFields(workspace),
      callback_id: callbackId,
      trigger_id: workspace.newTrigger(userId),
    });
  }

  /**
   * A message shortcut (a message's "…" menu): `type: 'message_action'` with the message, its
   * channel, a trigger_id and a response_url (what it posts is for the person, in that channel).
   */
  async messageShortcut(userId: string, message: FakeMessage, callbackId: string): Promise<AppAnswer> {
    const { workspace } = this;
    const user = workspace.user(userId);
    const responseUrl = workspace.newResponseUrl(message.channel, userId);
    const answer = await this.sendPayload({
      type: 'message_action',
      token: 'fake-verification-token',
      action_ts: workspace.nextTs(),
      team: { id: workspace.teamId, domain: workspace.domain },
      user: { id: userId, username: user.name, name: user.name, team_id: workspace.teamId },
      channel: { id: message.channel, name: workspace.channel(message.channel).name },
      ...enterpriseFields(workspace),
      callback_id: callbackId,
      trigger_id: workspace.newTrigger(userId),
      response_url: responseUrl,
      message_ts: message.ts,
      message: {
        type: 'message',
        user: message.authorId,
        ts: message.ts,
        text: message.text,
        ...(message.blocks.length > 0 ? { blocks: message.blocks } : {}),
        ...(message.authorId === BOT_USER_ID ? { bot_id: 'B0BOT' } : {}),
        ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
      },
    });
    return { ...answer, responseUrl };
  }

  /**
   * Typing in an external select of an open view: `block_suggestion` with what was typed so far.
   * The app's answer (`{ options }` or `{ option_groups }`) is remembered, so the person can then
   * pick one of those options (submitView, clickInView).
   */
  async suggestOptions(userId: string, viewId: string, actionId: string, typed: string): Promise<AppAnswer> {
    const { workspace } = this;
    const stored = workspace.views.get(viewId);
    if (!stored) throw new Error(`no view ${viewId}`);
    const found = findElement(stored.view.blocks ?? [], actionId);
    if (!found) throw new Error(`no element with action_id ${actionId} in view ${viewId}`);
    const answer = await this.sendPayload({
      type: 'block_suggestion',
      user: { id: userId, username: workspace.user(userId).name, team_id: workspace.teamId },
      container: { type: 'view', view_id: viewId },
      api_app_id: 'A0TENDERBOT',
      token: 'fake-verification-token',
      action_id: actionId,
      block_id: found.blockId,
      value: typed,
      team: { id: workspace.teamId, domain: workspace.domain },
      ...enterpriseFields(workspace),
      view: stored.view,
    });
    if (answer.status === 200)
      workspace.suggested.set(`${viewId}|${actionId}`, optionsOf(answer.json ?? undefined));
    return answer;
  }

  /**
   * The events a person's message causes: `message` (channel_type `im`) when it is in their DM
   * with the app, and `link_shared` for links on the app's unfurl domains (not for the app's own).
   */
  async eventsForPersonMessage(message: FakeMessage, unfurlDomains: readonly string[]): Promise<AppAnswer[]> {
    const { workspace } = this;
    const answers: AppAnswer[] = [];
    if (workspace.dmUser(message.channel) !== null) {
      answers.push(
        await this.sendEvent({
          type: 'message',
          client_msg_id: randomUUID(),
          channel: message.channel,
          channel_type: 'im',
          user: message.authorId,
          text: message.text,
          ts: message.ts,
          team: workspace.teamId,
          ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
        }),
      );
    }
    const links = linksOnDomains(message.text, unfurlDomains);
    if (links.length > 0) {
      const unfurlId = `${message.channel}.${message.ts}.${randomBytes(16).toString('hex')}`;
      workspace.unfurlIds.set(unfurlId, message);
      answers.push(
        await this.sendEvent({
          type: 'link_shared',
          channel: message.channel,
          is_bot_user_member: workspace.isMember(message.channel),
          user: message.authorId,
          message_ts: message.ts,
          ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
          unfurl_id: unfurlId,
          source: 'conversations_history',
          links,
        }),
      );
    }
    return answers;
  }

  /** Closes a modal with its close button: `view_closed` when the app asked for it (notify_on_close). */
  async closeView(userId: string, viewId: string): Promise<AppAnswer | null> {
    const { workspace } = this;
    const stored = workspace.views.get(viewId);
    if (!stored) throw new Error(`no view ${viewId}`);
    workspace.views.delete(viewId);
    if (!stored.view.notify_on_close) return null;
    return this.sendPayload({
      type: 'view_closed',
      team: { id: workspace.teamId, domain: workspace.domain },
      ...enterpriseFields(workspace),
      user: { id: userId, username: workspace.user(userId).name, team_id: workspace.teamId },
      api_app_id: 'A0TENDERBOT',
      token: 'fake-verification-token',
      view: stored.view,
      is_cleared: false,
    });
  }

  /**
   * Sends any raw body (text or bytes, any content type) to the app with a signature made by
   * `secret` at `timestamp`, and any extra headers (to test refusals and the app's guard).
   */
  async sendRaw(
    body: string | Buffer,
    contentType: string,
    secret: string = this.signingSecret,
    timestamp: number = Math.floor(Date.now() / 1000),
    extraHeaders: Record<string, string> = {},
  ): Promise<AppAnswer> {
    return this.post(body, { ...signedHeaders(secret, body, contentType, timestamp), ...extraHeaders });
  }

  /** Sends a request again exactly as it was (a replay), to this app or another copy of it at `url`. */
  async resend(
    sent: SentRequest,
    url?: string,
    extraHeaders: Record<string, string> = {},
  ): Promise<AppAnswer> {
    return this.post(sent.body, { ...sent.headers, ...extraHeaders }, url);
  }

  /**
   * An Events API delivery of `event`, signed now; `retryNum` adds Slack's retry headers, as when
   * Slack sends the same event (same event_id) again because it thinks the first delivery failed.
   */
  async sendEvent(
    event: Record<string, unknown>,
    options: { eventId?: string; retryNum?: number } = {},
  ): Promise<AppAnswer> {
    const body = JSON.stringify({
      token: 'fake-verification-token',
      team_id: this.workspace.teamId,
      ...(this.workspace.enterprise ? { enterprise_id: this.workspace.enterprise.id } : {}),
      api_app_id: 'A0TENDERBOT',
      type: 'event_callback',
      event_id: options.eventId ?? `Ev${randomBytes(6).toString('hex')}`,
      event_time: Math.floor(this.workspace.now() / 1000),
      event: { event_ts: this.workspace.nextTs(), ...event },
      // Slack names who the event is for; Bolt reads is_enterprise_install here for an org-wide install.
      authorizations: [
        {
          enterprise_id: this.workspace.enterprise?.id ?? null,
          team_id: this.workspace.orgWideInstall ? null : this.workspace.teamId,
          user_id: BOT_USER_ID,
          is_bot: true,
          is_enterprise_install: this.workspace.orgWideInstall,
        },
      ],
    });
    const retry: Record<string, string> =
      options.retryNum === undefined
        ? {}
        : { 'x-slack-retry-num': String(options.retryNum), 'x-slack-retry-reason': 'http_timeout' };
    return this.sendRaw(body, 'application/json', this.signingSecret, undefined, retry);
  }

  private sendPayload(payload: Record<string, unknown>): Promise<AppAnswer> {
    return this.sendToApp(
      new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      'application/x-www-form-urlencoded',
    );
  }

  private sendToApp(
    body: string,
    contentType: 'application/x-www-form-urlencoded' | 'application/json',
  ): Promise<AppAnswer> {
    return this.post(body, signedHeaders(this.signingSecret, body, contentType));
  }

  private async post(
    body: string | Buffer,
    headers: Record<string, string>,
    url?: string,
  ): Promise<AppAnswer> {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    this.lastSent = { body: bytes, headers };
    // An app in Socket Mode gets it as an envelope on its connection (no signature: the
    // connection itself was opened with the app-level token).
    const socket = url ? null : this.socketMode();
    if (socket?.connected) {
      const retryNum = headers['x-slack-retry-num'];
      return socket.deliver(
        bytes.toString('utf8'),
        headers['content-type'] ?? '',
        retryNum === undefined
          ? {}
          : { attempt: Number(retryNum), reason: headers['x-slack-retry-reason'] ?? '' },
      );
    }
    const target = url ?? this.appUrl();
    if (!target) throw new Error('the fake Slack does not know where the app is (appUrl)');
    const response = await request(target, { method: 'POST', headers, body: bytes });
    const text = await response.body.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: response.statusCode, text, json };
  }
}
