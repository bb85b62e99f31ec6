import pino, { type Logger } from 'pino';

/**
 * Paths pino blanks out wherever they appear in a log object: keys, tokens, secrets and the
 * headers that carry them. A test runs the whole app and finds none of them in its output.
 */
export const REDACTED_PATHS = [
  'apiKey',
  '*.apiKey',
  'key',
  '*.key',
  'token',
  '*.token',
  'botToken',
  '*.botToken',
  'signingSecret',
  '*.signingSecret',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
  'req.headers.authorization',
  'config.headers.Authorization',
  '*.config.headers.Authorization',
  'values',
  '*.values',
];

/** JSON lines by default; pretty when standard output is a terminal. */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: 'tenderbot' },
  };
  if (!destination && process.stdout.isTTY) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true } } });
  }
  return destination ? pino(options, destination as pino.DestinationStream) : pino(options);
}
