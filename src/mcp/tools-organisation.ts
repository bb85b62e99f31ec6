import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import {
  Bookmark,
  COMMENT_MAX_CODE_POINTS,
  Comment,
  ENTITY_TYPES,
  SavedSearch,
  Tender,
} from '../contract/schemas.ts';
import { encodeCursor, offsetOf } from './cursor.ts';
import { ToolRefusal } from './failures.ts';
import {
  ADDS,
  addTool,
  cursorInput,
  limitInput,
  listPage,
  OVERWRITES,
  pageLine,
  pageOf,
  pageOutput,
  READS,
  type ToolContext,
} from './tool-kit.ts';
import { tenderLine } from './tools-public.ts';

export const idempotencyKeyInput = z
  .uuid()
  .optional()
  .describe(
    'A UUID you make once for this one new record and send again, unchanged, if you retry the same call (after a timeout or an error), so it is created once. Leave out to let the server treat identical calls within 10 minutes as one.',
  );

const commentLine = (comment: Comment) =>
  `- ${comment.id}${comment.parentId ? ` (reply to ${comment.parentId})` : ''}, ${comment.author.name}, ${comment.createdAt.slice(0, 16).replace('T', ' ')}: ${comment.body ?? '(deleted)'}`;

/** Bookmarks, saved searches and comments: the person's and the organisation's own data. */
export function addOrganisationTools(server: McpServer, context: ToolContext): void {
  addTool(
    server,
    context,
    'list_bookmarks',
    {
      title: 'List my bookmarks',
      description:
        'List the tenders the key’s owner has bookmarked (personal bookmarks, which follow the person across workspaces), most recent first, paged, each with its tender.',
      input: { limit: limitInput, cursor: cursorInput },
      output: pageOutput(Bookmark),
      annotations: READS,
    },
    async (args, { client }) => {
      const offset = offsetOf(args.cursor, 'bookmarks', {});
      const page = pageOf(await client.bookmarks.list({ limit: args.limit, offset }), 'bookmarks', {});
      return {
        text: [
          pageLine('bookmarks', offset, page),
          ...page.items.map((bookmark) => tenderLine(bookmark.tender)),
        ].join('\n'),
        data: page,
      };
    },
  );

  addTool(
    server,
    context,
    'add_bookmark',
    {
      title: 'Bookmark a tender',
      description:
        'Bookmark a tender for the key’s owner, to follow it. Bookmarking one already bookmarked changes nothing, so it is safe to repeat.',
      input: { tenderId: z.string().min(1).max(300).describe('The tender’s id, from search_tenders.') },
      output: { bookmark: Bookmark },
      annotations: ADDS,
    },
    async ({ tenderId }, { client }) => {
      const bookmark = await client.bookmarks.add(tenderId);
      return { text: `Bookmarked ${tenderLine(bookmark.tender).slice(2)}`, data: { bookmark } };
    },
  );

  addTool(
    server,
    context,
    'remove_bookmark',
    {
      title: 'Remove a bookmark',
      description:
        'Remove the key owner’s bookmark of a tender. Removing one that is not there changes nothing, so it is safe to repeat.',
      input: { tenderId: z.string().min(1).max(300).describe('The bookmarked tender’s id.') },
      output: { tenderId: z.string(), bookmarked: z.literal(false) },
      annotations: OVERWRITES,
    },
    async ({ tenderId }, { client }) => {
      await client.bookmarks.remove(tenderId);
      return {
        text: `Tender ${tenderId} is not bookmarked any more.`,
        data: { tenderId, bookmarked: false as const },
      };
    },
  );

  addTool(
    server,
    context,
    'list_saved_searches',
    {
      title: 'List saved searches',
      description:
        'List the organisation’s saved tender searches (their names and stored filters), paged; the service lists the first 100. Run one with run_saved_search.',
      input: { limit: limitInput, cursor: cursorInput },
      output: pageOutput(SavedSearch),
      annotations: READS,
    },
    async (args, { client }) => {
      const offset = offsetOf(args.cursor, 'saved-searches', {});
      const answer = await client.savedSearches.list({ limit: args.limit, offset });
      // This list pages by nextOffset (the service stops it at its cap of 100).
      const page = {
        items: answer.data,
        total: answer.pagination.total,
        nextCursor:
          answer.nextOffset === null || answer.data.length === 0
            ? null
            : encodeCursor(answer.nextOffset, 'saved-searches', {}),
      };
      return {
        text: [
          pageLine('saved searches', offset, page),
          ...page.items.map((search) => `- ${search.id}: ${search.name} ${JSON.stringify(search.query)}`),
        ].join('\n'),
        data: page,
      };
    },
  );

  addTool(
    server,
    context,
    'get_saved_search',
    {
      title: 'Read a saved search',
      description:
        'Read one of the organisation’s saved searches by its id: its name and the filters it stores.',
      input: { id: z.string().min(1).max(300).describe('The saved search’s id, from list_saved_searches.') },
      output: { savedSearch: SavedSearch },
      annotations: READS,
    },
    async ({ id }, { client }) => {
      const savedSearch = await client.savedSearches.get(id);
      return {
        text: `${savedSearch.id}: ${savedSearch.name} ${JSON.stringify(savedSearch.query)}`,
        data: { savedSearch },
      };
    },
  );

  addTool(
    server,
    context,
    'run_saved_search',
    {
      title: 'Run a saved search',
      description:
        'Run one of the organisation’s saved searches: the tenders its stored filters find now, newest first, paged. Use it when someone names a saved search ("what is new in our Facilities search?").',
      input: {
        id: z.string().min(1).max(300).describe('The saved search’s id, from list_saved_searches.'),
        limit: limitInput.describe(
          'How many tenders on this page, 1 to 100 (the saved search’s own, or 20, when left out).',
        ),
        cursor: cursorInput,
      },
      output: { savedSearch: SavedSearch, ...pageOutput(Tender) },
      annotations: READS,
    },
    async (args, { client }) => {
      const savedSearch = await client.savedSearches.get(args.id);
      const { limit: savedLimit, offset: _offset, ...filters } = savedSearch.query;
      const list = `saved-search:${savedSearch.id}`;
      const offset = offsetOf(args.cursor, list, filters);
      const limit = args.limit ?? (typeof savedLimit === 'number' ? savedLimit : undefined);
      if (Object.values(filters).some((value) => value !== null && typeof value === 'object'))
        throw new ToolRefusal(
          `The saved search ${savedSearch.id} stores filters this server cannot send as a search (${JSON.stringify(savedSearch.query)}). Use search_tenders with those filters instead.`,
        );
      const answer = await client.tenders.search({ ...filters, limit, offset });
      const page = pageOf(answer, list, filters);
      return {
        text: [
          `Saved search “${savedSearch.name}”: ${pageLine('tenders', offset, page)}`,
          ...page.items.map(tenderLine),
          // The rule its value bounds were compared by, as search_tenders says it.
          ...(answer.valueRule ? [`Value bounds: ${answer.valueRule.summary}`] : []),
        ].join('\n'),
        data: { savedSearch, ...page },
      };
    },
  );

  const entityInput = {
    entityType: z
      .enum(ENTITY_TYPES)
      .describe('What the thread is on: a tender, buyer, supplier or framework.'),
    entityId: z.string().min(1).max(200).describe('The id of that tender, buyer, supplier or framework.'),
  };

  addTool(
    server,
    context,
    'list_comments',
    {
      title: 'List comments',
      description:
        'Read the organisation’s comment thread on a tender, buyer, supplier or framework, oldest first, paged (deleted comments stay, with body null). Use it for "what did we say about…".',
      input: { ...entityInput, limit: limitInput, cursor: cursorInput },
      output: pageOutput(Comment),
      annotations: READS,
    },
    async (args, { client }) => {
      return listPage('comments', args, (query) => client.comments.list(query), commentLine);
    },
  );

  addTool(
    server,
    context,
    'post_comment',
    {
      title: 'Post a comment',
      description: `Post a comment (or, with parentId, a reply) in the organisation’s thread on a tender, buyer, supplier or framework; up to ${COMMENT_MAX_CODE_POINTS} characters. Colleagues who bookmarked a tender may be notified. Retrying the same call posts it once (see idempotencyKey). Viewers cannot post.`,
      input: {
        ...entityInput,
        body: z.string().min(1).max(COMMENT_MAX_CODE_POINTS).describe('The comment’s text.'),
        parentId: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe('The id of a comment in the same thread to reply to.'),
        idempotencyKey: idempotencyKeyInput,
      },
      output: { comment: Comment },
      annotations: ADDS,
    },
    async (args, { client, callerKey, creationKeys }) => {
      const { idempotencyKey, ...comment } = args;
      const posted = await creationKeys.create(
        callerKey,
        'post_comment',
        comment,
        idempotencyKey,
        (key) => client.comments.create(comment, { idempotencyKey: key }),
        (made) => made.deletedAt !== null,
      );
      // The model's own key names a comment made before and deleted since: said, not "posted".
      if (posted.deletedAt !== null)
        return {
          text: `That idempotencyKey already made comment ${posted.id}, deleted since ${posted.deletedAt}: nothing was posted. To post it again, make a new UUID for idempotencyKey.`,
          data: { comment: posted },
        };
      return {
        text: `Posted comment ${posted.id} on ${posted.entityType} ${posted.entityId}.`,
        data: { comment: posted },
      };
    },
  );

  addTool(
    server,
    context,
    'delete_comment',
    {
      title: 'Delete a comment',
      description:
        'Delete a comment: its text is removed and the entry stays in the thread as deleted. Only its author, or an owner or admin of the organisation, may. Deleting one already deleted changes nothing.',
      input: { id: z.string().min(1).max(300).describe('The comment’s id, from list_comments.') },
      output: { id: z.string(), deleted: z.literal(true) },
      annotations: OVERWRITES,
    },
    async ({ id }, { client }) => {
      await client.comments.delete(id);
      return { text: `Comment ${id} is deleted.`, data: { id, deleted: true as const } };
    },
  );
}
