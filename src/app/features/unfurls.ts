import type { WebClient } from '@slack/web-api';
import type { Tender } from '../../contract/schemas.ts';
import { type Block, tenderCard } from '../blocks/tender-card.ts';
import { TenderIds } from '../ids.ts';
import { findTender } from '../links/find-tender.ts';
import { type NoticeRef, recogniseNoticeLink } from '../links/notice-links.ts';
import { NotConnectedError } from '../services/workspace-clients.ts';
import { serviceOrigins } from './direct-messages.ts';
import type { FeatureContext } from './feature-context.ts';

/** The card's facts a preview keeps. */
const COMPACT_FIELDS = ['*Buyer*', '*Value*', '*Deadline*', '*Status*'];

/** Slack sends at most a handful of links per message; more than this are left as they are. */
const LINKS_MAX = 5;
/** Each look-up gets this long: an unfurl that comes late is worth less than none. */
const LOOKUP_TIMEOUT_MS = 5000;

/** What `link_shared` gives: the message (or the composer's unfurl id) and its links. */
export interface SharedLinks {
  teamId: string;
  channel: string;
  messageTs: string;
  unfurlId?: string;
  source?: string;
  links: readonly { url: string; domain?: string }[];
}

/**
 * A tender as a link preview: the card's title, facts and source line, and the buttons that work
 * under someone else's message (Comment, Start a bid, Open original). Bookmark and Share redraw
 * the message they sit in, which is the person's own here, so they are left out.
 */
export function unfurlBlocks(tender: Tender, now: Date): Block[] {
  const blocks = tenderCard(tender, { bookmarked: false, shared: true, now, context: 'shared' });
  return blocks.map((block) =>
    block.type === 'section' && block.fields
      ? // Compact under a message: who, how much, when, and whether it is still open.
        {
          ...block,
          fields: block.fields.filter((field) => COMPACT_FIELDS.some((name) => field.text.startsWith(name))),
        }
      : block.type === 'actions'
        ? {
            ...block,
            elements: block.elements.filter(
              (element) =>
                !('action_id' in element) ||
                (element.action_id !== TenderIds.bookmark &&
                  element.action_id !== TenderIds.removeBookmark &&
                  element.action_id !== TenderIds.share),
            ),
          }
        : block,
  );
}

/** The links of a message that name notices of known sources, each once (Slack's limit applied). */
export function recognisedLinks(
  links: readonly { url: string }[],
  origins: readonly string[],
): { url: string; ref: NoticeRef }[] {
  const found: { url: string; ref: NoticeRef }[] = [];
  for (const { url } of links) {
    if (found.some((entry) => entry.url === url)) continue;
    const ref = recogniseNoticeLink(url, origins);
    if (ref) found.push({ url, ref });
    if (found.length >= LINKS_MAX) break;
  }
  return found;
}

/**
 * `link_shared`: each link to a notice the service holds becomes a tender card under the message
 * (`chat.unfurl`); any other link, and a known source's notice the service does not hold, is left
 * alone (no call at all when none is found). Nothing is said to anyone when a look-up fails.
 */
export async function unfurlLinks(
  context: FeatureContext,
  slack: WebClient,
  shared: SharedLinks,
): Promise<void> {
  const candidates = recognisedLinks(shared.links, serviceOrigins(context));
  if (candidates.length === 0) return;
  let client: Awaited<ReturnType<FeatureContext['clients']['forTeam']>>['client'];
  try {
    ({ client } = await context.clients.forTeam(shared.teamId));
  } catch (error) {
    // No key: links stay as Slack shows them.
    if (error instanceof NotConnectedError) return;
    throw error;
  }
  const now = context.clock();
  const found = await Promise.all(
    candidates.map(async ({ url, ref }) => {
      try {
        const tender = await findTender(client, ref, { timeoutMs: LOOKUP_TIMEOUT_MS });
        return tender ? { url, tender } : null;
      } catch (error) {
        context.logger.warn({ err: error, teamId: shared.teamId }, 'a shared link could not be looked up');
        return null;
      }
    }),
  );
  const unfurls: Record<string, { blocks: Block[] }> = {};
  for (const entry of found) if (entry) unfurls[entry.url] = { blocks: unfurlBlocks(entry.tender, now) };
  if (Object.keys(unfurls).length === 0) return;
  const where =
    shared.unfurlId && shared.source
      ? { unfurl_id: shared.unfurlId, source: shared.source }
      : { channel: shared.channel, ts: shared.messageTs };
  await slack.chat.unfurl({ ...where, unfurls } as never);
}
