import pino, { type Logger } from 'pino';

/**
 * The MCP server's log: JSON lines on standard error (standard output is the protocol on stdio).
 * It never logs a key: nothing logs headers, and these paths are blanked should one slip in.
 */
export function createMcpLogger(level = 'info', destination: NodeJS.WritableStream = process.stderr): Logger {
  return pino(
    {
      level,
      base: { service: 'tenderbot-mcp' },
      redact: {
        paths: [
          'apiKey',
          '*.apiKey',
          'authorization',
          '*.authorization',
          'headers',
          '*.headers',
          'callerKey',
          '*.callerKey',
        ],
        censor: '[redacted]',
      },
    },
    destination as pino.DestinationStream,
  );
}
