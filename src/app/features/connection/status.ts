import {
  AuthenticationError,
  ConnectionError,
  MissingScopeError,
  PlanError,
  TimeoutError,
} from '../../../client/errors.ts';
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { reply } from '../../shared/feature-context.ts';
import { formatDayOf } from '../../shared/views/formats.ts';
import { sentenceMessage } from '../../shared/views/messages.ts';
import { joinMrkdwn, type Mrkdwn, mention, mrkdwn, text as plain } from '../../shared/views/mrkdwn.ts';
import { section } from '../../shared/views/tender-card.ts';

/** What `/tender status` tries to read once each, named as people know them. */
const PROBES: { what: string; probe: (client: ProcurementClient) => Promise<unknown> }[] = [
  { what: 'Tenders', probe: (client) => client.tenders.search({ limit: 1 }) },
  { what: 'Buyers', probe: (client) => client.buyers.list({ limit: 1 }) },
  { what: 'Suppliers', probe: (client) => client.suppliers.list({ limit: 1 }) },
  { what: 'Frameworks', probe: (client) => client.frameworks.list({ limit: 1 }) },
  { what: 'Bookmarks', probe: (client) => client.bookmarks.list({ limit: 1 }) },
  { what: 'Saved searches', probe: (client) => client.savedSearches.list({ limit: 1 }) },
  { what: 'Bids', probe: (client) => client.pipelines.list({ limit: 1 }) },
];

/** `/tender status`: whose key is used, whether the service answers, and what the key can read. */
export async function statusCommand(context: FeatureContext, request: SlackRequest): Promise<void> {
  const [connection, personal, settings] = await Promise.all([
    context.store.getConnection(request.teamId),
    context.store.getPersonalKey(request.teamId, request.userId),
    context.store.getWorkspaceSettings(request.teamId),
  ]);
  const lines: Mrkdwn[] = [];
  if (connection)
    lines.push(
      mrkdwn`*Key*: this workspace’s own, connected by ${mention(connection.connectedBy)} on ${plain(connectedOn(connection.connectedAt))}.`,
    );
  else if (context.config.PROCUREMENT_API_KEY)
    lines.push(mrkdwn`*Key*: the one Tenderbot was set up with (this workspace has not connected its own).`);
  else if (!personal) {
    const sentence = mrkdwn`*Key*: none. A workspace admin can add one with \`/tender connect\`, and anyone can link their own with \`/tender connect me\`.`;
    await reply(request, sentenceMessage(sentence));
    return;
  } else
    lines.push(
      mrkdwn`*Key*: none for the workspace yet. A workspace admin can add one with \`/tender connect\`.`,
    );
  lines.push(
    personal
      ? mrkdwn`*Your key*: your own, linked on ${plain(formatDayOf(personal.connectedAt))}. Your commands use it: your bookmarks are your own, and comments and bids you make are in your name. \`/tender disconnect me\` unlinks it.`
      : mrkdwn`*Your key*: none of your own, so your commands use the workspace’s. \`/tender connect me\` links yours.`,
  );
  if (settings.personalKeysForWrites)
    lines.push(
      mrkdwn`*Changes*: this workspace asks everyone to make changes (bookmarks, comments, bids) with their own key.`,
    );
  const { client } = await context.clients.forPerson(request.teamId, request.userId);
  const results = await Promise.all(
    PROBES.map(async ({ what, probe }) => {
      try {
        await probe(client);
        return { what, ok: true, reason: mrkdwn`` };
      } catch (error) {
        return { what, ok: false, reason: reasonOf(error), error };
      }
    }),
  );
  const unreachable = results.every(
    (result) =>
      !result.ok && (result.error instanceof ConnectionError || result.error instanceof TimeoutError),
  );
  if (unreachable) {
    lines.push(
      mrkdwn`*Tender service*: not answering right now. Searches and cards will work again once it is back; try \`/tender status\` in a few minutes.`,
    );
  } else {
    lines.push(mrkdwn`*Tender service*: answering.`);
    const refused = results.filter((result) => !result.ok);
    lines.push(
      refused.length === 0
        ? mrkdwn`*${plain(personal ? 'Your own key' : 'This key')} can read*: ${plain(results.map((result) => result.what.toLowerCase()).join(', '))}. Everything Tenderbot offers will work.`
        : mrkdwn`*${plain(personal ? 'Your own key' : 'This key')} can read*: ${plain(results.map((result) => `${result.ok ? '✅' : '❌'} ${result.what}`).join('  '))}`,
    );
    for (const result of refused) lines.push(mrkdwn`• ${plain(result.what)}: ${result.reason}`);
  }
  const auth = results.find((result) => result.error instanceof AuthenticationError);
  if (auth)
    lines.push(
      personal
        ? mrkdwn`The service refuses your own key itself: make a new one and run \`/tender connect me\`.`
        : mrkdwn`The service refuses the key itself: an admin must make a new one and run \`/tender connect\`.`,
    );
  const said = joinMrkdwn(lines, mrkdwn`\n`);
  await reply(request, { text: said, blocks: [section(said)] });
}

/** `2026-11-21T…` → `21 Nov 2026`, as dates read on the cards. */
function connectedOn(isoInstant: string): string {
  const date = new Date(isoInstant);
  return Number.isNaN(date.getTime()) ? isoInstant.slice(0, 10) : formatDayOf(date);
}

/** Why a read failed and what to do, in words a bid lead reads (never an error's or a scope's name). */
function reasonOf(error: unknown): Mrkdwn {
  if (error instanceof MissingScopeError)
    return mrkdwn`this key is not allowed to read them; ask whoever made the key for one that can, then \`/tender connect\` it.`;
  if (error instanceof AuthenticationError) return mrkdwn`the service refuses this key.`;
  if (error instanceof PlanError) return mrkdwn`not part of your organisation’s plan with the service.`;
  if (error instanceof ConnectionError || error instanceof TimeoutError)
    return mrkdwn`the service did not answer; try again in a few minutes.`;
  return mrkdwn`could not be read just now; try again in a few minutes.`;
}
