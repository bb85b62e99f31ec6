import { HomeIds } from '../../../shared/ids.ts';
import { clip, type Mrkdwn, mrkdwn, safeText } from '../../../shared/views/mrkdwn.ts';
import type { SafeModalView as ModalView } from '../../../shared/views/safe-blocks.ts';
import { type Block, section } from '../../../shared/views/tender-card.ts';

/** A channel Tenderbot is in, as the window offers it. */
export interface OfferedChannel {
  id: string;
  name: string;
}

/** Slack's room for a static select's options. */
const CHANNELS_OFFERED = 100;

/** Subscriptions a saved search can have from the Home tab: the cadences a feed takes. */
export const HOME_CADENCES = ['daily', 'hourly'] as const;

function plainText(text: string) {
  return { type: 'plain_text' as const, text: clip(text, 75) };
}

/**
 * "Which channel?" after a Home tab row's Post in channel or Subscribe: the channels Tenderbot is
 * in (it can post only there), and for a subscription how often. None: how to invite it instead.
 */
export function channelModal(args: {
  privateMetadata: string;
  /** What is posted, in words: `the card of “Roof works”`. */
  what: Mrkdwn;
  subscribe: boolean;
  channels: readonly OfferedChannel[];
}): ModalView {
  const blocks: Block[] = [
    section(
      args.subscribe
        ? mrkdwn`New tenders of ${args.what}, posted in a channel as they are published.`
        : mrkdwn`Posts ${args.what} in a channel, for everyone there.`,
    ),
  ];
  if (args.channels.length === 0) {
    blocks.push(
      section(
        mrkdwn`Tenderbot is in no channel yet. Invite it to one with \`/invite @Tenderbot\` in that channel, then try again.`,
      ),
    );
  } else {
    blocks.push({
      type: 'input',
      block_id: HomeIds.channelBlock,
      label: plainText('Channel'),
      // A channel someone expected and does not see: why, and how to add it.
      hint: {
        type: 'plain_text',
        text: 'Only the channels Tenderbot is in are listed. /invite @Tenderbot in another adds it here.',
      },
      element: {
        type: 'static_select',
        action_id: HomeIds.channelInput,
        placeholder: plainText('Choose a channel'),
        options: args.channels.slice(0, CHANNELS_OFFERED).map((channel) => ({
          text: plainText(`#${channel.name}`),
          value: channel.id,
        })),
      },
    } as Block);
    if (args.subscribe) {
      const options = HOME_CADENCES.map((cadence) => ({
        text: plainText(cadence === 'daily' ? 'Daily, at 09:00 your time' : 'Every hour'),
        value: cadence,
      }));
      blocks.push({
        type: 'input',
        block_id: HomeIds.cadenceBlock,
        label: plainText('How often'),
        element: {
          type: 'static_select',
          action_id: HomeIds.cadenceInput,
          options,
          initial_option: options[0],
        },
      } as Block);
    }
  }
  return {
    type: 'modal',
    callback_id: HomeIds.channelCallback,
    private_metadata: args.privateMetadata,
    title: plainText(args.subscribe ? 'Subscribe a channel' : 'Post in channel'),
    ...(args.channels.length > 0 ? { submit: plainText(args.subscribe ? 'Subscribe' : 'Post') } : {}),
    close: plainText(args.channels.length > 0 ? 'Cancel' : 'Close'),
    blocks,
  };
}

/** `the card of “Roof works”`: what a window posts, by the name people know it by. */
export function describedTarget(kind: 'bid' | 'tender' | 'saved', name: string | undefined): Mrkdwn {
  const named = name ? mrkdwn`“${safeText(name, 150)}”` : null;
  if (kind === 'bid') return named ? mrkdwn`the card of the bid ${named}` : mrkdwn`the bid’s card`;
  if (kind === 'tender') return named ? mrkdwn`the tender ${named}` : mrkdwn`the tender`;
  return named ? mrkdwn`the saved search ${named}` : mrkdwn`the saved search`;
}
