import { ConnectIds } from '../../../shared/ids.ts';
import { clip, type Mrkdwn, mrkdwn } from '../../../shared/views/mrkdwn.ts';
import type { SafeModalView as ModalView } from '../../../shared/views/safe-blocks.ts';
import { type Block, section } from '../../../shared/views/tender-card.ts';

// The Home tab’s view lives in src/app/features/home/views/home-view.ts (with the bookmarks, bids and saved searches).

/** Titles of the two connect windows (Slack allows 24 characters). */
export const CONNECT_TITLES = { workspace: 'Connect Tenderbot', personal: 'Link your own key' } as const;

const WORKSPACE_INTRO = mrkdwn`Paste an API key of the Procurement Intelligence Service, made by an owner or admin of your organisation. Every command in this workspace will use it. The key is checked now, stored encrypted, and never shown again.`;

const PERSONAL_INTRO = mrkdwn`Paste an API key of the Procurement Intelligence Service that was made for you (in your organisation’s developer settings). Only your own \`/tender\` commands will use it: your bookmarks become a list of your own, and comments and bids you make show you as their author in the service. The key is checked now, stored encrypted, and never shown again.`;

/**
 * The modal of `/tender connect` (the workspace's key) and of `/tender connect me` (`forMe`: the
 * person's own, no service address: always the operator's): what the key is for, the key, and the
 * service address when the operator allows others than its own. `problem` (a sentence from a check
 * that finished after the modal was acknowledged) shows above the fields.
 */
export function connectModal(
  privateMetadata: string,
  defaultServiceUrl: string,
  problem?: Mrkdwn,
  forMe = false,
  /** Whether to ask for a service address: only when the operator allows others than its own. */
  askServiceUrl = true,
): ModalView {
  const blocks: Block[] = [
    section(forMe ? PERSONAL_INTRO : WORKSPACE_INTRO),
    ...(problem ? [section(mrkdwn`:warning: ${problem}`)] : []),
    {
      type: 'input',
      block_id: ConnectIds.keyBlock,
      label: { type: 'plain_text', text: forMe ? 'Your API key' : 'API key' },
      element: {
        type: 'plain_text_input',
        action_id: ConnectIds.keyInput,
        placeholder: { type: 'plain_text', text: 'pis_…' },
        max_length: 500,
      },
    },
  ];
  if (askServiceUrl && !forMe)
    blocks.push({
      type: 'input',
      block_id: ConnectIds.urlBlock,
      optional: true,
      label: { type: 'plain_text', text: 'Service URL (if not the default)' },
      element: {
        type: 'plain_text_input',
        action_id: ConnectIds.urlInput,
        placeholder: { type: 'plain_text', text: clip(defaultServiceUrl, 150) },
        max_length: 500,
      },
    });
  return {
    type: 'modal',
    callback_id: ConnectIds.callback,
    private_metadata: clip(privateMetadata, 3000),
    title: { type: 'plain_text', text: forMe ? CONNECT_TITLES.personal : CONNECT_TITLES.workspace },
    submit: { type: 'plain_text', text: forMe ? 'Link key' : 'Connect' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks,
  };
}

/** What the connect modal shows while a slow check of the key goes on (it must answer within 3 s). */
export function connectCheckingView(forMe = false): ModalView {
  return {
    type: 'modal',
    callback_id: ConnectIds.callback,
    title: { type: 'plain_text', text: forMe ? CONNECT_TITLES.personal : CONNECT_TITLES.workspace },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [section(mrkdwn`Checking the key with the service… This can take a few seconds.`)],
  };
}

/** The connect modal once the key is saved. */
export function connectDoneView(forMe = false): ModalView {
  return {
    type: 'modal',
    callback_id: ConnectIds.callback,
    title: { type: 'plain_text', text: forMe ? CONNECT_TITLES.personal : CONNECT_TITLES.workspace },
    close: { type: 'plain_text', text: 'Done' },
    blocks: [section(forMe ? PERSONAL_LINKED_SENTENCE : CONNECTED_SENTENCE)],
  };
}

export const CONNECTED_SENTENCE = mrkdwn`Connected. Every \`/tender\` command in this workspace now uses the new key. \`/tender status\` shows what it can do.`;

/** PERSONAL_LINKED_SENTENCE for a guest: their key changes what they read, not what they may do. */
export const GUEST_LINKED_SENTENCE = mrkdwn`Linked. Your own \`/tender\` commands now read with your own key: the bookmarks and bids you see are those it sees. As a guest you can read them, not change them. Nothing changes for anyone else. \`/tender disconnect me\` unlinks it.`;
export const PERSONAL_LINKED_SENTENCE = mrkdwn`Linked. Your own \`/tender\` commands now use your own key: your bookmarks are your own list, and comments and bids you make show you as their author in the service. Nothing changes for anyone else. \`/tender disconnect me\` unlinks it.`;
