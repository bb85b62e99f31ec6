import {
  type ConnectionState,
  connectionSentence,
  THINGS_TO_TRY,
} from '../../../shared/views/getting-started.ts';
import type { Message } from '../../../shared/views/messages.ts';
import { searchBuilderButton } from '../../../shared/views/messages.ts';
import { joinMrkdwn, mrkdwn } from '../../../shared/views/mrkdwn.ts';
import { type Block, contextLine, section } from '../../../shared/views/tender-card.ts';

/** Posted once when Tenderbot is added to a channel: what it does, three things to try, the key. */
export function welcomeMessage(state: ConnectionState): Message {
  const intro = mrkdwn`*Hello, I’m Tenderbot.* I find public tenders and show them as cards you can bookmark, share, comment on and start a bid from.`;
  const blocks: Block[] = [
    section(intro),
    section(
      mrkdwn`*Three things to try*\n${joinMrkdwn(
        THINGS_TO_TRY.map((line) => mrkdwn`• ${line}`),
        mrkdwn`\n`,
      )}`,
    ),
    contextLine(connectionSentence(state)),
    { type: 'actions', elements: [searchBuilderButton()] },
  ];
  return { text: mrkdwn`Hello, I’m Tenderbot: I find public tenders and show them as cards.`, blocks };
}
