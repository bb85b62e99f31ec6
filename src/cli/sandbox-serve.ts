import { DEFAULT_DEMO_TENDERS, startSandbox } from '../service/sandbox.ts';
import { DEFAULT_COUNT_CACHE_SIZE } from '../service/store/count-cache.ts';
import { stopSignal } from '../shared/stop-signal.ts';
import { DEFAULT_SANDBOX_DB, integerOption, UsageError } from './options.ts';

interface ServeArgs {
  values: {
    port?: string;
    host?: string;
    db?: string;
    fixture?: string;
    demo?: string;
    import?: string[];
    'log-level'?: string;
    'count-cache'?: string;
    'search-thread'?: string;
  };
  positionals: string[];
}

/** `on` or `off` as true or false; absent: undefined (the default applies). */
function onOrOff(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'on' || value === 'off') return value === 'on';
  throw new UsageError(`--${name} takes on or off, not ${value}`);
}

/** `tenderbot sandbox serve`: runs until SIGINT or SIGTERM, then closes the database cleanly. */
export async function runSandboxServe({ values, positionals }: ServeArgs): Promise<number> {
  // `--import a.json b.json`: files after the first arrive as positionals.
  const imports = [...(values.import ?? []), ...positionals];
  const stopped = stopSignal();
  if (positionals.length > 0 && !values.import)
    throw new UsageError(`unexpected argument: ${positionals[0]}`);
  const sandbox = await startSandbox({
    db: values.db ?? DEFAULT_SANDBOX_DB,
    host: values.host ?? '127.0.0.1',
    port: integerOption('port', values.port, 4010),
    fixture: values.fixture,
    demo: integerOption('demo', values.demo, DEFAULT_DEMO_TENDERS, 1),
    imports,
    logLevel: values['log-level'] ?? 'warn',
    countCacheSize: integerOption('count-cache', values['count-cache'], DEFAULT_COUNT_CACHE_SIZE),
    searchThread: onOrOff('search-thread', values['search-thread']),
  });
  if (sandbox.demoKeys.length > 0) {
    process.stdout.write('Demo organisation "Demo Bids Ltd" (org-demo). Its API keys, shown once:\n');
    for (const key of sandbox.demoKeys) process.stdout.write(`  ${key.label.padEnd(24)} ${key.key}\n`);
  }
  process.stdout.write(`listening on ${sandbox.baseUrl}/v1\n`);
  process.stdout.write(`reference: ${sandbox.baseUrl}/docs\n`);
  await stopped;
  await sandbox.close();
  return 0;
}
