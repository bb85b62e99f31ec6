import { type CompiledQuery, type Generated, type Kysely, type SqlBool, sql } from 'kysely';
import { migrateSqlite, type SqliteDatabase } from '../../shared/sqlite.ts';

/** The databases the bot's store runs on. */
export type DatabaseKind = 'sqlite' | 'postgres';

/**
 * The bot's tables as Kysely sees them. Instants the store compares are epoch milliseconds
 * (INTEGER on SQLite, bigint on PostgreSQL, read back as numbers on both); flags are 0 or 1.
 */
export interface BotTables {
  workspaces: {
    team_id: string;
    encrypted_api_key: string;
    service_url: string | null;
    connected_by: string;
    connected_at: string;
  };
  seen_requests: { id: string; expires_at: number };
  kept_states: { token: string; json: string; expires_at: number };
  comment_authors: { team_id: string; comment_id: string; user_id: string; created_at: string };
  pipeline_messages: {
    team_id: string;
    channel_id: string;
    ts: string;
    pipeline_id: string;
    thread_ts: string | null;
    remembered_at: number;
  };
  welcomed_channels: { team_id: string; channel_id: string; welcomed_at: string };
  shared_tender_cards: {
    team_id: string;
    channel_id: string;
    ts: string;
    tender_id: string;
    shared_by: string;
    remembered_at: number;
  };
  comment_thread_messages: {
    team_id: string;
    channel_id: string;
    ts: string;
    entity_type: string;
    entity_id: string;
    posted_by: string;
    remembered_at: number;
  };
  bid_starters: {
    team_id: string;
    pipeline_id: string;
    user_id: string;
    own_key: number;
    started_at: number;
  };
  bid_references: { team_id: string; pipeline_id: string; reference_number: number };
  subscriptions: {
    id: string;
    team_id: string;
    channel_id: string;
    kind: string;
    target: string;
    cadence: string;
    local_time: string;
    time_zone: string;
    created_by: string;
    created_at: number;
    paused_reason: string | null;
    next_run_at: number;
    cursor: string | null;
    cursor_at: number | null;
    skipped_count: Generated<number>;
  };
  deliveries: {
    id: string;
    subscription_id: string;
    team_id: string;
    channel_id: string;
    due_at: number;
    manual: Generated<number>;
    state: string;
    lease_owner: string | null;
    lease_until: number | null;
    not_before: number;
    attempts: Generated<number>;
    frozen: string | null;
    /** A JSON array of the ts of each part posted. */
    posted_ts: Generated<string>;
    attempting_part: number | null;
    attempt_at: number | null;
    /** When the part being sent could last have reached Slack (the end of its attempt's window). */
    attempt_until: number | null;
    /** Settling: the window's history is read from its end down to this ts (the next read's `latest`). */
    settle_latest: string | null;
    outcome: string | null;
  };
  delivered_items: {
    subscription_id: string;
    item_key: string;
    delivery_id: string;
    position: number | null;
    listing: string | null;
  };
  installations: {
    /** `team:T…` for a workspace's own install, `enterprise:E…` for an org-wide one. */
    install_key: string;
    team_id: string | null;
    enterprise_id: string | null;
    is_enterprise_install: number;
    encrypted_installation: string;
    installed_at: number;
  };
  personal_keys: {
    team_id: string;
    user_id: string;
    encrypted_api_key: string;
    service_url: string | null;
    connected_at: number;
  };
  workspace_settings: { team_id: string; personal_keys_for_writes: number };
  queued_commands: {
    id: string;
    team_id: string | null;
    /** The Slack command's fields as JSON, as the receiver verified them. */
    body: string;
    received_at: number;
    lease_owner: string | null;
    /** 0 while no worker holds it. */
    lease_until: Generated<number>;
    attempts: Generated<number>;
  };
}

/** One schema statement: compiled to run on SQLite's own handle, or executed on PostgreSQL. */
interface SchemaStep {
  compile(): CompiledQuery;
  execute(): Promise<unknown>;
}

