/**
 * Block Kit as the app builds it: @slack/types' blocks with every mrkdwn text object holding
 * `Mrkdwn`, never a plain string, so outside text cannot reach a section, a field or a context
 * line unescaped without a compile error. Each of these is still a `KnownBlock` for Slack's client.
 */
import type { HomeView, KnownBlock, ModalView, MrkdwnElement, Button as SlackButton } from '@slack/types';
import type { Mrkdwn, WebUrl } from './mrkdwn.ts';

/** A mrkdwn text object whose text was made safe by ./mrkdwn.ts. */
export interface MrkdwnObject {
  type: 'mrkdwn';
  text: Mrkdwn;
  verbatim?: boolean;
}

/**
 * `T` with every MrkdwnElement inside it (at any depth) replaced by MrkdwnObject, and every `url`
 * (a button's, a link's) a WebUrl: checked http(s), never a `javascript:` address from the data.
 */
export type WithSafeMrkdwn<T> = T extends MrkdwnElement
  ? MrkdwnObject
  : T extends readonly (infer Item)[]
    ? WithSafeMrkdwn<Item>[]
    : T extends object
      ? { [K in keyof T]: K extends 'url' ? WebUrl : WithSafeMrkdwn<T[K]> }
      : T;

/** Any block the app draws, in a message, a modal or the Home tab. */
export type Block = WithSafeMrkdwn<KnownBlock>;

/** A message: its notification `text` (Slack parses it as mrkdwn too) and its blocks. */
export interface Message {
  text: Mrkdwn;
  blocks: Block[];
}

/** A button (its confirmation dialog's text is mrkdwn too). */
export type Button = WithSafeMrkdwn<SlackButton>;

/** A modal as the app draws it: its blocks' mrkdwn is Mrkdwn. */
export type SafeModalView = WithSafeMrkdwn<ModalView>;

/** The Home tab as the app draws it: its blocks' mrkdwn is Mrkdwn. */
export type SafeHomeView = WithSafeMrkdwn<HomeView>;
