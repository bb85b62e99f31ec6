/** Messages every feature uses: one sentence, a failure with its reference, and the help card. */

import { ErrorIds, ReachIds } from '../ids.ts';
import { code, joinMrkdwn, type Mrkdwn, mrkdwn, text } from './mrkdwn.ts';
import type { Button, Message } from './safe-blocks.ts';
import { type Block, button, contextLine, section } from './tender-card.ts';

export type { Message };

/** A sentence as a message: the notification text and one section saying it. */
export function sentenceMessage(sentence: Mrkdwn): Message {
  return { text: sentence, blocks: [section(sentence)] };
}

// mrkdwn: `<…>` is Slack's control syntax, so the placeholders are written as entities.
/** What `/tender` does, in groups a person looks for (finding, keeping track, bids, channels, setting up). */
export const USAGE_GROUPS: readonly { title: string; lines: readonly Mrkdwn[] }[] = [
  {
    title: 'Find tenders',
    lines: [
      mrkdwn`\`/tender search &lt;words&gt; [filters]\` · as in \`/tender search cleaning status:open closes&lt;30d\` · filters: \`region:"North West"\` \`status:open\` \`value&gt;100k\` (pounds; \`value&gt;1m eur\`, \`currency:cad\` for others) \`closes&lt;14d\` \`cpv:72\` \`buyer:&lt;name or id&gt;\``,
      mrkdwn`\`/tender &lt;id&gt;\` or \`/tender show &lt;id or printed reference&gt;\` · one tender in full`,
      mrkdwn`\`/tender buyers &lt;words&gt; [region:…]\` · \`/tender suppliers &lt;words&gt;\` · \`/tender frameworks &lt;words&gt; [status:live] [type:dps]\``,
      mrkdwn`\`/tender saved\` · your organisation’s saved searches, each with Run`,
    ],
  },
  {
    title: 'Keep track',
    lines: [
      mrkdwn`\`/tender bookmarks\` · the bookmarked tenders`,
      mrkdwn`\`/tender comments &lt;id&gt;\` · the comments on a tender, buyer, supplier or framework`,
    ],
  },
  {
    title: 'Run bids',
    lines: [
      mrkdwn`\`/tender pipelines [words] [status:…] [archived|all]\` (or \`bids\`) · your bids · \`/tender pipeline &lt;bid&gt;\` · a bid’s card for the channel (a bid: its reference, like \`BID-7\`, or its id)`,
      mrkdwn`\`/tender pipeline status &lt;bid&gt; &lt;status&gt;\` · \`/tender pipeline stage &lt;bid&gt; &lt;stage&gt; &lt;status&gt;\` · \`/tender pipeline archive|restore &lt;bid&gt;\``,
    ],
  },
  {
    title: 'Post in this channel',
    lines: [
      mrkdwn`\`/tender subscribe pipeline &lt;bid&gt; [daily|weekly] [HH:MM]\` · a bid’s progress in this channel (weekly on Mondays)`,
      mrkdwn`\`/tender subscribe search &lt;saved search id, or words and filters&gt; [hourly|daily]\` · new tenders in this channel, each once`,
      mrkdwn`\`/tender subscribe deadlines [days]\` · bookmarked tenders and bids coming due (default 7 days) · times are in your own time zone`,
      mrkdwn`\`/tender subscriptions\` · this channel’s subscriptions, with Send now and Unsubscribe · \`/tender unsubscribe &lt;id&gt;\``,
    ],
  },
  {
    title: 'Set up',
    lines: [
      mrkdwn`\`/tender connect\` · \`/tender disconnect\` · \`/tender status\` · the workspace’s API key (admins)`,
      mrkdwn`\`/tender connect me\` · \`/tender disconnect me\` · your own key: bookmarks of your own, and comments and bids in your name`,
      mrkdwn`\`/tender settings\` · whether changes need each person’s own key (\`/tender settings personal-keys required|optional\`, admins)`,
    ],
  },
];

/** Every usage line, in the groups' order. */
export const USAGE_LINES: readonly Mrkdwn[] = USAGE_GROUPS.flatMap((group) => group.lines);

/** The usage as sections, one a group, each under its bold title (the help card, the Home tab). */
export function usageBlocks(): Block[] {
  return USAGE_GROUPS.map((group) =>
    section(
      mrkdwn`*${text(group.title)}*\n${joinMrkdwn(
        group.lines.map((line) => mrkdwn`• ${line}`),
        mrkdwn`\n`,
      )}`,
    ),
  );
}

/** The help card; `offered` goes under its first line (the search the unknown words make). */
export function helpMessage(unknownWord?: string, offered: Block[] = []): Message {
  const intro = unknownWord
    ? mrkdwn`${code(unknownWord, 100)} is not a \`/tender\` command. Here is what \`/tender\` can do:`
    : mrkdwn`*Tenderbot* finds public tenders and keeps your bids moving. Message it a search in your own words (“catering in Wales over £100k”), or use \`/tender\`:`;
  return {
    text: intro,
    blocks: [
      section(intro),
      ...offered,
      ...usageBlocks(),
      { type: 'actions', elements: [searchBuilderButton()] },
      contextLine(
        mrkdwn`Paste a notice link from Contracts Finder, Find a Tender, Public Contracts Scotland, Sell2Wales or Buyandsell to see its card.`,
      ),
    ],
  };
}

/** "Search tenders": opens the search builder (on the help card and the Home tab). */
export function searchBuilderButton(): Button {
  return button('Search tenders', ReachIds.openSearchBuilder, 'open', 'primary');
}

/** A failure as a sentence saying what to do, with the reference that is also in the log. */
export function failureMessage(sentence: Mrkdwn, referenceId: string, retryCommand: string | null): Message {
  const blocks: Block[] = [
    section(mrkdwn`:warning: ${sentence}`),
    contextLine(mrkdwn`Reference: ${code(referenceId)}`),
  ];
  if (retryCommand !== null)
    blocks.push({ type: 'actions', elements: [button('Try again', ErrorIds.tryAgain, retryCommand)] });
  return { text: mrkdwn`${sentence} (reference ${text(referenceId)})`, blocks };
}

/** How a channel follows a saved search: its id is what `/tender subscribe search` takes. */
export function followLine(id: string): Mrkdwn {
  return mrkdwn`New tenders in a channel: ${code(`/tender subscribe search ${id}`)}`;
}
