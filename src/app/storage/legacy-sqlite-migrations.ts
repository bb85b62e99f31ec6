/**
 * The bot's SQLite schema as hand-written SQL, as every version before the Kysely store applied it
 * (user_version 1-8). Kept only so tests can make a file exactly as an older Tenderbot did and check
 * that the current store opens it with its data; bot-schema.ts is the schema now, step for step.
 */
export const LEGACY_SQLITE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE workspaces (
    team_id TEXT PRIMARY KEY,
    encrypted_api_key TEXT NOT NULL,
    service_url TEXT,
    connected_by TEXT NOT NULL,
    connected_at TEXT NOT NULL
  );
  `,
  // Requests already acted on (signatures and event ids), until the time a replay could still pass.
  `
  CREATE TABLE seen_requests (
    id TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX seen_requests_expiry ON seen_requests (expires_at);
  `,
  // States too big for a Slack value; who wrote each comment; every message showing a pipeline.
  `
  CREATE TABLE kept_states (
    token TEXT PRIMARY KEY,
    json TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX kept_states_expiry ON kept_states (expires_at);
  CREATE TABLE comment_authors (
    team_id TEXT NOT NULL,
    comment_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (team_id, comment_id)
  );
  CREATE TABLE pipeline_messages (
    team_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    ts TEXT NOT NULL,
    pipeline_id TEXT NOT NULL,
    thread_ts TEXT,
    remembered_at INTEGER NOT NULL,
    PRIMARY KEY (team_id, channel_id, ts)
  );
  CREATE INDEX pipeline_messages_by_pipeline ON pipeline_messages (team_id, pipeline_id);
  `,
  // Channels Tenderbot has greeted (the welcome is posted once per channel).
  `
  CREATE TABLE welcomed_channels (
    team_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    welcomed_at TEXT NOT NULL,
    PRIMARY KEY (team_id, channel_id)
  );
  `,
  // Channel subscriptions, each delivery of one (one per subscription and due time, so two copies
  // of the app plan it once), and the items each subscription has posted (a tender once).
  `
  CREATE TABLE subscriptions (
    id TEXT PRIMARY KEY,
    team_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    target TEXT NOT NULL,
    cadence TEXT NOT NULL,
    local_time TEXT NOT NULL,
    time_zone TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    paused_reason TEXT,
    next_run_at INTEGER NOT NULL,
    cursor TEXT,
    cursor_at INTEGER,
    skipped_count INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX subscriptions_by_channel ON subscriptions (team_id, channel_id);
  CREATE INDEX subscriptions_due ON subscriptions (next_run_at) WHERE paused_reason IS NULL;
  CREATE TABLE deliveries (
    id TEXT PRIMARY KEY,
    subscription_id TEXT NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
    team_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    due_at INTEGER NOT NULL,
    manual INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL,
    lease_owner TEXT,
    lease_until INTEGER,
    not_before INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    frozen TEXT,
    posted_ts TEXT NOT NULL DEFAULT '[]',
    attempting_part INTEGER,
    attempt_at INTEGER,
    outcome TEXT,
    UNIQUE (subscription_id, due_at)
  );
  CREATE INDEX deliveries_open ON deliveries (state, not_before) WHERE state IN ('pending', 'working');
  CREATE INDEX deliveries_by_channel ON deliveries (team_id, channel_id) WHERE state IN ('pending', 'working');
  CREATE TABLE delivered_items (
    subscription_id TEXT NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
    item_key TEXT NOT NULL,
    delivery_id TEXT NOT NULL,
    PRIMARY KEY (subscription_id, item_key)
  );
  CREATE INDEX delivered_items_by_delivery ON delivered_items (delivery_id);
  `,
  // A feed post lists every new tender behind "and N more" (its line kept with the item, in
  // order, rather than in the frozen post); finished deliveries are pruned by due time.
  `
  ALTER TABLE delivered_items ADD COLUMN position INTEGER;
  ALTER TABLE delivered_items ADD COLUMN listing TEXT;
  CREATE INDEX delivered_items_listing ON delivered_items (delivery_id, position) WHERE listing IS NOT NULL;
  CREATE INDEX deliveries_finished ON deliveries (due_at) WHERE state IN ('sent', 'empty', 'failed');
  `,
  // Seen requests without a rowid or an expiry index: every signed request writes one row, and this
  // halves that write (the table holds five minutes of requests, so pruning reads it all cheaply).
  `
  CREATE TABLE seen_requests_keyed (
    id TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO seen_requests_keyed (id, expires_at) SELECT id, expires_at FROM seen_requests;
  DROP TABLE seen_requests;
  ALTER TABLE seen_requests_keyed RENAME TO seen_requests;
  `,
  // Installations from the "Add to Slack" flow (one per workspace, or one org-wide per enterprise:
  // install_key says which), people's own keys, and workspace settings.
  `
  CREATE TABLE installations (
    install_key TEXT PRIMARY KEY,
    team_id TEXT,
    enterprise_id TEXT,
    is_enterprise_install INTEGER NOT NULL,
    encrypted_installation TEXT NOT NULL,
    installed_at INTEGER NOT NULL
  );
  CREATE TABLE personal_keys (
    team_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    encrypted_api_key TEXT NOT NULL,
    service_url TEXT,
    connected_at INTEGER NOT NULL,
    PRIMARY KEY (team_id, user_id)
  );
  CREATE TABLE workspace_settings (
    team_id TEXT PRIMARY KEY,
    personal_keys_for_writes INTEGER NOT NULL
  );
  `,
];