// biome-ignore lint/suspicious/noExplicitAny: the schema builder works on tables that do not exist yet.
type SchemaDb = Kysely<any>;
type Migration = (db: SchemaDb, kind: DatabaseKind) => SchemaStep[];

const openStates = sql<SqlBool>`state in ('pending', 'working')`;
const finishedStates = sql<SqlBool>`state in ('sent', 'empty', 'failed')`;

/**
 * The bot's schema, one step per version, for both databases. Step N is what the hand-written SQL
 * migration N did (legacy-sqlite-migrations.ts), so a SQLite file an older Tenderbot made at
 * user_version N continues from step N+1.
 */
export const BOT_SCHEMA: readonly Migration[] = [
  (db) => [
    db.schema
      .createTable('workspaces')
      .addColumn('team_id', 'text', (column) => column.primaryKey())
      .addColumn('encrypted_api_key', 'text', (column) => column.notNull())
      .addColumn('service_url', 'text')
      .addColumn('connected_by', 'text', (column) => column.notNull())
      .addColumn('connected_at', 'text', (column) => column.notNull()),
  ],
  // Requests already acted on (signatures and event ids), until the time a replay could still pass.
  (db) => [
    db.schema
      .createTable('seen_requests')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('expires_at', 'bigint', (column) => column.notNull()),
    db.schema.createIndex('seen_requests_expiry').on('seen_requests').column('expires_at'),
  ],
  // States too big for a Slack value; who wrote each comment; every message showing a pipeline.
  (db) => [
    db.schema
      .createTable('kept_states')
      .addColumn('token', 'text', (column) => column.primaryKey())
      .addColumn('json', 'text', (column) => column.notNull())
      .addColumn('expires_at', 'bigint', (column) => column.notNull()),
    db.schema.createIndex('kept_states_expiry').on('kept_states').column('expires_at'),
    db.schema
      .createTable('comment_authors')
      .addColumn('team_id', 'text', (column) => column.notNull())
      .addColumn('comment_id', 'text', (column) => column.notNull())
      .addColumn('user_id', 'text', (column) => column.notNull())
      .addColumn('created_at', 'text', (column) => column.notNull())
      .addPrimaryKeyConstraint('comment_authors_pkey', ['team_id', 'comment_id']),
    db.schema
      .createTable('pipeline_messages')
      .addColumn('team_id', 'text', (column) => column.notNull())
      .addColumn('channel_id', 'text', (column) => column.notNull())
      .addColumn('ts', 'text', (column) => column.notNull())
      .addColumn('pipeline_id', 'text', (column) => column.notNull())
      .addColumn('thread_ts', 'text')
      .addColumn('remembered_at', 'bigint', (column) => column.notNull())
      .addPrimaryKeyConstraint('pipeline_messages_pkey', ['team_id', 'channel_id', 'ts']),
    db.schema
      .createIndex('pipeline_messages_by_pipeline')
      .on('pipeline_messages')
      .columns(['team_id', 'pipeline_id']),
  ],
  // Channels Tenderbot has greeted (the welcome is posted once per channel).
  (db) => [
    db.schema
      .createTable('welcomed_channels')
      .addColumn('team_id', 'text', (column) => column.notNull())
      .addColumn('channel_id', 'text', (column) => column.notNull())
      .addColumn('welcomed_at', 'text', (column) => column.notNull())
      .addPrimaryKeyConstraint('welcomed_channels_pkey', ['team_id', 'channel_id']),
  ],
  // Channel subscriptions, each delivery of one (one per subscription and due time, so two copies
  // of the app plan it once), and the items each subscription has posted (a tender once).
  (db) => [
    db.schema
      .createTable('subscriptions')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('team_id', 'text', (column) => column.notNull())
      .addColumn('channel_id', 'text', (column) => column.notNull())
      .addColumn('kind', 'text', (column) => column.notNull())
      .addColumn('target', 'text', (column) => column.notNull())
      .addColumn('cadence', 'text', (column) => column.notNull())
      .addColumn('local_time', 'text', (column) => column.notNull())
      .addColumn('time_zone', 'text', (column) => column.notNull())
      .addColumn('created_by', 'text', (column) => column.notNull())
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .addColumn('paused_reason', 'text')
      .addColumn('next_run_at', 'bigint', (column) => column.notNull())
      .addColumn('cursor', 'text')
      .addColumn('cursor_at', 'bigint')
      .addColumn('skipped_count', 'integer', (column) => column.notNull().defaultTo(0)),
    db.schema.createIndex('subscriptions_by_channel').on('subscriptions').columns(['team_id', 'channel_id']),
    db.schema
      .createIndex('subscriptions_due')
      .on('subscriptions')
      .column('next_run_at')
      .where(sql<SqlBool>`paused_reason is null`),
    db.schema
      .createTable('deliveries')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('subscription_id', 'text', (column) =>
        column.notNull().references('subscriptions.id').onDelete('cascade'),
      )
      .addColumn('team_id', 'text', (column) => column.notNull())
      .addColumn('channel_id', 'text', (column) => column.notNull())
      .addColumn('due_at', 'bigint', (column) => column.notNull())
      .addColumn('manual', 'integer', (column) => column.notNull().defaultTo(0))
      .addColumn('state', 'text', (column) => column.notNull())
      .addColumn('lease_owner', 'text')
      .addColumn('lease_until', 'bigint')
      .addColumn('not_before', 'bigint', (column) => column.notNull())
      .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
      .addColumn('frozen', 'text')
      .addColumn('posted_ts', 'text', (column) => column.notNull().defaultTo('[]'))
      .addColumn('attempting_part', 'integer')
      .addColumn('attempt_at', 'bigint')
      .addColumn('outcome', 'text')
      .addUniqueConstraint('deliveries_subscription_due', ['subscription_id', 'due_at']),
    db.schema
      .createIndex('deliveries_open')
      .on('deliveries')
      .columns(['state', 'not_before'])
      .where(openStates),
    db.schema
      .createIndex('deliveries_by_channel')
      .on('deliveries')
      .columns(['team_id', 'channel_id'])
      .where(openStates),
    db.schema
      .createTable('delivered_items')
      .addColumn('subscription_id', 'text', (column) =>
        column.notNull().references('subscriptions.id').onDelete('cascade'),
      )
      .addColumn('item_key', 'text', (column) => column.notNull())
      .addColumn('delivery_id', 'text', (column) => column.notNull())
      .addPrimaryKeyConstraint('delivered_items_pkey', ['subscription_id', 'item_key']),
    db.schema.createIndex('delivered_items_by_delivery').on('delivered_items').column('delivery_id'),
  ],
  // A feed post lists every new tender behind "and N more" (its line kept with the item, in
  // order, rather than in the frozen post); finished deliveries are pruned by due time.
  (db) => [
    db.schema.alterTable('delivered_items').addColumn('position', 'integer'),
    db.schema.alterTable('delivered_items').addColumn('listing', 'text'),
    db.schema
      .createIndex('delivered_items_listing')
      .on('delivered_items')
      .columns(['delivery_id', 'position'])
      .where(sql<SqlBool>`listing is not null`),
    db.schema.createIndex('deliveries_finished').on('deliveries').column('due_at').where(finishedStates),
  ],
  // Seen requests without an expiry index (every signed request writes one row; the table holds
  // five minutes of requests, so pruning reads it all cheaply), and on SQLite without a rowid.
  (db, kind) =>
    kind === 'postgres'
      ? [db.schema.dropIndex('seen_requests_expiry')]
      : [
          db.schema
            .createTable('seen_requests_keyed')
            .addColumn('id', 'text', (column) => column.primaryKey())
            .addColumn('expires_at', 'integer', (column) => column.notNull())
            .modifyEnd(sql`without rowid`),
          db
            .insertInto('seen_requests_keyed')
            .columns(['id', 'expires_at'])
            .expression(db.selectFrom('seen_requests').select(['id', 'expires_at'])),
          db.schema.dropTable('seen_requests'),
          db.schema.alterTable('seen_requests_keyed').renameTo('seen_requests'),
        ],
  // Installations from the "Add to Slack" flow (one per workspace, or one org-wide per enterprise:
  // install_key says which), people's own keys, and workspace settings.
  (db) => [
    db.schema
      .createTable('installations')
      .addColumn('install_key', 'text', (column) => column.primaryKey())
      .addColumn('team_id', 'text')
      .addColumn('enterprise_id', 'text')
      .addColumn('is_enterprise_install', 'integer', (column) => column.notNull())
      .addColumn('encrypted_installation', 'text', (column) => column.notNull())
      .addColumn('installed_at', 'bigint', (column) => column.notNull()),
    db.schema
      .createTable('personal_keys')
      .addColumn('team_id', 'text', (column) => column.notNull())
      .addColumn('user_id', 'text', (column) => column.notNull())
      .addColumn('encrypted_api_key', 'text', (column) => column.notNull())
      .addColumn('service_url', 'text')
      .addColumn('connected_at', 'bigint', (column) => column.notNull())
      .addPrimaryKeyConstraint('personal_keys_pkey', ['team_id', 'user_id']),
    db.schema
      .createTable('workspace_settings')
      .addColumn('team_id', 'text', (column) => column.primaryKey())
      .addColumn('personal_keys_for_writes', 'integer', (column) => column.notNull()),
  ],
  // Slash commands acknowledged by the receiver and waiting for an answer worker (ANSWER_WORKERS):
  // kept until answered, so a command acknowledged by a copy that stops or dies is still answered.
  (db, kind) => [
    db.schema
      .createTable('queued_commands')
      // A time-ordered id (UUIDv7): the oldest first is the key's own order, and each new row goes
      // at the end of the one B-tree (on SQLite, without a rowid) rather than anywhere in it.
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('team_id', 'text')
      .addColumn('body', 'text', (column) => column.notNull())
      .addColumn('received_at', 'bigint', (column) => column.notNull())
      .addColumn('lease_owner', 'text')
      .addColumn('lease_until', 'bigint', (column) => column.notNull().defaultTo(0))
      .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
      .$call((table) => (kind === 'sqlite' ? table.modifyEnd(sql`without rowid`) : table)),
  ],
  // A post whose answer was lost is settled from the history of its attempt's own window, a page at
  // a time (Slack serves an app outside the Marketplace 15 messages a call, about a call a minute):
  // the window's end, recorded before the post, and how far down the window was read so far.
  (db) => [
    db.schema.alterTable('deliveries').addColumn('attempt_until', 'bigint'),
    db.schema.alterTable('deliveries').addColumn('settle_latest', 'text'),
  ],
  // Who started each bid through Tenderbot (the service names only the key's maker as its owner).
  (db) => [
    db.schema
      .createTable('bid_starters')
      .addColumn('team_id', 'text', (column) => column.notNull())
      .addColumn('pipeline_id', 'text', (column) => column.notNull())
      .addColumn('user_id', 'text', (column) => column.notNull())
      .addColumn('own_key', 'integer', (column) => column.notNull())
      .addColumn('started_at', 'bigint', (column) => column.notNull())
      .addPrimaryKeyConstraint('bid_starters_pkey', ['team_id', 'pipeline_id']),
  ],
  // Each bid's short reference (BID-7), a number per workspace: one per bid, never one twice.
  (db) => [
    db.schema
      .createTable('bid_references')
      .addColumn('team_id', 'text', (column) => column.notNull())
      .addColumn('pipeline_id', 'text', (column) => column.notNull())
      .addColumn('reference_number', 'integer', (column) => column.notNull())
      .addPrimaryKeyConstraint('bid_references_pkey', ['team_id', 'pipeline_id']),
    db.schema
      .createIndex('bid_references_number')
      .unique()
      .on('bid_references')
      .columns(['team_id', 'reference_number']),
  ],
  // Every tender card shared in a channel (it shows the workspace's bookmarks): a bookmark changed
  // anywhere redraws each of them, as a bid's change redraws its cards.
  (db) => [
    db.schema
      .createTable('shared_tender_cards')
      .addColumn('team_id', 'text', (column) => column.notNull())
      .addColumn('channel_id', 'text', (column) => column.notNull())
      .addColumn('ts', 'text', (column) => column.notNull())
      .addColumn('tender_id', 'text', (column) => column.notNull())
      .addColumn('shared_by', 'text', (column) => column.notNull())
      .addColumn('remembered_at', 'bigint', (column) => column.notNull())
      .addPrimaryKeyConstraint('shared_tender_cards_pkey', ['team_id', 'channel_id', 'ts']),
    db.schema
      .createIndex('shared_tender_cards_by_tender')
      .on('shared_tender_cards')
      .columns(['team_id', 'tender_id', 'remembered_at']),
  ],
  // Every comment thread posted in a channel (`/tender comments`): a comment written or deleted
  // through Tenderbot redraws each of them, so a deleted comment's words do not stay in a channel.
  (db) => [
    db.schema
      .createTable('comment_thread_messages')
      .addColumn('team_id', 'text', (column) => column.notNull())
      .addColumn('channel_id', 'text', (column) => column.notNull())
      .addColumn('ts', 'text', (column) => column.notNull())
      .addColumn('entity_type', 'text', (column) => column.notNull())
      .addColumn('entity_id', 'text', (column) => column.notNull())
      .addColumn('posted_by', 'text', (column) => column.notNull())
      .addColumn('remembered_at', 'bigint', (column) => column.notNull())
      .addPrimaryKeyConstraint('comment_thread_messages_pkey', ['team_id', 'channel_id', 'ts']),
    db.schema
      .createIndex('comment_thread_messages_by_record')
      .on('comment_thread_messages')
      .columns(['team_id', 'entity_type', 'entity_id', 'remembered_at']),
  ],
];

