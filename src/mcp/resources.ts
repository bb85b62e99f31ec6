import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { NotFoundError } from '../client/errors.ts';
import type { ProcurementClient } from '../client/procurement-client.ts';
import { ID_MAX } from '../contract/schemas.ts';
import { sentenceFor } from './failures.ts';
import { type ToolContext, UNEXPECTED_FAILURE } from './tool-kit.ts';

/** MCP's code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

/**
 * The id of a resource URI (`tender://{id}`), percent-decoded; a refusal with a sentence for
 * one that is not well-formed, empty or longer than the service takes (ID_MAX), before the
 * service is asked.
 */
function resourceIdOf(scheme: string, raw: unknown): string {
  const encoded = Array.isArray(raw) ? raw.join(',') : String(raw ?? '');
  // Even encoded, an id is at most 3 characters a byte of UTF-8 (4 bytes a character).
  if (encoded.length > ID_MAX * 12)
    throw new McpError(
      ErrorCode.InvalidParams,
      `The id in ${scheme}://{id} may be at most ${ID_MAX} characters; this one is far longer.`,
    );
  let id: string;
  try {
    id = decodeURIComponent(encoded);
  } catch {
    throw new McpError(
      ErrorCode.InvalidParams,
      `The resource URI is not well-formed: the id in ${scheme}://{id} has a broken %-escape. Percent-encode the id as UTF-8 (encodeURIComponent).`,
    );
  }
  if (id.length === 0)
    throw new McpError(ErrorCode.InvalidParams, `The id in ${scheme}://{id} is empty: name a ${scheme}.`);
  if (id.length > ID_MAX)
    throw new McpError(
      ErrorCode.InvalidParams,
      `The id in ${scheme}://{id} may be at most ${ID_MAX} characters; this one has ${id.length}.`,
    );
  return id;
}

const RESOURCES: {
  name: string;
  scheme: string;
  title: string;
  description: string;
  read: (client: ProcurementClient, id: string) => Promise<unknown>;
  /** The ones a client may offer to attach; tenders and buyers are too many to list. */
  list?: (client: ProcurementClient) => Promise<{ uri: string; name: string }[]>;
}[] = [
  {
    name: 'tender',
    scheme: 'tender',
    title: 'Tender',
    description: 'A public tender in full (tender://{id}, the id from search_tenders), as JSON.',
    read: (client, id) => client.tenders.get(id),
  },
  {
    name: 'buyer',
    scheme: 'buyer',
    title: 'Buyer',
    description: 'A buyer with up to 100 of its notices (buyer://{id}, a UUID from list_buyers), as JSON.',
    read: (client, id) => client.buyers.get(id),
  },
  {
    name: 'bid',
    scheme: 'bid',
    title: 'Bid',
    description: 'A bid with its stages (bid://{id}, from list_bids), as the key may read it, as JSON.',
    read: (client, id) => client.pipelines.get(id),
    list: async (client) =>
      (await client.pipelines.list({ limit: 100 })).data.map((bid) => ({
        uri: `bid://${encodeURIComponent(bid.id)}`,
        name: bid.name,
      })),
  },
];

/**
 * Tenders, buyers and bids as read-only resources a client can attach to a conversation
 * (`tender://{id}`, `buyer://{id}`, `bid://{id}`), read with the caller's key like the tools.
 */
export function addResources(server: McpServer, context: ToolContext): void {
  for (const resource of RESOURCES) {
    server.registerResource(
      resource.name,
      new ResourceTemplate(`${resource.scheme}://{id}`, {
        list: resource.list && listing(resource.list, context),
      }),
      { title: resource.title, description: resource.description, mimeType: 'application/json' },
      async (uri, variables) => {
        const id = resourceIdOf(resource.scheme, variables.id);
        try {
          const record = await resource.read(context.client, id);
          return {
            contents: [
              { uri: uri.href, mimeType: 'application/json', text: JSON.stringify(record, null, 2) },
            ],
          };
        } catch (error) {
          const sentence = sentenceFor(error);
          if (sentence === null)
            context.logger.error(
              { resource: resource.name, err: error },
              'resource read failed unexpectedly',
            );
          const code = error instanceof NotFoundError ? RESOURCE_NOT_FOUND : ErrorCode.InvalidRequest;
          throw new McpError(code, sentence ?? UNEXPECTED_FAILURE);
        }
      },
    );
  }
}

/**
 * A template's listing: the key's own records to attach. A key that may not read them lists
 * none (resources/list answers for every template at once, so one refusal must not fail it).
 */
function listing(
  list: (client: ProcurementClient) => Promise<{ uri: string; name: string }[]>,
  context: ToolContext,
) {
  return async () => {
    try {
      return {
        resources: (await list(context.client)).map((entry) => ({ ...entry, mimeType: 'application/json' })),
      };
    } catch (error) {
      if (sentenceFor(error) === null)
        context.logger.error({ err: error }, 'resource listing failed unexpectedly');
      return { resources: [] };
    }
  };
}
