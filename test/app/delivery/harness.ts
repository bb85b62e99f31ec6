import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { BotConfig } from '../../../src/app/config.ts';
import type { PassResult, SchedulerOptions } from '../../../src/app/delivery/scheduler.ts';
import { KeyCipher } from '../../../src/app/security/key-cipher.ts';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
import type { Subscription } from '../../../src/app/storage/subscription-store.ts';
import { type BotApp, composeBot } from '../../../src/cli/compose-bot.ts';
import { type FakeMessage, FakeSlack, type FakeUser } from '../../../src/fake-slack/fake-slack.ts';
import { importOcdsFiles } from '../../../src/service/import/ocds-importer.ts';
import { eventually } from '../../support/bot.ts';
import { KEYS } from '../../support/fixture.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

/**
 * Which database the copies share: a SQLite file (the default, with the deliveries table's leases)
 * or, with TENDERBOT_TEST_DATABASE=postgres, a new PostgreSQL database (deliveries handed out by
 * pg-boss). vitest.config.ts runs this directory's tests both ways.
 */
const TEST_DATABASE = process.env.TENDERBOT_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';

/** People in three time zones, and a guest. */
const USERS: FakeUser[] = [
  { id: 'U0ADMIN', name: 'ada', realName: 'Ada Admin', isAdmin: true, tz: 'Europe/London' },
  { id: 'U0MEMBER', name: 'max', realName: 'Max Member', tz: 'America/New_York' },
  { id: 'U0TOKYO', name: 'yui', realName: 'Yui Tokyo', tz: 'Asia/Tokyo' },
  { id: 'U0GUEST', name: 'gus', realName: 'Gus Guest', isRestricted: true, tz: 'Europe/London' },
];
const CHANNELS = [
  'C0BIDS',
  'C0GENERAL',
  'C0FEED',
  'C0TOKYO',
  'C0HOLD',
  'C0BURST',
  'C0ARCHIVE',
  'C0AWAY',
  'C0TURNS',
  'C0RETRY',
  'C0RENAMED',
];

/** A running copy of the app on the shared database, ticked by the test (no timer). */
export interface Instance {
  bot: BotApp;
  store: BotStore;
  url: string;
  stop(): Promise<void>;
}

/**
 * The local service, the fake Slack and copies of the real Bolt app, all on one clock the test
 * moves (`harness.now`); the app's scheduler runs only when the test calls `pass()`.
 */
export class Harness {
  now: number;
  sandbox!: TestSandbox;
  slack!: FakeSlack;
  private readonly databasePath: string;
  private postgres: TestDatabase | null = null;
  private readonly signingSecret = randomBytes(12).toString('hex');
  private readonly botToken = `xoxb-test-${randomBytes(8).toString('hex')}`;
  private readonly encryptionKey = randomBytes(32).toString('base64');
  private imported = 0;

  constructor(
    start: string,
    private readonly dir: string,
    /** History served as to a Marketplace app (no 15-a-call, one-a-minute limit): the fake's option. */
    private readonly marketplaceApp = false,
  ) {
    this.now = Date.parse(start);
    this.databasePath = join(dir, 'bot.db');
  }

  clock = (): Date => new Date(this.now);

  async start(): Promise<void> {
    if (TEST_DATABASE === 'postgres') this.postgres = await createTestDatabase('subscriptions');
    this.sandbox = await startTestSandbox({ clock: this.clock, dir: this.dir });
    this.slack = await new FakeSlack({
      signingSecret: this.signingSecret,
      botToken: this.botToken,
      users: USERS,
      channels: CHANNELS.map((id) => ({ id, name: id.slice(2).toLowerCase() })),
      clock: () => this.now,
      ...(this.marketplaceApp ? { marketplaceApp: true } : {}),
    }).start();
  }

