import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { ProcurementClient } from '../client/procurement-client.ts';
import type { CreationKeys } from './creation-keys.ts';
import { encodeCursor, offsetOf } from './cursor.ts';
import { sentenceFor } from './failures.ts';

/** What every tool works with: the caller's own client, and (for creations) who the caller is. */
export interface ToolContext {
  client: ProcurementClient;
  /** The caller's API key, only to tell one caller's creations from another's (never kept). */
  callerKey: string;
  creationKeys: CreationKeys;
  logger: Logger;
}

/** What a tool answers: a short text for people and models that read text, and the structured result. */
export interface ToolAnswer<T> {
  text: string;
  data: T;
}

export const UNEXPECTED_FAILURE =
  'Something went wrong inside the Tenderbot MCP server, so the call did not complete; nothing is known to have changed. Try again; if it keeps failing, tell the operator.';

// Every tool acts only on the Procurement Intelligence Service, for the key's own organisation:
// a closed, known system, so none is open-world.
export const READS: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
/** Adds something; the same call again adds nothing more (idempotency keys, or a set state). */
export const ADDS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
/** Overwrites or removes what was there; setting the same state again changes nothing more. */
export const OVERWRITES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};

/**
 * Registers one tool whose failures all come back as tool errors (isError) carrying the
 * sentence a person would read: the service's explanation and what to do, never a stack.
 */
export function addTool<Input extends z.ZodRawShape, Output extends z.ZodRawShape>(
  server: McpServer,
  context: ToolContext,
  name: string,
  spec: {
    title: string;
    description: string;
    input: Input;
    output: Output;
    annotations: ToolAnnotations;
  },
  run: (
    args: z.infer<z.ZodObject<Input>>,
    context: ToolContext,
  ) => Promise<ToolAnswer<z.infer<z.ZodObject<Output>>>>,
): void {
  const callback = async (args: z.infer<z.ZodObject<Input>>) => {
    try {
      const { text, data } = await run(args, context);
      return {
        content: [{ type: 'text' as const, text }],
        structuredContent: data as Record<string, unknown>,
      };
    } catch (error) {
      const sentence = sentenceFor(error);
      if (sentence === null) context.logger.error({ tool: name, err: error }, 'tool failed unexpectedly');
      return { isError: true, content: [{ type: 'text' as const, text: sentence ?? UNEXPECTED_FAILURE }] };
    }
  };
  server.registerTool(
    name,
    {
      title: spec.title,
      description: spec.description,
      // Strict: an argument by another name (`query` for `q`) is refused, naming it, not ignored.
      inputSchema: z.object(spec.input).strict(),
      outputSchema: spec.output,
      annotations: { title: spec.title, ...spec.annotations },
    },
    // The SDK's callback type is generic over its own zod compatibility types.
    callback as unknown as Parameters<McpServer['registerTool']>[2],
  );
}

// ---------------------------------------------------------------------------------------------
// Paging

export const limitInput = z
  .number()
  .int()
  .min(1)
  .max(100)
  .optional()
  .describe('How many items on this page, 1 to 100 (20 when left out).');
export const cursorInput = z
  .string()
  .max(2000)
  .nullable()
  .optional()
  .describe(
    'The nextCursor of the previous page, to read the next one; leave out for the first page. Keep the other arguments the same.',
  );

/** The structured result of a paged list. */
export function pageOutput<T extends z.ZodType>(item: T) {
  return {
    items: z.array(item),
    total: z.number().int().describe('How many items the whole list has.'),
    nextCursor: z
      .string()
      .nullable()
      .describe('Pass as cursor (with the same other arguments) for the next page; null on the last page.'),
  };
}

/** One page of the service's offset paging, as the tool's result with its next cursor. */
export function pageOf<T>(
  page: { data: T[]; pagination: { offset: number; total: number; hasMore: boolean } },
  list: string,
  filters: object,
): { items: T[]; total: number; nextCursor: string | null } {
  const more = page.pagination.hasMore && page.data.length > 0;
  return {
    items: page.data,
    total: page.pagination.total,
    nextCursor: more ? encodeCursor(page.pagination.offset + page.data.length, list, filters) : null,
  };
}

/** "Showing 21–40 of 134", with how to read on. */
export function pageLine(
  noun: string,
  offset: number,
  page: { items: unknown[]; total: number; nextCursor: string | null },
): string {
  if (page.items.length === 0)
    return offset === 0 ? `No ${noun} found.` : `No more ${noun} (all ${page.total} were listed).`;
  const range = `${offset + 1}–${offset + page.items.length}`;
  const next = page.nextCursor
    ? ' More: call again with cursor set to nextCursor.'
    : ' That is the last page.';
  return `${noun[0]?.toUpperCase()}${noun.slice(1)} ${range} of ${page.total}.${next}`;
}

/** Filters without the paging arguments: what a cursor is bound to. */
export function filtersOf<T extends { limit?: number; cursor?: string | null }>(
  args: T,
): Omit<T, 'limit' | 'cursor'> {
  const { limit: _limit, cursor: _cursor, ...filters } = args;
  return filters;
}

/**
 * One page of a list tool: the filters without the paging arguments, the offset the cursor holds
 * (refused if it belongs to another list or other filters), the service's page for it, and the
 * answer: "Tenders 21–40 of 134…" and a line per item.
 */
export async function listPage<Args extends { limit?: number; cursor?: string | null }, T>(
  list: string,
  args: Args,
  fetch: (query: Omit<Args, 'limit' | 'cursor'> & { limit?: number; offset: number }) => Promise<{
    data: T[];
    pagination: { offset: number; total: number; hasMore: boolean };
  }>,
  line: (item: T) => string,
): Promise<ToolAnswer<{ items: T[]; total: number; nextCursor: string | null }>> {
  const filters = filtersOf(args);
  const offset = offsetOf(args.cursor, list, filters);
  const page = pageOf(await fetch({ ...filters, limit: args.limit, offset }), list, filters);
  return { text: [pageLine(list, offset, page), ...page.items.map(line)].join('\n'), data: page };
}
