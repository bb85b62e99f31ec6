import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { addResources } from './resources.ts';
import type { ToolContext } from './tool-kit.ts';
import { addBidTools } from './tools-bids.ts';
import { addOrganisationTools } from './tools-organisation.ts';
import { addPublicRecordTools } from './tools-public.ts';

export const MCP_SERVER_NAME = 'tenderbot';
export const MCP_SERVER_VERSION = '0.1.0';

const INSTRUCTIONS = `Tenderbot's tools read and work on the Procurement Intelligence Service with the caller's own API key: public tenders, buyers, suppliers and frameworks; the key owner's bookmarks; the organisation's saved searches, comments and bids (bid pipelines). The key's scopes and the person's role decide what is allowed: a refusal comes back as a tool error with the service's explanation, to pass on as it is. Lists are paged: pass nextCursor back as cursor. For a new comment or bid, make one UUID idempotencyKey and reuse it if you retry that call.`;

/**
 * The MCP server over the typed client: one tool per capability of the service, and tenders,
 * buyers and bids as resources. Every call goes through `context.client`, with the caller's key,
 * so the service's scopes and roles decide what each call may do, never this server.
 */
export function createTenderbotMcpServer(context: ToolContext): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION, title: 'Tenderbot (public procurement)' },
    // Bounds what one call's arguments may hold (the longest, a bid with 50 stages, is far less).
    { instructions: INSTRUCTIONS, maxToolInputElements: 2000 },
  );
  addPublicRecordTools(server, context);
  addOrganisationTools(server, context);
  addBidTools(server, context);
  addResources(server, context);
  return server;
}
