import { joinMrkdwn, type Mrkdwn, mrkdwn } from './mrkdwn.ts';
import { type Block, contextLine, section } from './tender-card.ts';

/** Whether the workspace can search yet, as the welcome and the Home tab's getting-started say it. */
export type ConnectionState = 'workspace' | 'default' | 'none' | 'unreadable';

/** The Home tab's getting-started section (first visit). */
export function gettingStartedBlocks(
  state: ConnectionState,
  options: { withConnection?: boolean } = {},
): Block[] {
  return [
    section(
      mrkdwn`*Getting started*\n${joinMrkdwn(
        THINGS_TO_TRY.map((line, index) => mrkdwn`${index + 1}. ${line}`),
        mrkdwn`\n`,
      )}\nYou can also message Tenderbot here: words are searched, and \`help\` lists the commands.`,
    ),
    // The Home tab has a Connection section of its own: said once there.
    ...(options.withConnection === false ? [] : [contextLine(connectionSentence(state))]),
  ];
}

/** The three things to try, for the welcome and the Home tab. */
export const THINGS_TO_TRY: readonly Mrkdwn[] = [
  mrkdwn`\`/tender search cleaning closes&lt;30d\` · tenders with those words that close within 30 days`,
  mrkdwn`Paste a notice link from Contracts Finder, Find a Tender, Public Contracts Scotland, Sell2Wales or Buyandsell: it becomes a card you can act on`,
  mrkdwn`*Search tenders* in the shortcuts menu (the lightning bolt), or the button below: a form that writes the search for you`,
];

export function connectionSentence(state: ConnectionState): Mrkdwn {
  switch (state) {
    case 'workspace':
      return mrkdwn`This workspace has connected its organisation’s API key, so everyone here can search now.`;
    case 'default':
      return mrkdwn`This workspace uses the key Tenderbot was set up with; a workspace admin can connect your organisation’s own key with \`/tender connect\`.`;
    case 'none':
      return mrkdwn`No API key is connected yet: a workspace admin runs \`/tender connect\` and pastes the organisation’s key. Until then Tenderbot cannot search.`;
    case 'unreadable':
      return mrkdwn`The stored API key can no longer be read: a workspace admin must run \`/tender connect\` again.`;
  }
}
