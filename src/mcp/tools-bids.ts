import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { SubmissionNotAllowedError } from '../client/errors.ts';
import {
  CalendarDate,
  PIPELINE_ARCHIVE_FILTERS,
  PIPELINE_STATUSES,
  Pipeline,
  PipelineListItem,
  STAGE_STATUSES,
  Stage,
} from '../contract/schemas.ts';
import { submittedSentence, ToolRefusal } from './failures.ts';
import {
  ADDS,
  addTool,
  cursorInput,
  limitInput,
  listPage,
  OVERWRITES,
  pageOutput,
  READS,
  type ToolContext,
} from './tool-kit.ts';
import { idempotencyKeyInput } from './tools-organisation.ts';

const bidId = z
  .string()
  .min(1)
  .max(300)
  // Slack's BID-7 numbers bids within one workspace; the service, and so these tools, know ids only.
  .refine((id) => !/^bid[-\s]?\d{1,9}$/i.test(id.trim()), {
    message: 'BID-7 is how Tenderbot numbers bids in Slack; give the bid’s id, as list_bids answers it',
  })
  .describe('The bid’s id, from list_bids or create_bid (not its BID-7 reference in Slack).');
/**
 * A real day (2027-02-30 is refused here, naming the field, not by the service after the call), of
 * a year a bid could be worked in: 0000-01-01 and 9999-12-31 are days, but a model's slip, and a
 * card would count "overdue by 2027 years".
 */
const calendarDate = CalendarDate.refine((day) => day >= '2000-01-01' && day <= '2099-12-31', {
  message: 'must be a day from 2000 to 2099',
});

/**
 * A date before today is taken, as Slack's forms take it once confirmed, but said: a model that
 * wrote 1999 for 2029 reads it in the answer (`tool` is the one that changes it again).
 */
function pastDayNote(day: string | null | undefined, what: string, tool: string): string {
  const today = new Date().toISOString().slice(0, 10);
  return day && day < today
    ? ` Note: the ${what} ${day} is in the past (today is ${today}); if that was not meant, change it with ${tool}.`
    : '';
}

type BidSummary = Pick<Pipeline, 'id' | 'name' | 'status' | 'archived' | 'targetSubmissionDate'>;
const bidLine = (bid: BidSummary) =>
  `- ${bid.id}: ${bid.name} (${bid.status.replace('_', ' ')}${bid.archived ? ', archived' : ''}${bid.targetSubmissionDate ? `, target ${bid.targetSubmissionDate}` : ''})`;

function bidText(bid: Pipeline): string {
  return [
    bidLine(bid).slice(2),
    ...bid.stages.map(
      (stage) => `  stage ${stage.position} ${stage.id}: ${stage.name} (${stage.status.replace('_', ' ')})`,
    ),
  ].join('\n');
}

