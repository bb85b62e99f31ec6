import { parseArgs } from 'node:util';
import { integerOption, UsageError } from './options.ts';

export const USAGE = `Usage: tenderbot <command>

  start [--data ./data] [--port 3030] [--service-port 4010] [--bot-port 3000] [--mcp-port 4020] [--demo N]
        [--real-data [--ocds ../shared/data/ocds]]
      With Slack credentials in the environment, the Slack app; without, the local workbench:
      the service with demo data, a fake Slack with a web page, and the app between them.
      --real-data serves the real OCDS files of --ocds instead, in a database of their own
      (./data/real unless --data is given), imported once.

  bot
      Run the Slack app, configured by the environment (and .env): see README.md.

  mcp [--http [--port 4020] [--host 127.0.0.1] [--allowed-origin URL]... [--allowed-host NAME]... [--rate 50]]
      The MCP server for assistants (Claude, VS Code, Cursor): see docs/mcp.md. On stdio with the
      key from PROCUREMENT_API_KEY; with --http at /mcp, each caller sending their own key as a
      bearer token. PROCUREMENT_API_URL is the service (default http://127.0.0.1:4010).

  openapi
      Print the service's OpenAPI 3.1 document as JSON (tenderbot openapi > openapi.json): the
      same document the service serves at /v1/openapi.json, made without starting it.

  sandbox serve [--port 4010] [--host 127.0.0.1] [--db FILE|:memory:] [--fixture FILE] [--demo N]
                [--import FILE...] [--log-level LEVEL] [--count-cache N] [--search-thread on|off]
      Run the local Procurement Intelligence Service. An empty database is filled with demo data
      (N tenders, default 5000) and a demo organisation whose keys are printed. Word searches are
      walked in a thread of their own from 50,000 tenders (--search-thread says otherwise).
  sandbox import FILE... [--db FILE]
      Import OCDS 1.1 files (release or record packages, JSON Lines; plain or gzipped).
  sandbox key create --db FILE --org ID --user ID --scopes a,b [--expires DATE] [--name NAME] [--rate N]
      Create an API key; it is printed once, alone on the last line.
`;

/** Runs the command line and returns the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [group, command, ...rest] = argv;
  whenOutputCloses(isServer(argv) ? 'go on' : 'end');
  // Asked for: the usage on standard output, and done (not a mistake).
  if (argv.length === 1 && (group === 'help' || group === '--help' || group === '-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    if (group === 'start') {
      const { runStart } = await import('./start.ts');
      return await runStart(parse(argv.slice(1), START_OPTIONS));
    }
    if (group === 'openapi') {
      if (command) throw new UsageError(`unexpected argument: ${command}`);
      const { runOpenApi } = await import('./openapi.ts');
      return await runOpenApi();
    }
    if (group === 'mcp') {
      const { runMcp } = await import('../mcp/command.ts');
      const args = parse(argv.slice(1), MCP_OPTIONS);
      if (args.positionals.length > 0) throw new UsageError(`unexpected argument: ${args.positionals[0]}`);
      return await runMcp(args, (name, fallback, min) =>
        integerOption(name, args.values[name], fallback, min),
      );
    }
    if (group === 'bot') {
      const { runBot } = await import('./bot.ts');
      return await runBot();
    }
    if (group !== 'sandbox' || !command)
      throw new UsageError(group ? `unknown command: ${argv.join(' ')}` : 'no command given');
    switch (command) {
      // Options are read first: a mistyped one is told without loading the service.
      case 'serve': {
        const args = parse(rest, SERVE_OPTIONS);
        const { runSandboxServe } = await import('./sandbox-serve.ts');
        return await runSandboxServe(args);
      }
      case 'import': {
        const args = parse(rest, IMPORT_OPTIONS);
        const { runSandboxImport } = await import('./sandbox-import.ts');
        return await runSandboxImport(args);
      }
      case 'key': {
        if (rest[0] !== 'create')
          throw new UsageError(`unknown command: sandbox key ${rest[0] ?? ''}`.trim());
        const args = parse(rest.slice(1), KEY_OPTIONS);
        const { runSandboxKeyCreate } = await import('./sandbox-key-create.ts');
        return await runSandboxKeyCreate(args);
      }
      default:
        throw new UsageError(`unknown command: sandbox ${command}`);
    }
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`tenderbot: ${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    process.stderr.write(`tenderbot: ${(error as Error).message}\n`);
    return 1;
  }
}

const SERVE_OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  db: { type: 'string' },
  fixture: { type: 'string' },
  demo: { type: 'string' },
  import: { type: 'string', multiple: true },
  'log-level': { type: 'string' },
  'count-cache': { type: 'string' },
  'search-thread': { type: 'string' },
} as const;

const MCP_OPTIONS = {
  http: { type: 'boolean' },
  port: { type: 'string' },
  host: { type: 'string' },
  'allowed-origin': { type: 'string', multiple: true },
  'allowed-host': { type: 'string', multiple: true },
  rate: { type: 'string' },
} as const;

const IMPORT_OPTIONS = { db: { type: 'string' } } as const;

const START_OPTIONS = {
  data: { type: 'string' },
  port: { type: 'string' },
  'service-port': { type: 'string' },
  'bot-port': { type: 'string' },
  'mcp-port': { type: 'string' },
  demo: { type: 'string' },
  'real-data': { type: 'boolean' },
  ocds: { type: 'string' },
  'many-workspaces': { type: 'boolean' },
} as const;

const KEY_OPTIONS = {
  db: { type: 'string' },
  org: { type: 'string' },
  user: { type: 'string' },
  scopes: { type: 'string' },
  expires: { type: 'string' },
  name: { type: 'string' },
  rate: { type: 'string' },
} as const;

type OptionSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

function parse<T extends OptionSpec>(args: string[], options: T) {
  return parseArgs({ args, options, allowPositionals: true, strict: true });
}

/** Commands that serve until stopped: their output is a start-up line and logs. */
function isServer(argv: string[]): boolean {
  const [group, command] = argv;
  if (group === 'start' || group === 'bot') return true;
  if (group === 'mcp') return argv.includes('--http');
  return group === 'sandbox' && command === 'serve';
}

let watchingOutput = false;

/**
 * A reader that has gone (`tenderbot openapi | head`) closes the pipe, and the next write fails
 * with EPIPE, an error nothing handled: the process crashed with a stack trace. A command that
 * prints and ends now ends there, quietly, with 141, the status of a Unix tool stopped by a closed
 * pipe (not 0: `sandbox key create` whose key was never shown has not done its job). A server
 * goes on serving without its output (logs, its start-up line); so does anything on standard
 * error. Any other failure of the output is still thrown.
 */
function whenOutputCloses(then: 'end' | 'go on'): void {
  if (watchingOutput) return;
  watchingOutput = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    if (then === 'end') process.exit(CLOSED_PIPE_STATUS);
  });
  process.stderr.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

/** 128 + SIGPIPE (13). */
export const CLOSED_PIPE_STATUS = 141;
