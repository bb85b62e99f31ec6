/**
 * The house's import rules (docs/architecture.md), checked by dependency-cruiser in `npm test`
 * (`npm run lint:deps`). test/architecture/dependency-cruiser.test.ts plants a breach of each
 * rule and sees it refused.
 */
const DATABASE = '^node_modules/(better-sqlite3|pg|pg-boss|kysely)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circles anywhere in src: each part can be read, tested and moved on its own.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'features-keep-to-themselves',
      comment:
        "A feature never imports another feature's internals: shared needs go to src/app/shared, or through the other feature's index.ts.",
      severity: 'error',
      from: { path: '^src/app/features/([^/]+)/' },
      to: {
        path: '^src/app/features/[^/]+/',
        pathNot: ['^src/app/features/$1/', '^src/app/features/[^/]+/index[.]ts$'],
      },
    },
    {
      name: 'shared-imports-no-feature',
      comment: 'What features share imports no feature.',
      severity: 'error',
      from: { path: '^src/app/shared/' },
      to: { path: '^src/app/features/' },
    },
    {
      name: 'views-are-pure',
      comment:
        "Views (a feature's views/ and src/app/shared/views) are functions to Block Kit: no storage, client, service, Slack adapters, Bolt, undici or database.",
      severity: 'error',
      from: { path: '^src/app/(features/[^/]+/views|shared/views)/' },
      to: {
        path: [
          '^src/app/(storage|adapters|receiver|delivery)/',
          '^src/(client|service)/',
          '^node_modules/(@slack/bolt|@slack/web-api|undici)/',
          DATABASE,
        ],
      },
    },
    {
      name: 'only-cli-wires-parts',
      comment:
        'Parts are built and wired in src/cli alone (the composition root): the stores, the service, the fake Slack, the workbench and the MCP server are opened there, never by another part.',
      severity: 'error',
      // A part may use its own modules; in the Slack app, each folder its own.
      from: { path: '^src/(app/[^/]+|[^/]+)/', pathNot: ['^src/cli/'] },
      to: {
        pathNot: '^src/$1/',
        // Naming a part's type is not building it.
        dependencyTypesNot: ['type-only'],
        path: [
          '^src/app/storage/open-bot-store[.]ts$',
          '^src/app/bot-app[.]ts$',
          '^src/app/receiver/answer-workers[.]ts$',
          '^src/app/delivery/(scheduler|pg-boss-queue)[.]ts$',
          '^src/app/features/install/install-flow[.]ts$',
          '^src/service/(http/app|store/open-store)[.]ts$',
          '^src/fake-slack/fake-slack-server[.]ts$',
          '^src/workbench/workbench-server[.]ts$',
          '^src/mcp/(server|http-server)[.]ts$',
          '^src/cli/',
        ],
      },
    },
    {
      name: 'service-stands-alone',
      comment:
        'The service never imports the client, the Slack app, the MCP server, the fake Slack or the workbench.',
      severity: 'error',
      from: { path: '^src/service/' },
      to: { path: '^src/(client|app|mcp|fake-slack|workbench)/' },
    },
    {
      name: 'service-reached-by-http-only',
      comment:
        'The Slack app, the client and the MCP server reach the service only over HTTP, through the client.',
      severity: 'error',
      from: { path: '^src/(app|client|mcp)/' },
      to: { path: '^src/service/' },
    },
    {
      name: 'client-needs-only-the-contract',
      comment: 'The client depends on the contract alone.',
      severity: 'error',
      from: { path: '^src/client/' },
      to: { path: '^src/(app|mcp|fake-slack|workbench|cli)/' },
    },
    {
      name: 'contract-depends-on-nothing',
      comment: 'The contract depends on no part of Tenderbot: every part reads it.',
      severity: 'error',
      from: { path: '^src/contract/' },
      to: { path: '^src/(?!contract/)' },
    },
    {
      name: 'app-and-mcp-apart',
      comment: 'The Slack app and the MCP server are separate parts: neither imports the other.',
      severity: 'error',
      from: { path: '^src/(app|mcp)/' },
      to: { path: '^src/(app|mcp)/', pathNot: '^src/$1/' },
    },
    {
      name: 'fake-slack-knows-no-app',
      comment: 'The fake Slack plays Slack: it knows Tenderbot only by HTTP.',
      severity: 'error',
      from: { path: '^src/fake-slack/' },
      to: { path: '^src/(app|mcp|service|client)/' },
    },
    {
      name: 'undici-only-in-adapters',
      comment: 'The Slack app speaks HTTP only in src/app/adapters.',
      severity: 'error',
      from: { path: '^src/app/', pathNot: '^src/app/adapters/' },
      to: { path: '^node_modules/undici/' },
    },
    {
      name: 'database-only-in-storage',
      comment:
        'The Slack app reaches its database only in src/app/storage (and pg-boss only in the delivery queue).',
      severity: 'error',
      from: { path: '^src/app/', pathNot: ['^src/app/storage/', '^src/app/delivery/pg-boss-queue[.]ts$'] },
      to: { path: DATABASE },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.mjs', '.json'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
    exclude: { path: ['^src/workbench/public/'] },
  },
};