/**
 * Brings a SQLite file up to date: each step compiled to SQL by Kysely and applied by the shared
 * migrator (synchronously, under BEGIN IMMEDIATE, its version in user_version), so opening stays
 * synchronous and two processes opening a new file apply each step once.
 */
export function migrateBotSqlite(raw: SqliteDatabase, builder: SchemaDb): void {
  const migrations = BOT_SCHEMA.map((migration) =>
    migration(builder, 'sqlite')
      .map((step) => {
        const compiled = step.compile();
        if (compiled.parameters.length > 0) throw new Error(`a schema step has parameters: ${compiled.sql}`);
        return `${compiled.sql};`;
      })
      .join('\n'),
  );
  migrateSqlite(raw, migrations);
}

/**
 * Brings a PostgreSQL database up to date in one transaction holding an advisory lock, so copies
 * of the app starting together wait for the first and then find every step applied.
 */
export async function migrateBotPostgres(db: SchemaDb): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('tenderbot bot store schema'))`.execute(trx);
    await trx.schema
      .createTable('bot_schema_version')
      .ifNotExists()
      .addColumn('version', 'integer', (column) => column.notNull())
      .execute();
    const row = await trx.selectFrom('bot_schema_version').select('version').executeTakeFirst();
    const current = (row?.version as number | undefined) ?? 0;
    if (current > BOT_SCHEMA.length) {
      throw new Error(
        `database schema version ${current} is newer than this program knows (${BOT_SCHEMA.length}); upgrade tenderbot`,
      );
    }
    for (const migration of BOT_SCHEMA.slice(current)) {
      for (const step of migration(trx, 'postgres')) await step.execute();
    }
    if (!row) await trx.insertInto('bot_schema_version').values({ version: BOT_SCHEMA.length }).execute();
    else await trx.updateTable('bot_schema_version').set({ version: BOT_SCHEMA.length }).execute();
  });
}