/** Bids (the service's pipelines) and their stages. */
export function addBidTools(server: McpServer, context: ToolContext): void {
  addTool(
    server,
    context,
    'list_bids',
    {
      title: 'List bids',
      description:
        'List the bids (bid pipelines) the key’s owner may read in the organisation: their own and those shared with them, newest first, paged; by words in the name or summary, status, and whether archived. Read one with its stages through get_bid.',
      input: {
        q: z.string().max(500).optional().describe('Words to find in the name or summary.'),
        status: z.enum(PIPELINE_STATUSES).optional().describe('Only bids with this status.'),
        archived: z
          .enum(PIPELINE_ARCHIVE_FILTERS)
          .optional()
          .describe('active (the default): bids not archived; archived: only archived ones; all: both.'),
        limit: limitInput,
        cursor: cursorInput,
      },
      output: pageOutput(PipelineListItem),
      annotations: READS,
    },
    async (args, { client }) => {
      return listPage('bids', args, (query) => client.pipelines.list(query), bidLine);
    },
  );

  addTool(
    server,
    context,
    'get_bid',
    {
      title: 'Read a bid',
      description:
        'Read one bid by its id: status, target submission date, the tender it is for, and its stages with their ids (for update_bid_stage).',
      input: { id: bidId },
      output: { bid: Pipeline },
      annotations: READS,
    },
    async ({ id }, { client }) => {
      const bid = await client.pipelines.get(id);
      return { text: bidText(bid), data: { bid } };
    },
  );

  addTool(
    server,
    context,
    'create_bid',
    {
      title: 'Start a bid',
      description:
        'Start a bid (a bid pipeline owned by the key’s owner), usually for a tender, with optional summary, target submission date and stages. It starts as draft. Retrying the same call creates it once (see idempotencyKey). Viewers cannot start bids.',
      input: {
        name: z.string().trim().min(1).max(200).describe('The bid’s name, e.g. "Leeds NHS cleaning 2027".'),
        tenderId: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe('The tender the bid is for, from search_tenders.'),
        summary: z.string().max(5000).optional().describe('A short summary of the bid.'),
        targetSubmissionDate: calendarDate.optional().describe('When the team means to submit, YYYY-MM-DD.'),
        stages: z
          .array(
            z.object({
              name: z.string().trim().min(1).max(200).describe('The stage’s name, e.g. "Qualify".'),
              description: z.string().max(2000).optional(),
              expectedDurationDays: z.number().int().min(0).max(3650).optional(),
            }),
          )
          .max(50)
          .optional()
          .describe('The stages of the work, in order; each starts pending.'),
        idempotencyKey: idempotencyKeyInput,
      },
      output: { bid: Pipeline },
      annotations: ADDS,
    },
    async (args, { client, callerKey, creationKeys }) => {
      const { idempotencyKey, ...pipeline } = args;
      const bid = await creationKeys.create(
        callerKey,
        'create_bid',
        pipeline,
        idempotencyKey,
        (key) => client.pipelines.create(pipeline, { idempotencyKey: key }),
        (made) => made.archived,
      );
      // The model's own key names a bid started before and archived since: said, not "started".
      if (bid.archived)
        return {
          text: `No new bid was started: that idempotencyKey already started this bid, archived since. To start another, make a new UUID for idempotencyKey.\n${bidText(bid)}`,
          data: { bid },
        };
      return {
        text: `Started the bid ${bidText(bid)}${pastDayNote(bid.targetSubmissionDate, 'target submission date', 'update_bid')}`,
        data: { bid },
      };
    },
  );

  addTool(
    server,
    context,
    'update_bid',
    {
      title: 'Change a bid',
      description:
        'Change a bid’s name, summary, status or target submission date (null clears the summary or the date). Status "submitted" cannot be set here: a bid is submitted only through the service’s own submission workflow, and the service refuses it. Needs edit access to the bid.',
      input: {
        id: bidId,
        name: z.string().trim().min(1).max(200).optional(),
        summary: z.string().max(5000).nullable().optional(),
        status: z
          .enum(PIPELINE_STATUSES)
          .optional()
          .describe(
            'draft, qualifying, bidding, on_hold, won, lost or no_bid (submitted is refused by the service).',
          ),
        targetSubmissionDate: calendarDate.nullable().optional().describe('YYYY-MM-DD, or null to clear it.'),
      },
      output: { bid: Pipeline },
      annotations: OVERWRITES,
    },
    async ({ id, ...changes }, { client }) => {
      try {
        const bid = await client.pipelines.update(id, changes);
        const note = pastDayNote(changes.targetSubmissionDate, 'target submission date', 'update_bid');
        return { text: `Changed the bid ${bidText(bid)}${note}`, data: { bid } };
      } catch (error) {
        if (!(error instanceof SubmissionNotAllowedError)) throw error;
        const current = await client.pipelines.get(id).then(
          (bid) => bid.status,
          () => null,
        );
        throw new ToolRefusal(submittedSentence(error.detail, current));
      }
    },
  );

  addTool(
    server,
    context,
    'update_bid_stage',
    {
      title: 'Change a bid’s stage',
      description:
        'Change one stage of a bid: its status (pending, in_progress, blocked, completed; any may follow any), name, notes or due date (null clears notes or the date). Stage ids come from get_bid. Needs edit access to the bid.',
      input: {
        bidId,
        stageId: z.string().min(1).max(300).describe('The stage’s id, from get_bid.'),
        status: z.enum(STAGE_STATUSES).optional(),
        name: z.string().trim().min(1).max(200).optional(),
        notes: z.string().max(5000).nullable().optional(),
        dueDate: calendarDate.nullable().optional().describe('YYYY-MM-DD, or null to clear it.'),
      },
      output: { stage: Stage },
      annotations: OVERWRITES,
    },
    async ({ bidId: id, stageId, ...changes }, { client }) => {
      const stage = await client.pipelines.updateStage(id, stageId, changes);
      // A due date set in the past, as Slack's Notes form asks about one (one already there is not said again).
      const note = pastDayNote(changes.dueDate, 'due date', 'update_bid_stage');
      return {
        text: `Stage ${stage.position} of bid ${id}, ${stage.name}, is ${stage.status.replace('_', ' ')}${stage.dueDate ? `, due ${stage.dueDate}` : ''}.${note}`,
        data: { stage },
      };
    },
  );

  for (const archived of [true, false]) {
    addTool(
      server,
      context,
      archived ? 'archive_bid' : 'restore_bid',
      {
        title: archived ? 'Archive a bid' : 'Restore a bid',
        description: archived
          ? 'Archive a bid: it leaves the active list and its status stays as it is; restore_bid brings it back. Archiving an archived bid changes nothing. Needs edit access to the bid.'
          : 'Restore an archived bid to the active list; its status stays as it is. Restoring one not archived changes nothing. Needs edit access to the bid.',
        input: { id: bidId },
        output: { bid: Pipeline },
        annotations: archived ? OVERWRITES : ADDS,
      },
      async ({ id }, { client }) => {
        const bid = await client.pipelines.archive(id, archived);
        return { text: `${archived ? 'Archived' : 'Restored'} the bid ${bidText(bid)}`, data: { bid } };
      },
    );
  }
}
