import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type IConfiguration, type ICruiseResult } from 'dependency-cruiser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The house's rules (.dependency-cruiser.cjs) refuse what they say they refuse: each rule is run
 * over a small tree with one planted breach of it (and, beside it, the nearest thing it allows),
 * laid out as src/ is. `npm run lint:deps` runs the same rules over the real src/ in `npm test`.
 */
const require = createRequire(import.meta.url);
const config = require('../../.dependency-cruiser.cjs') as IConfiguration;

let root: string;

function plant(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

const importing = (...specifiers: string[]) =>
  `${specifiers.map((specifier, index) => `import * as m${index} from '${specifier}';`).join('\n')}\nexport const used = [${specifiers.map((_, index) => `m${index}`).join(', ')}];\n`;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'tenderbot-house-rules-'));
  plant({
    'tsconfig.json': JSON.stringify({
      compilerOptions: {
        allowImportingTsExtensions: true,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        noEmit: true,
      },
    }),
    'package.json': JSON.stringify({ name: 'planted', type: 'module' }),
    ...Object.fromEntries(
      ['undici', 'pg-boss', 'kysely', '@slack/bolt'].flatMap((name) => [
        [`node_modules/${name}/package.json`, JSON.stringify({ name, type: 'module', main: 'index.js' })],
        [`node_modules/${name}/index.js`, 'export const x = 1;\n'],
      ]),
    ),
    // no-circular
    'src/app/adapters/left.ts': importing('./right.ts'),
    'src/app/adapters/right.ts': importing('./left.ts'),
    // features-keep-to-themselves: another feature's internals refused, its index.ts allowed
    'src/app/features/bids/handlers/start.ts': importing(
      '../../tenders/handlers/search.ts',
      '../../tenders/index.ts',
    ),
    'src/app/features/tenders/handlers/search.ts': 'export const search = 1;\n',
    'src/app/features/tenders/index.ts': 'export const register = 1;\n',
    // shared-imports-no-feature
    'src/app/shared/blocks.ts': importing('../features/tenders/index.ts'),
    // views-are-pure: storage, the client and Bolt refused; shared views allowed
    'src/app/features/bids/views/card.ts': importing(
      '../../../storage/bot-store.ts',
      '../../../../client/procurement-client.ts',
      '@slack/bolt',
      '../../../shared/views/primitives.ts',
    ),
    'src/app/shared/views/primitives.ts': 'export const section = 1;\n',
    'src/app/storage/bot-store.ts': 'export const store = 1;\n',
    'src/client/procurement-client.ts': 'export const client = 1;\n',
    // only-cli-wires-parts: the app opening its store, the service's app, refused; the CLI allowed
    'src/app/receiver/wiring.ts': importing('../storage/open-bot-store.ts', '../../service/http/app.ts'),
    'src/app/storage/open-bot-store.ts': 'export const open = 1;\n',
    'src/service/http/app.ts': 'export const app = 1;\n',
    'src/cli/start.ts': importing(
      '../app/storage/open-bot-store.ts',
      '../service/http/app.ts',
      '../mcp/server.ts',
    ),
    'src/mcp/server.ts': 'export const server = 1;\n',
    'src/mcp/http.ts': importing('./server.ts'),
    // service-stands-alone
    'src/service/store/reader.ts': importing('../../client/procurement-client.ts'),
    // service-reached-by-http-only (and client-needs-only-the-contract)
    'src/client/resources/tenders.ts': importing(
      '../../service/store/reader.ts',
      '../../app/storage/bot-store.ts',
    ),
    // contract-depends-on-nothing
    'src/contract/schemas.ts': importing('../client/procurement-client.ts'),
    // app-and-mcp-apart
    'src/mcp/tools.ts': importing('../app/storage/bot-store.ts'),
    // fake-slack-knows-no-app
    'src/fake-slack/web-api.ts': importing('../app/storage/bot-store.ts'),
    // undici-only-in-adapters (allowed in adapters), database-only-in-storage
    'src/app/features/tenders/handlers/fetch.ts': importing('undici', 'kysely'),
    'src/app/adapters/http.ts': importing('undici'),
    'src/app/storage/kysely-store.ts': importing('kysely'),
  });
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

