import type { DependencyRule } from './import-checker.ts';

/** What doing I/O takes: the network, files, processes, a database, Slack's own clients. */
const IO_MODULES = [
  'undici',
  'fs',
  'net',
  'http',
  'https',
  'http2',
  'dgram',
  'child_process',
  'better-sqlite3',
  'pg',
  'pg-boss',
  'kysely',
  '@slack/bolt',
  '@slack/web-api',
];

/**
 * The intended dependencies between the parts of Tenderbot (README "Three parts in one package").
 * Each rule is checked by dependencies.test.ts over every file of src/.
 */
export const DEPENDENCY_RULES: readonly DependencyRule[] = [
  {
    rule: 'The Slack app reaches the service only through the client',
    files: ['src/app/'],
    mayNotImport: ['src/service/'],
  },
  {
    rule: 'The Slack app speaks HTTP only in src/app/adapters, never with undici elsewhere',
    files: ['src/app/'],
    except: ['src/app/adapters/'],
    mayNotImport: ['undici'],
  },
  {
    rule: 'The Slack app reaches its database only in src/app/storage (and pg-boss only in the job queue)',
    files: ['src/app/'],
    except: ['src/app/storage/', 'src/app/subscriptions/pg-boss-queue.ts'],
    mayNotImport: ['better-sqlite3', 'pg', 'kysely', 'src/shared/sqlite.ts'],
  },
  {
    rule: 'Only the job queue adapter speaks to pg-boss',
    files: ['src/app/'],
    except: ['src/app/subscriptions/pg-boss-queue.ts'],
    mayNotImport: ['pg-boss'],
  },
  {
    rule: 'Views (src/app/blocks) know nothing of the client, the bot’s storage or its adapters',
    files: ['src/app/blocks/'],
    mayNotImport: ['src/client/', 'src/service/', 'src/app/storage/', 'src/app/adapters/'],
  },
  {
    rule: 'Views (src/app/blocks) do no I/O: nothing they run reaches the network, files or a database',
    files: ['src/app/blocks/'],
    reach: 'runtime',
    mayNotImport: IO_MODULES,
  },
  {
    rule: 'The service never imports the client, the Slack app, the fake Slack or the workbench',
    files: ['src/service/'],
    mayNotImport: ['src/client/', 'src/app/', 'src/fake-slack/', 'src/workbench/', 'src/mcp/'],
  },
  {
    rule: 'The MCP server reaches the service only through the client, with the caller’s key: never the service’s store, the Slack app or the fakes',
    files: ['src/mcp/'],
    mayNotImport: ['src/service/', 'src/app/', 'src/fake-slack/', 'src/workbench/'],
  },
  {
    rule: 'The Slack app and the MCP server are separate parts: neither imports the other',
    files: ['src/app/'],
    mayNotImport: ['src/mcp/'],
  },
  {
    rule: 'The fake Slack never imports the Slack app: it plays Slack, and knows Tenderbot only by HTTP',
    files: ['src/fake-slack/'],
    mayNotImport: ['src/app/'],
  },
  {
    rule: 'The client depends on the contract alone: never the service, the Slack app, the fakes or the CLI',
    files: ['src/client/'],
    mayNotImport: ['src/service/', 'src/app/', 'src/fake-slack/', 'src/workbench/', 'src/cli/', 'src/mcp/'],
  },
  {
    rule: 'The contract depends on no part of Tenderbot: every part reads it',
    files: ['src/contract/'],
    mayNotImport: [
      'src/app/',
      'src/client/',
      'src/service/',
      'src/fake-slack/',
      'src/workbench/',
      'src/cli/',
    ],
  },
];
