/**
 * Where messages leave the app, typed so that only Mrkdwn reaches a message's `text` and only
 * safe blocks its `blocks`: the Web API client the features hold (`AppSlack`, Bolt's WebClient
 * seen through narrower parameters) and a request's response_url (`AppRespond`). Bolt's own
 * objects are assignable to these types, so nothing is wrapped at run time; a plain string given
 * as `text` is a compile error.
 */
import type {
  ChatPostEphemeralArguments,
  ChatPostEphemeralResponse,
  ChatPostMessageArguments,
  ChatPostMessageResponse,
  ChatUnfurlArguments,
  ChatUnfurlResponse,
  ChatUpdateArguments,
  ChatUpdateResponse,
  ViewsOpenArguments,
  ViewsOpenResponse,
  ViewsPublishArguments,
  ViewsPublishResponse,
  ViewsPushArguments,
  ViewsPushResponse,
  ViewsUpdateArguments,
  ViewsUpdateResponse,
  WebClient,
} from '@slack/web-api';
import type { Mrkdwn } from '../shared/views/mrkdwn.ts';
import type { Block, SafeHomeView, SafeModalView } from '../shared/views/safe-blocks.ts';

/** What every outgoing message holds: Mrkdwn text, and blocks whose mrkdwn is Mrkdwn. */
export interface OutgoingMessage {
  text: Mrkdwn;
  blocks?: Block[];
}

// Each is Slack's own argument type narrowed (so Bolt's client is one of these as it is).
export type PostMessageArgs = ChatPostMessageArguments & OutgoingMessage;
export type PostEphemeralArgs = ChatPostEphemeralArguments & OutgoingMessage;
export type UpdateArgs = ChatUpdateArguments & OutgoingMessage;
/** chat.unfurl, each preview's blocks safe. */
export type UnfurlArgs = ChatUnfurlArguments & { unfurls: Record<string, { blocks: Block[] }> };

/** The four chat methods that carry a message, with `text` as Mrkdwn. */
export interface AppChat {
  postMessage(args: PostMessageArgs): Promise<ChatPostMessageResponse>;
  postEphemeral(args: PostEphemeralArgs): Promise<ChatPostEphemeralResponse>;
  update(args: UpdateArgs): Promise<ChatUpdateResponse>;
  unfurl(args: UnfurlArgs): Promise<ChatUnfurlResponse>;
}

/** The three methods that draw a view (a modal, the Home tab), its blocks' mrkdwn as Mrkdwn. */
export interface AppViews {
  open(args: ViewsOpenArguments & { view: SafeModalView }): Promise<ViewsOpenResponse>;
  /** On top of the modal a click came from (Slack keeps three at most). */
  push(args: ViewsPushArguments & { view: SafeModalView }): Promise<ViewsPushResponse>;
  update(args: ViewsUpdateArguments & { view: SafeModalView }): Promise<ViewsUpdateResponse>;
  publish(args: ViewsPublishArguments & { view: SafeHomeView }): Promise<ViewsPublishResponse>;
}

/** Bolt's WebClient as the features use it: every other method as it is, chat and views narrowed. */
export type AppSlack = Omit<WebClient, 'chat' | 'views'> & { chat: AppChat; views: AppViews };

/** A body for a response_url. */
export interface RespondMessage extends OutgoingMessage {
  response_type?: 'ephemeral' | 'in_channel';
  replace_original?: boolean;
  delete_original?: boolean;
  thread_ts?: string;
}

/** A request's response_url (Bolt's `respond`), taking only a RespondMessage. */
export type AppRespond = (message: RespondMessage) => Promise<unknown>;