async function violations(): Promise<{ rule: string; from: string; to: string }[]> {
  const previous = process.cwd();
  process.chdir(root);
  try {
    const { forbidden, options } = config;
    const answer = await cruise(['src'], {
      ...options,
      validate: true,
      ruleSet: { forbidden },
      tsConfig: { fileName: 'tsconfig.json' },
    } as never);
    const result = answer.output as ICruiseResult;
    return result.summary.violations.map((violation) => ({
      rule: violation.rule.name,
      from: violation.from,
      to: violation.to,
    }));
  } finally {
    process.chdir(previous);
  }
}

describe('the house rules', () => {
  it('refuse each planted breach, and only those', async () => {
    const found = await violations();
    const seen = (rule: string, from: string, to: string) =>
      found.some(
        (violation) => violation.rule === rule && violation.from === from && violation.to.startsWith(to),
      );
    const expected: [string, string, string][] = [
      ['no-circular', 'src/app/adapters/left.ts', 'src/app/adapters/right.ts'],
      [
        'features-keep-to-themselves',
        'src/app/features/bids/handlers/start.ts',
        'src/app/features/tenders/handlers/search.ts',
      ],
      ['shared-imports-no-feature', 'src/app/shared/blocks.ts', 'src/app/features/tenders/index.ts'],
      ['views-are-pure', 'src/app/features/bids/views/card.ts', 'src/app/storage/bot-store.ts'],
      ['views-are-pure', 'src/app/features/bids/views/card.ts', 'src/client/procurement-client.ts'],
      ['views-are-pure', 'src/app/features/bids/views/card.ts', 'node_modules/@slack/bolt/'],
      ['only-cli-wires-parts', 'src/app/receiver/wiring.ts', 'src/app/storage/open-bot-store.ts'],
      ['only-cli-wires-parts', 'src/app/receiver/wiring.ts', 'src/service/http/app.ts'],
      ['service-stands-alone', 'src/service/store/reader.ts', 'src/client/procurement-client.ts'],
      ['service-reached-by-http-only', 'src/client/resources/tenders.ts', 'src/service/store/reader.ts'],
      ['client-needs-only-the-contract', 'src/client/resources/tenders.ts', 'src/app/storage/bot-store.ts'],
      ['contract-depends-on-nothing', 'src/contract/schemas.ts', 'src/client/procurement-client.ts'],
      ['app-and-mcp-apart', 'src/mcp/tools.ts', 'src/app/storage/bot-store.ts'],
      ['fake-slack-knows-no-app', 'src/fake-slack/web-api.ts', 'src/app/storage/bot-store.ts'],
      ['undici-only-in-adapters', 'src/app/features/tenders/handlers/fetch.ts', 'node_modules/undici/'],
      ['database-only-in-storage', 'src/app/features/tenders/handlers/fetch.ts', 'node_modules/kysely/'],
    ];
    for (const [rule, from, to] of expected)
      expect(seen(rule, from, to), `${rule}: ${from} → ${to}`).toBe(true);
    // Every rule of the configuration has a planted breach above.
    expect(new Set(expected.map(([rule]) => rule))).toEqual(
      new Set(config.forbidden?.map((rule) => rule.name)),
    );
    // What the rules allow is not refused: a feature's index.ts, shared views, the CLI, undici in adapters.
    const allowed: [string, string][] = [
      ['src/app/features/bids/handlers/start.ts', 'src/app/features/tenders/index.ts'],
      ['src/app/features/bids/views/card.ts', 'src/app/shared/views/primitives.ts'],
      ['src/cli/start.ts', 'src/app/storage/open-bot-store.ts'],
      ['src/cli/start.ts', 'src/mcp/server.ts'],
      ['src/mcp/http.ts', 'src/mcp/server.ts'],
      ['src/app/adapters/http.ts', 'node_modules/undici/'],
      ['src/app/storage/kysely-store.ts', 'node_modules/kysely/'],
    ];
    for (const [from, to] of allowed) {
      expect(
        found.filter((violation) => violation.from === from && violation.to.startsWith(to)),
        `${from} → ${to}`,
      ).toEqual([]);
    }
    expect(found.length).toBe(expected.length + 1); // the circle is reported from both of its files
  });
});
