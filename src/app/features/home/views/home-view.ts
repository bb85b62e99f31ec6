import type { Bookmark, PipelineListItem, SavedSearch } from '../../../../contract/schemas.ts';
import { HomeIds } from '../../../shared/ids.ts';
import {
  countdown,
  STATUS_LABELS as PIPELINE_STATUS_LABELS,
  progressBar,
} from '../../../shared/views/bid-parts.ts';
import { blockKitProblems } from '../../../shared/views/block-kit-limits.ts';
import { formatMoneyInline, grouped } from '../../../shared/views/formats.ts';
import { type ConnectionState, gettingStartedBlocks } from '../../../shared/views/getting-started.ts';
import { searchBuilderButton, usageBlocks } from '../../../shared/views/messages.ts';
import { code, type Mrkdwn, mrkdwn, safeText, text, upperFirst } from '../../../shared/views/mrkdwn.ts';
import type { Button, SafeHomeView as HomeView } from '../../../shared/views/safe-blocks.ts';
import { type Block, button, deadlineMrkdwn, section } from '../../../shared/views/tender-card.ts';

/** What the Home tab shows beside the connection: each list is null when it could not be read. */
export interface HomeContent {
  connection: Mrkdwn;
  canConnect: boolean;
  /** The person's own key: a line saying whether they linked one, and a button to link one if not. */
  ownKey?: { line: Mrkdwn; canLink: boolean };
  /** The lists were read with the person's own key: said in their headings. */
  ownLists?: boolean;
  bookmarks?: { items: Bookmark[]; total: number } | { problem: Mrkdwn };
  /** Each bid with who started it and its reference (`BID-7`), as its card says them. */
  pipelines?:
    | { items: (PipelineListItem & { startedBy?: Mrkdwn; reference?: string })[]; total: number }
    | { problem: Mrkdwn };
  /** Each saved search with what it finds, in words (never its stored fields). */
  savedSearches?:
    | { items: { saved: SavedSearch; description: Mrkdwn }[]; total: number }
    | { problem: Mrkdwn };
  now?: Date;
  /** What the last click here did elsewhere (its answer went to direct messages): said at the top. */
  notice?: Mrkdwn;
  /** A guest: each row offers only what a guest may do (open and run, never post or subscribe). */
  isGuest?: boolean;
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
    section(mrkdwn`Public tenders in Slack: search, bookmark, share, and keep your bids moving.`),
    { type: 'divider' },
  ];
  if (args.notice) blocks.splice(1, 0, section(mrkdwn`:incoming_envelope: ${args.notice}`));
  if (args.gettingStarted)
    blocks.push(...gettingStartedBlocks(args.gettingStarted, { withConnection: false }), { type: 'divider' });
  // Searching first; connecting a key sits with the connection it changes.
  blocks.push({ type: 'actions', elements: [searchBuilderButton()] });
  blocks.push(section(mrkdwn`*Connection*\n${args.connection}`));
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
    if ('problem' in list) blocks.push(section(mrkdwn`*Current bids*\n${list.problem}`));
    else if (list.total === 0)
      blocks.push(
        section(mrkdwn`*Current bids*\nNo current bids. Start one with “Start a bid” on a tender card.`),
      );
    else {
      blocks.push(section(mrkdwn`*Current bids* · ${more(list.items.length, list.total)}`));
      for (const [index, item] of list.items.slice(0, HOME_LIST_ROWS).entries()) {
        const counts = item.stageCounts;
        const total = counts.pending + counts.in_progress + counts.blocked + counts.completed;
        // Dated as the bid's card dates it, overdue marked as there.
        const target = text(
          item.targetSubmissionDate ? ` · target ${countdown(item.targetSubmissionDate, now, item)}` : '',
        );
        blocks.push(
          section(
            mrkdwn`*${safeText(item.name, 200)}*${item.reference ? mrkdwn` · ${code(item.reference, 40)}` : mrkdwn``} · ${text(PIPELINE_STATUS_LABELS[item.status])}${target}\n${text(progressBar(counts.completed, total))}${counts.blocked ? mrkdwn` · ${counts.blocked} blocked` : mrkdwn``}${item.startedBy ? mrkdwn` · ${item.startedBy}` : mrkdwn``}`,
          ),
          rowButtons(`home-bid:${index}`, [
            button('Open', HomeIds.openBid, item.id, 'primary'),
            args.isGuest ? null : button('Post in channel', HomeIds.postBid, item.id),
          ]),
        );
      }
    }
  }

  if (args.bookmarks) {
    blocks.push({ type: 'divider' });
    const list = args.bookmarks;
    const heading = args.ownLists ? mrkdwn`*Your own bookmarks*` : mrkdwn`*Bookmarks*`;
    if ('problem' in list) blocks.push(section(mrkdwn`${heading}\n${list.problem}`));
    else if (list.total === 0)
      blocks.push(section(mrkdwn`${heading}\nNo bookmarks yet. Bookmark a tender from \`/tender search\`.`));
    else {
      blocks.push(section(mrkdwn`${heading} · ${more(list.items.length, list.total)}`));
      for (const [index, bookmark] of list.items.slice(0, HOME_LIST_ROWS).entries())
        blocks.push(
          section(
            mrkdwn`*${safeText(bookmark.tender.title, 300)}*\n${upperFirst(deadlineMrkdwn(bookmark.tender.deadline, now))} · value ${text(formatMoneyInline(bookmark.tender.value))}`,
          ),
          rowButtons(`home-bookmark:${index}`, [
            button('Open', HomeIds.openTender, bookmark.tender.id, 'primary'),
            args.isGuest ? null : button('Post in channel', HomeIds.postTender, bookmark.tender.id),
          ]),
        );
    }
  }

  if (args.savedSearches) {
    blocks.push({ type: 'divider' });
    const list = args.savedSearches;
    if ('problem' in list) blocks.push(section(mrkdwn`*Saved searches*\n${list.problem}`));
    else if (list.total === 0)
      blocks.push(section(mrkdwn`*Saved searches*\nYour organisation has none yet.`));
    else {
      blocks.push(section(mrkdwn`*Saved searches* · ${more(list.items.length, list.total)}`));
      for (const [index, { saved, description }] of list.items.slice(0, HOME_LIST_ROWS).entries()) {
        blocks.push(
          section(mrkdwn`*${safeText(saved.name, 200)}*\n${description}`),
          rowButtons(`home-saved:${index}`, [
            button('Run', HomeIds.runSaved, saved.id, 'primary'),
            args.isGuest ? null : button('Subscribe a channel', HomeIds.subscribeSaved, saved.id),
            args.isGuest ? null : button('Post in channel', HomeIds.postSaved, saved.id),
          ]),
        );
      }
    }
  }

  blocks.push({ type: 'divider' }, section(mrkdwn`*Commands*`), ...usageBlocks());
  // A last guard: never publish a Home view Slack would refuse.
  while (blockKitProblems(blocks, 'home').length > 0 && blocks.length > 6)
    blocks.splice(blocks.length - 3, 1);
  return { type: 'home', blocks };
}

function more(shown: number, total: number): Mrkdwn {
  const listed = Math.min(shown, HOME_LIST_ROWS);
  return total > listed ? mrkdwn`${text(grouped(listed))} of ${text(grouped(total))}` : text(grouped(total));
}

/** A row's buttons (those a person may use), in a block of its own (each action id once per block). */
function rowButtons(blockId: string, buttons: (Button | null)[]): Block {
  return { type: 'actions', block_id: blockId, elements: buttons.filter((each) => each !== null) };
}