  /** A copy of the app (its own HTTP port, the shared database); the first one receives Slack's requests. */
  async instance(
    owner: string,
    receives = true,
    scheduler: Partial<SchedulerOptions> = {},
  ): Promise<Instance> {
    const config = BotConfig.parse(this.environment());
    const store = openBotStore(config.DATABASE_URL);
    const bot = composeBot({
      config,
      store,
      logger: pino({ level: 'silent' }),
      clock: this.clock,
      scheduler: {
        pollMs: null,
        owner,
        leaseMs: 60_000,
        paceMs: 1000,
        settleAfterMs: 30_000,
        ...scheduler,
      },
    });
    // On PostgreSQL the copies must take their turns through pg-boss, not the table's leases.
    const expectedQueue = TEST_DATABASE === 'postgres' ? 'pg-boss' : 'lease-table';
    if (bot.scheduler.queue.kind !== expectedQueue)
      throw new Error(`the scheduler uses ${bot.scheduler.queue.kind}, not ${expectedQueue}`);
    const port = await bot.start();
    const url = `http://127.0.0.1:${port}/slack/events`;
    if (receives) this.slack.appUrl = url;
    return {
      bot,
      store,
      url,
      stop: async () => {
        await bot.stop();
        await store.close();
      },
    };
  }

  private passes = 0;

  /** Runs one pass of every instance given, at the same instant (which starts first alternates). */
  async pass(...instances: Instance[]): Promise<PassResult[]> {
    const order = this.passes++ % 2 === 0 ? instances : [...instances].reverse();
    return Promise.all(order.map((instance) => instance.bot.scheduler.runDue()));
  }

  /**
   * Moves the clock to `until`, running the instances' passes on the way: every `stepMs`, and
   * sooner when a paced channel can post again. `before(now)` runs before each pass.
   */
  async runUntil(
    until: number,
    instances: () => Instance[],
    stepMs = 5 * 60_000,
    before?: (now: number) => Promise<void>,
  ): Promise<void> {
    for (;;) {
      if (before) await before(this.now);
      const results = await this.pass(...instances());
      if (this.now >= until) return;
      const wakes = results
        .map((result) => result.nextWakeAt?.getTime())
        .filter((wake): wake is number => wake !== undefined && wake > this.now);
      const nextStep = (Math.floor(this.now / stepMs) + 1) * stepMs;
      this.now = Math.min(until, nextStep, ...wakes);
    }
  }

  /** Links `apiKey` as `userId`'s own key (as `/tender connect me` would, encrypted with the app's key). */
  async linkPersonalKey(store: BotStore, userId: string, apiKey: string): Promise<void> {
    await store.savePersonalKey({
      teamId: this.slack.teamId,
      userId,
      encryptedApiKey: new KeyCipher(this.encryptionKey).encrypt(apiKey),
      serviceUrl: this.sandbox.baseUrl,
      connectedAt: this.clock(),
    });
  }

  /** Types `/tender TEXT`; resolves with the next message that person sees in the channel. */
  async command(user: string, channel: string, text: string): Promise<FakeMessage> {
    const before = this.slack.messagesIn(channel, user).length;
    const answer = await this.slack.slashCommand(user, channel, '/tender', text);
    if (answer.status !== 200) throw new Error(`/tender ${text} answered ${answer.status}`);
    return eventually(
      () => this.slack.answerTo(answer, channel, user, before),
      `an answer to /tender ${text}`,
    );
  }

  /** Imports tenders published at `publishedAt` with these titles (as a new OCDS file would bring them). */
  async importTenders(titles: string[], publishedAt: Date, deadline?: Date): Promise<string[]> {
    const file = join(this.dir, `import-${++this.imported}.jsonl`);
    const ids = titles.map((_, index) => `ocds-sub-${this.imported}-${index + 1}`);
    writeFileSync(
      file,
      titles
        .map((title, index) =>
          JSON.stringify({
            ocid: ids[index],
            id: `r-${this.imported}-${index}`,
            date: publishedAt.toISOString(),
            tag: ['tender'],
            initiationType: 'tender',
            buyer: { id: 'b', name: 'Salford City Council' },
            parties: [{ id: 'b', name: 'Salford City Council', roles: ['buyer'] }],
            tender: {
              id: `T-${this.imported}-${index}`,
              title,
              status: 'active',
              ...(deadline ? { tenderPeriod: { endDate: deadline.toISOString() } } : {}),
            },
          }),
        )
        .join('\n'),
    );
    await importOcdsFiles(this.sandbox.db, [file]);
    return ids;
  }

