import type { HomeView } from '@slack/types';
import type { Bookmark, PipelineListItem, SavedSearch } from '../../contract/schemas.ts';
import { HomeIds } from '../ids.ts';
import { blockKitProblems } from './block-kit-limits.ts';
import { followLine } from './directory-messages.ts';
import { searchBuilderButton, USAGE_LINES } from './messages.ts';
import { escapeMrkdwn, safeText } from './mrkdwn.ts';
import { countdown, STATUS_LABELS as PIPELINE_STATUS_LABELS, progressBar } from './pipeline-card.ts';
import { type Block, button, formatDeadline, section } from './tender-card.ts';
import { type ConnectionState, gettingStartedBlocks } from './welcome-message.ts';

/** What the Home tab shows beside the connection: each list is null when it could not be read. */
export interface HomeContent {
  connection: string;
  canConnect: boolean;
  /** The person's own key: a line saying whether they linked one, and a button to link one if not. */
  ownKey?: { line: string; canLink: boolean };
  /** The lists were read with the person's own key: said in their headings. */
  ownLists?: boolean;
  bookmarks?: { items: Bookmark[]; total: number } | { problem: string };
  pipelines?: { items: PipelineListItem[]; total: number } | { problem: string };
  /** Each saved search with what it finds, in words (never its stored fields). */
  savedSearches?:
    | { items: { saved: SavedSearch; description: string }[]; total: number }
    | { problem: string };
  now?: Date;
  /** The first visit: a getting-started section, saying whether the workspace can search yet. */
  gettingStarted?: ConnectionState;
}

/** Each list on the Home tab shows at most this many rows (Slack allows 100 blocks in all). */
export const HOME_LIST_ROWS = 10;

/**
 * The App Home tab: the connection, then the key creator's bookmarks, the active pipelines with
 * their progress bars, and the organisation's saved searches, then the commands. Fits Slack's
 * 100 blocks: each list is capped, and says how many more there are.
 */
export function homeView(args: HomeContent): HomeView {
  const now = args.now ?? new Date();
  const blocks: Block[] = [
    { type: 'header', text: { type: 'plain_text', text: 'Tenderbot' } },
    section('Public tenders in Slack: search, bookmark, share, and keep your bids moving.'),
    { type: 'divider' },
  ];
  if (args.gettingStarted)
    blocks.push(...gettingStartedBlocks(args.gettingStarted, { withConnection: false }), { type: 'divider' });
  // Searching first; connecting a key sits with the connection it changes.
  blocks.push({ type: 'actions', elements: [searchBuilderButton()] });
  blocks.push(section(`*Connection*\n${args.connection}`));
  if (args.canConnect)
    blocks.push({ type: 'actions', elements: [button('Connect an API key', HomeIds.connect, 'connect')] });

  if (args.ownKey) {
    const own: Block = section(args.ownKey.line);
    // A block of its own (Slack wants each action id once per block); the value says "the person's own".
    if (args.ownKey.canLink)
      Object.assign(own, { accessory: button('Link your own key', HomeIds.connect, 'me') });
    blocks.push(own);
  }
  if (args.pipelines) {
    blocks.push({ type: 'divider' });
    const list = args.pipelines;
    if ('problem' in list) blocks.push(section(`*Active bids*\n${list.problem}`));
    else if (list.total === 0)
      blocks.push(section('*Active bids*\nNo active bids. Start one with “Start a bid” on a tender card.'));
    else {
      blocks.push(section(`*Active bids* · ${more(list.items.length, list.total)}`));
      for (const item of list.items.slice(0, HOME_LIST_ROWS)) {
        const counts = item.stageCounts;
        const total = counts.pending + counts.in_progress + counts.blocked + counts.completed;
        // Dated as the bid's card dates it, overdue marked as there.
        const target = item.targetSubmissionDate
          ? ` · target ${countdown(item.targetSubmissionDate, now, item.status)}`
          : '';
        // The Home tab has no channel to post into: the card is one command away.
        blocks.push(
          section(
            `*${safeText(item.name, 200)}* · ${PIPELINE_STATUS_LABELS[item.status]}${target}\n${progressBar(counts.completed, total)}${counts.blocked ? ` · ${counts.blocked} blocked` : ''}\n\`/tender pipeline ${safeText(item.id, 300)}\``,
          ),
        );
      }
    }
  }

  if (args.bookmarks) {
    blocks.push({ type: 'divider' });
    const list = args.bookmarks;
    const heading = args.ownLists ? '*Your own bookmarks*' : '*Bookmarks*';
    if ('problem' in list) blocks.push(section(`${heading}\n${list.problem}`));
    else if (list.total === 0)
      blocks.push(section(`${heading}\nNo bookmarks yet. Bookmark a tender from \`/tender search\`.`));
    else {
      blocks.push(section(`${heading} · ${more(list.items.length, list.total)}`));
      for (const bookmark of list.items.slice(0, HOME_LIST_ROWS))
        blocks.push(
          section(
            `*${safeText(bookmark.tender.title, 300)}*\n${formatDeadline(bookmark.tender.deadline, now)} · \`${safeText(bookmark.tender.id, 300)}\``,
          ),
        );
    }
  }

  if (args.savedSearches) {
    blocks.push({ type: 'divider' });
    const list = args.savedSearches;
    if ('problem' in list) blocks.push(section(`*Saved searches*\n${list.problem}`));
    else if (list.total === 0) blocks.push(section('*Saved searches*\nYour organisation has none yet.'));
    else {
      blocks.push(
        section(`*Saved searches* · ${more(list.items.length, list.total)} · run one with \`/tender saved\``),
      );
      for (const { saved, description } of list.items.slice(0, HOME_LIST_ROWS)) {
        blocks.push(section(`*${escapeMrkdwn(saved.name)}*\n${followLine(saved.id)}\n${description}`));
      }
    }
  }

  blocks.push({ type: 'divider' }, section(`*Commands*\n${USAGE_LINES.join('\n')}`));
  // A last guard: never publish a Home view Slack would refuse.
  while (blockKitProblems(blocks, 'home').length > 0 && blocks.length > 6)
    blocks.splice(blocks.length - 3, 1);
  return { type: 'home', blocks };
}

function more(shown: number, total: number): string {
  const listed = Math.min(shown, HOME_LIST_ROWS);
  return total > listed ? `${listed} of ${total}` : `${total}`;
}
