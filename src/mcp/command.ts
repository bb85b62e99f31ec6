import { stopSignal } from '../shared/stop-signal.ts';
import { DEFAULT_MCP_PORT, DEFAULT_MCP_RATE_PER_SECOND, startMcpHttp } from './http.ts';
import { createMcpLogger } from './logger.ts';
import { McpSettingError, runMcpStdio, serviceUrlFrom } from './stdio.ts';

export interface McpArgs {
  values: {
    http?: boolean;
    port?: string;
    host?: string;
    'allowed-origin'?: string[];
    'allowed-host'?: string[];
    rate?: string;
  };
}

/**
 * `tenderbot mcp`: on stdio with the key from PROCUREMENT_API_KEY, or with `--http` at /mcp,
 * where each caller sends their own key as a bearer token. Bad settings are a sentence, exit 2.
 */
export async function runMcp(
  { values }: McpArgs,
  integer: (name: 'port' | 'rate', fallback: number, min?: number) => number,
): Promise<number> {
  try {
    if (!values.http) {
      if (values.port || values.host || values['allowed-origin'] || values['allowed-host'] || values.rate)
        throw new McpSettingError(
          '--port, --host, --allowed-origin, --allowed-host and --rate go with --http.',
        );
      return await runMcpStdio();
    }
    const stopped = stopSignal();
    const running = await startMcpHttp({
      serviceUrl: serviceUrlFrom(process.env),
      host: values.host,
      port: integer('port', DEFAULT_MCP_PORT),
      ratePerSecond: integer('rate', DEFAULT_MCP_RATE_PER_SECOND, 1),
      allowedOrigins: values['allowed-origin'],
      allowedHosts: values['allowed-host'],
      logger: createMcpLogger(process.env.LOG_LEVEL ?? 'info'),
    });
    process.stdout.write(
      `MCP server listening on ${running.url} (send your own service key: Authorization: Bearer pis_…)\n`,
    );
    await stopped;
    await running.close();
    return 0;
  } catch (error) {
    if (!(error instanceof McpSettingError)) throw error;
    process.stderr.write(`tenderbot mcp: ${error.message}\n`);
    return 2;
  }
}