  /** The app's posts for a subscription in a channel (everyone's messages carrying its delivery metadata). */
  postsOf(channel: string, subscriptionId: string): FakeMessage[] {
    return this.slack
      .messagesIn(channel)
      .filter(
        (message) =>
          message.ephemeralTo === null && message.metadata?.event_payload?.subscription_id === subscriptionId,
      );
  }

  async stop(): Promise<void> {
    await this.slack?.stop();
    await this.sandbox?.stop();
    await this.postgres?.drop();
  }

  /** The database every copy shares. */
  get databaseUrl(): string {
    return this.postgres ? this.postgres.url : `sqlite:${this.databasePath}`;
  }

  /** The app's environment, as every copy (in this process or a child) reads it. */
  private environment(): Record<string, string> {
    return {
      SLACK_BOT_TOKEN: this.botToken,
      SLACK_SIGNING_SECRET: this.signingSecret,
      SLACK_API_URL: this.slack.apiUrl,
      PROCUREMENT_API_URL: this.sandbox.baseUrl,
      PROCUREMENT_API_KEY: KEYS.carolMemberAcme,
      DATABASE_URL: this.databaseUrl,
      ENCRYPTION_KEY: this.encryptionKey,
      LOG_LEVEL: 'silent',
      PORT: '0',
    };
  }

  /**
   * The environment of a copy of the app in a process of its own (support/bot-child.ts): the
   * configuration `instance()` uses (same database file, fake Slack, service and key) and, as
   * TENDERBOT_CHILD_SCHEDULER, the same scheduler options with this owner.
   */
  childEnvironment(owner: string): Record<string, string> {
    return {
      ...this.environment(),
      TENDERBOT_CHILD_SCHEDULER: JSON.stringify({ ...INSTANCE_SCHEDULER, owner }),
      TENDERBOT_CHILD_NOW: String(this.now),
    };
  }
}

/** The scheduler options `instance()` gives every copy (no timer; lease, pace, settling delay). */
const INSTANCE_SCHEDULER = {
  pollMs: null,
  leaseMs: 60_000,
  paceMs: 1000,
  settleAfterMs: 30_000,
} as const;

/** Each (delivery, part) posted at most once: the duplicates found, as `delivery/part` keys. */
export function duplicates(messages: FakeMessage[]): string[] {
  const seen = new Map<string, number>();
  for (const message of messages) {
    const key = `${message.metadata?.event_payload?.delivery_id}/${message.metadata?.event_payload?.part}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return [...seen].filter(([, count]) => count > 1).map(([key]) => key);
}

/**
 * A daily 09:00 summary of Bob's bid in `channelId` (London time, made by the admin a minute
 * before the test's start unless `fields` say otherwise), as the delivery tests make them.
 */
export function pipelineSubscription(
  harness: Harness,
  fields: Pick<Subscription, 'id' | 'channelId' | 'nextRunAt'> & Partial<Subscription>,
): Subscription {
  return {
    teamId: harness.slack.teamId,
    kind: 'pipeline',
    target: JSON.stringify({ p: 'pl-bob', n: 'Bob’s bid' }),
    cadence: 'daily',
    localTime: '09:00',
    timeZone: 'Europe/London',
    createdBy: 'U0ADMIN',
    createdAt: new Date(harness.clock().getTime() - 60_000),
    pausedReason: null,
    cursor: null,
    skippedCount: 0,
    ...fields,
  };
}

/**
 * A pipeline summary subscription due at `nextRunAt` (now by default), made in `store` as a command
 * would make it; the faults and killed-process tests start from one.
 */
export async function dueSubscription(
  harness: Harness,
  store: BotStore,
  channelId: string,
  createdBy = 'U0ADMIN',
  nextRunAt = harness.clock(),
): Promise<Subscription> {
  const subscription = pipelineSubscription(harness, {
    id: `s-${randomUUID().slice(0, 6)}`,
    channelId,
    nextRunAt,
    target: JSON.stringify({ p: 'pl-bob', n: 'Bob’s hospital cleaning bid' }),
    timeZone: 'UTC',
    createdBy,
    createdAt: harness.clock(),
  });
  if (!(await store.createSubscription(subscription)))
    throw new Error(`subscription ${subscription.id} not made`);
  return subscription;
}
