import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ProcurementClient } from '../client/procurement-client.ts';
import { CreationKeys } from './creation-keys.ts';
import { createMcpLogger } from './logger.ts';
import { createTenderbotMcpServer } from './server.ts';

/** The local service `npm start` runs, when PROCUREMENT_API_URL is not set. */
export const DEFAULT_SERVICE_URL = 'http://127.0.0.1:4010';

/** A sentence for a missing or unusable setting, said before anything starts. */
export class McpSettingError extends Error {}

/** The service's base URL from PROCUREMENT_API_URL (without /v1), or a sentence. */
export function serviceUrlFrom(env: NodeJS.ProcessEnv): string {
  const text = env.PROCUREMENT_API_URL?.trim() || DEFAULT_SERVICE_URL;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new McpSettingError(
      `PROCUREMENT_API_URL must be the service's address, such as ${DEFAULT_SERVICE_URL}; it is not a web address.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new McpSettingError('PROCUREMENT_API_URL must start with http:// or https://.');
  // The client adds /v1 itself; an address copied with it still works.
  return url.href.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/**
 * `tenderbot mcp`: the MCP server on standard input and output, for one assistant on this
 * machine, with the key from PROCUREMENT_API_KEY. Resolves when the assistant closes the stream.
 */
export async function runMcpStdio(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const apiKey = env.PROCUREMENT_API_KEY?.trim();
  if (!apiKey)
    throw new McpSettingError(
      'PROCUREMENT_API_KEY is not set: give the MCP server your own Procurement Intelligence Service key (pis_…) in its environment.',
    );
  // Sent in an HTTP header: a space, a line break or a curly quote means it was not copied whole.
  if (!/^[\x21-\x7e]+$/.test(apiKey))
    throw new McpSettingError(
      'PROCUREMENT_API_KEY must be an API key (pis_…): letters, digits and punctuation, no spaces. Copy it again, whole.',
    );
  const logger = createMcpLogger(env.LOG_LEVEL ?? 'warn');
  const client = new ProcurementClient({ baseUrl: serviceUrlFrom(env), apiKey });
  const server = createTenderbotMcpServer({
    client,
    callerKey: apiKey,
    creationKeys: new CreationKeys(),
    logger,
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await server.connect(transport);
  await closed;
  await server.close();
  await client.close();
  return 0;
}
