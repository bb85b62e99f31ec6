import { type Kysely, type RawBuilder, type Selectable, type SqlBool, sql } from 'kysely';
import type { BotDatabase } from './bot-database.ts';
import type { BotTables } from './bot-schema.ts';
import { compiledOn, Prepared, slot } from './kysely-store-base.ts';

type DeliveryRow = Selectable<BotTables['deliveries']>;

/**
 * The delivery store's queries, compiled once per store: planning, claiming and recording every post.
 * `claimSteps: 'all'` claims on SQLite by PostgreSQL's steps too (the tests' plain path).
 */
export function deliveryQueries(
  { kind, db, jsonStrings, jsonItems, appendPostedTs, postedTsLength }: BotDatabase,
  { claimSteps = kind === 'postgres' ? 'all' : 'snapshot' }: { claimSteps?: 'all' | 'snapshot' } = {},
) {
  const open = (alias: string) => sql.raw(alias);
  /** A delivery that may be claimed now: pending and ready, or working with a lease that ended. */
  const claimable = (alias: string) =>
    sql`((${open(alias)}.state = 'pending' and ${open(alias)}.not_before <= ${slot('ready')})
      or (${open(alias)}.state = 'working' and ${open(alias)}.lease_until <= ${slot('now')}))`;
  /**
   * The same, for a search among all deliveries: the first term says it as the open deliveries'
   * partial indexes do, so only they are read (without it SQLite scanned the whole table, finished
   * deliveries too, kept 90 days). Not for a row found by id, where it would read the index instead.
   */
  const claimableAmongAll = (alias: string) =>
    sql`(${open(alias)}.state in ('pending', 'working') and ${claimable(alias)})`;
  /** A delivery with a part sent or being sent: its other parts go before anything else of its channel. */
  const halfSent = (alias: string) =>
    sql`(${open(alias)}.posted_ts <> '[]' or ${open(alias)}.attempting_part is not null)`;
  const compiled = compiledOn(db);
  /**
   * Of a channel's open deliveries, those its pace until `until` holds back (see paceChannel): a
   * null `until` (no pace) holds none.
   */
  const pacedByOwnerUntil = sql`(state = 'pending' or (state = 'working' and lease_owner = ${slot('owner')}
      and lease_until < ${slot('until')}))
    and not_before < ${slot('until')}`;
  /**
   * claimDeliveries' statement over the open deliveries of the channels `channels` says (of `d`):
   * - ranked: each channel's claimable deliveries in its order (a half-sent one first, then by due
   *   time and id), with its first one's terms, by which channels take turns: first the channel
   *   whose first could post first (a pending delivery from its own time, a working one whose
   *   lease ran out from the later of the lease's end and its own time: Slack's Retry-After may
   *   hold it past the lease);
   * - picked: the first `perChannel` of each channel where nothing is under way or half sent, for
   *   the first `channels` channels;
   * - locked (PostgreSQL): those still claimable as they are locked, skipping rows another
   *   transaction holds (another claim, or the owner of a lease just run out, writing);
   * - kept (PostgreSQL): in each channel only the unbroken run from its first: a claim never takes
   *   a channel's later delivery without every one before it.
   * On SQLite a statement reads one snapshot and nothing else writes meanwhile: every row picked is
   * still claimable as it is written, so locked and kept would be picked again, read three more
   * times (a claim of 10,000 deliveries held the event loop 280–300 ms with them, 150 ms without).
   */
  const lockedAndKept = sql`locked as (
        select l.id from deliveries l
        where l.id in (select id from picked) and ${claimable('l')}
        ${kind === 'postgres' ? sql`for update skip locked` : sql``}
      ), kept as (
        select p.id from picked p
        where p.id in (select id from locked)
          and not exists (
            select 1 from picked q
            where q.team_id = p.team_id and q.channel_id = p.channel_id and q.place < p.place
              and q.id not in (select id from locked))
      )`;
  const claimIn = (channels: RawBuilder<unknown>) =>
    sql<DeliveryRow>`with ranked as (
        select d.id, d.team_id, d.channel_id,
          row_number() over channel as place,
          first_value(case when d.state = 'working' and d.lease_until > d.not_before
              then d.lease_until else d.not_before end) over channel as first_ready_at,
          first_value(d.due_at) over channel as first_due_at,
          first_value(d.id) over channel as first_id
        from deliveries d
        where ${claimableAmongAll('d')} and ${channels}
        window channel as (partition by d.team_id, d.channel_id
          order by case when ${halfSent('d')} then 0 else 1 end, d.due_at, d.id)
      ), picked as (
        select id, team_id, channel_id, place from (
          select r.id, r.team_id, r.channel_id, r.place,
            dense_rank() over (order by r.first_ready_at, r.first_due_at, r.first_id) as turn
          from ranked r
          where r.place <= ${slot('perChannel')}
            and not exists (
              select 1 from deliveries o
              where o.team_id = r.team_id and o.channel_id = r.channel_id and o.id <> r.id
                and o.state in ('pending', 'working')
                and ((o.state = 'working' and o.lease_until > ${slot('now')}) or ${halfSent('o')}))
        ) turns
        where turn <= ${slot('channels')}
      ), ${claimSteps === 'all' ? lockedAndKept : sql`kept as (select id from picked)`}
      update deliveries set state = 'working', lease_owner = ${slot('owner')},
        lease_until = ${slot('until')}, attempts = attempts + 1
      where id in (select id from kept) and ${claimable('deliveries')}
      returning *`;
  return {
    moveNextRun: new Prepared(
      db
        .updateTable('subscriptions')
        .set((eb) => ({
          next_run_at: slot<number>('nextRunAt'),
          skipped_count: eb('skipped_count', '+', slot<number>('skipped')),
        }))
        .where('id', '=', slot<string>('id'))
        .where('next_run_at', '=', slot<number>('expected'))
        .where('paused_reason', 'is', null),
    ),
    insertPlanned: new Prepared(plannedInsert(db, 0)),
    insertManual: new Prepared(plannedInsert(db, 1)),
    // One statement: two copies never claim one row (SQLite writes one statement at a time; on
    // PostgreSQL the rows are locked, those another transaction holds skipped, and each checked
    // again as it is written). A channel's deliveries are taken in order, its first `perChannel`
    // claimable ones together (a run its copy posts one after another at the pace), none while
    // another copy is posting there or a split post is half sent (its parts stay together: a
    // half-sent one ranks first and goes alone). Whether anything of the channel is under way is
    // asked of the rows ranked, not of every open row (10,000 open in bench:digests).
    claim: new Prepared<DeliveryRow>(
      compiled(claimIn(sql`d.channel_id not in ${jsonStrings(slot('busy'))}`)),
    ),
    // The same over the channels of the deliveries named (the job queue's turns: a job names its
    // channel's first), for a whole fetch in one statement. One round trip a job, a fetch of 2,000
    // took over a second before a post went out (bench:digests, two copies on PostgreSQL).
    claimChannelsOf: new Prepared<DeliveryRow>(
      compiled(
        claimIn(
          sql`(d.team_id, d.channel_id) in (select n.team_id, n.channel_id from deliveries n
            where n.id in ${jsonStrings(slot('ids'))})`,
        ),
      ),
    ),
    // PostgreSQL: the claims of all copies take turns, for the length of a claim's transaction.
    // Each claim reads what to take from its statement's snapshot: two at once, seeing different
    // firsts of a channel (one waiting for its retry by one copy's clock, ready by the other's;
    // one planned between them), each took rows the other never locked, and both posted in the
    // channel. A copy stalled while it holds the turn is ended by the server after 5 s idle
    // (idle_in_transaction_session_timeout), so it cannot stop the others' claims for longer.
    lockClaims:
      kind === 'postgres'
        ? new Prepared(
            compiled(
              sql`select set_config('idle_in_transaction_session_timeout', '5000', true),
                pg_advisory_xact_lock(hashtext('tenderbot delivery claims'))`,
            ),
          )
        : null,
    // What a job queue offers: each channel's first claimable delivery by `due` (a half-sent one
    // before all others, claimable or not: it holds its channel), as claims rank them, where
    // nothing else of the channel is under way or half sent. One pass over the open deliveries of
    // the channels with anything claimable, counted per channel: asked per row ("no other before
    // it, none under way"), a pass read each channel once for every open row (20 ms a pass with
    // 10,000 open on PostgreSQL); over every channel, a burst's pass read the thousands under way
    // to offer none of them (35.7 ms a pass, 77 passes in a burst of two copies).
    firstOpen: new Prepared<{ id: string }>(
      compiled(
        sql<{ id: string }>`select id from (
            select d.id, d.due_at, case when ${claimable('d')} then 1 else 0 end as claimable,
              case when ${halfSent('d')} then 1 else 0 end as half_sent,
              row_number() over channel as place,
              sum(case when d.state = 'working' and d.lease_until > ${slot('due')} then 1 else 0 end)
                over whole as under_way,
              sum(case when ${halfSent('d')} then 1 else 0 end) over whole as half_sent_here
            from deliveries d
            where d.state in ('pending', 'working')
              and (d.team_id, d.channel_id) in (select c.team_id, c.channel_id from deliveries c
                where ${claimableAmongAll('c')})
            window channel as (partition by d.team_id, d.channel_id
                order by case when ${halfSent('d')} then 0 else 1 end,
                  case when ${claimable('d')} then 0 else 1 end, d.due_at, d.id),
              whole as (partition by d.team_id, d.channel_id)
          ) firsts
          where place = 1 and claimable = 1 and under_way = 0 and half_sent_here = half_sent
          order by due_at, id
          limit ${slot('limit')}`,
      ),
    ),
    // A delivery this copy holds whose content is not frozen yet: content is frozen once, so a run
    // that lost the delivery and took it again (its lease ended meanwhile) never replaces what
    // another run froze, and perhaps posted.
    ownedUnfrozen: new Prepared(
      db
        .selectFrom('deliveries')
        .select('subscription_id')
        .where('id', '=', slot<string>('id'))
        .where('lease_owner', '=', slot<string>('owner'))
        .where('state', '=', 'working')
        .where('frozen', 'is', null),
    ),
    lockSubscription:
      kind === 'postgres'
        ? new Prepared(
            db.selectFrom('subscriptions').select('id').where('id', '=', slot<string>('id')).forUpdate(),
          )
        : null,
    takenItems: new Prepared(
      db
        .selectFrom('delivered_items')
        .select('item_key')
        .where('subscription_id', '=', slot<string>('subscriptionId'))
        .where('delivery_id', '<>', slot<string>('id'))
        .where(sql<SqlBool>`item_key in ${jsonStrings(slot('keys'))}`),
    ),
    reserveItems: new Prepared(
      compiled(
        sql`insert into delivered_items (subscription_id, item_key, delivery_id, position, listing)
          select ${slot('subscriptionId')}, item_key, ${slot('id')}, position, listing
          from ${jsonItems(slot('items'))} as items where true
          on conflict do nothing`,
      ),
    ),
    // Frozen with nothing to reserve: one statement, only while the lease is the owner's.
    setFrozenIfOwned: new Prepared(
      db
        .updateTable('deliveries')
        .set({ frozen: slot('frozen') })
        .where('id', '=', slot<string>('id'))
        .where('lease_owner', '=', slot<string>('owner'))
        .where('state', '=', 'working')
        .where('frozen', 'is', null),
    ),
    setFrozen: new Prepared(
      db
        .updateTable('deliveries')
        .set({ frozen: slot('frozen') })
        .where('id', '=', slot<string>('id')),
    ),
    markAttempt: new Prepared(markAttemptQuery(db, false)),
    markAttemptFreezing: new Prepared(markAttemptQuery(db, true)),
    settleProgress: new Prepared(
      db
        .updateTable('deliveries')
        .set({ settle_latest: slot('latest') })
        .where('id', '=', slot<string>('id'))
        .where('lease_owner', '=', slot<string>('owner'))
        .where('state', '=', 'working')
        .where('attempting_part', 'is not', null),
    ),
    recordPart: new Prepared(
      db
        .updateTable('deliveries')
        .set({ posted_ts: appendPostedTs(slot('ts')), attempting_part: null })
        .where('id', '=', slot<string>('id'))
        .where('lease_owner', '=', slot<string>('owner'))
        .where('state', '=', 'working')
        .where(postedTsLength, '=', slot<number>('part')),
    ),
    release: new Prepared(releaseQuery(db, false)),
    releaseKeepingAttempt: new Prepared(releaseQuery(db, true)),
    // Deliveries a claim took and its copy gives back unstarted (the rest of a run, another of a
    // channel it is posting to): released with any attempt mark kept, and the claim not counted
    // as an attempt (the count sets the wait after a failed read: 1 minute, doubling to 30).
    giveBack: new Prepared(
      compiled(
        sql`update deliveries set state = 'pending', lease_owner = null, lease_until = null,
            not_before = ${slot('notBefore')}, attempts = case when attempts > 0 then attempts - 1 else 0 end
          where id in ${jsonStrings(slot('ids'))} and lease_owner = ${slot('owner')} and state = 'working'`,
      ),
    ),
    finishWithPart: new Prepared(
      db
        .updateTable('deliveries')
        .set({
          posted_ts: appendPostedTs(slot('ts')),
          state: slot('state'),
          outcome: slot('outcome'),
          lease_until: null,
          attempting_part: null,
        })
        .where('id', '=', slot<string>('id'))
        .where('lease_owner', '=', slot<string>('owner'))
        .where('state', '=', 'working')
        .where(postedTsLength, '=', slot<number>('part'))
        .returning(['subscription_id', 'team_id', 'channel_id']),
    ),
    finish: new Prepared(
      db
        .updateTable('deliveries')
        .set({ state: slot('state'), outcome: slot('outcome'), lease_until: null, attempting_part: null })
        .where('id', '=', slot<string>('id'))
        .where('lease_owner', '=', slot<string>('owner'))
        .where('state', '=', 'working')
        .returning(['subscription_id', 'team_id', 'channel_id']),
    ),
    // The channel's pending deliveries wait for its pace, and so do those the owner holds for later
    // in its run whose lease ends first: taken over then (the owner alive but slow), they keep the
    // channel's pace rather than the time they were planned for. A lease that outlasts the pace
    // holds it already (no copy may take the row before the lease ends, and every release
    // overwrites not_before), so those rows are not written again: in a burst that was two row
    // writes a post, each moving the row in the open deliveries' index. Found through the channel's index
    // (the subquery says it as that index does): on the same terms SQLite read the open
    // deliveries' index for every pending one, 1.7 ms a post with 10,000 open.
    paceChannel: new Prepared(
      compiled(
        sql`update deliveries set not_before = ${slot('until')}
          where id in (select id from deliveries where team_id = ${slot('team')}
              and channel_id = ${slot('channel')} and state in ('pending', 'working'))
            and ${pacedByOwnerUntil}`,
      ),
    ),
    // PostgreSQL: a post's usual finish (its last part, the channel's pace, the cursor) in one
    // statement rather than a transaction of three (five round trips, a burst's most frequent
    // writes). The statements of a WITH see one snapshot, so the pace names the finished row out;
    // the channel and the subscription are named by values read once, so their rows are found
    // through their indexes (joined to `finished`, the planner read whole tables in some runs: 0.9 ms
    // a post against 0.2).
    finishPosted:
      kind === 'postgres'
        ? new Prepared<{ subscription_id: string; team_id: string; channel_id: string }>(
            compiled(
              sql`with finished as (
                  update deliveries set posted_ts = ${appendPostedTs(slot('ts'))}, state = ${slot('state')},
                    outcome = ${slot('outcome')}, lease_until = null, attempting_part = null
                  where id = ${slot('id')} and lease_owner = ${slot('owner')} and state = 'working'
                    and ${postedTsLength} = ${slot('part')}
                  returning subscription_id, team_id, channel_id
                ), paced as (
                  update deliveries set not_before = ${slot('until')}
                  where team_id = (select team_id from finished)
                    and channel_id = (select channel_id from finished)
                    and state in ('pending', 'working') and id <> ${slot('id')}
                    and ${pacedByOwnerUntil}
                ), moved as (
                  update subscriptions set cursor = ${slot('cursor')}, cursor_at = cast(${slot('at')} as bigint)
                  where id = (select subscription_id from finished)
                    and cast(${slot('at')} as bigint) is not null
                    and (cursor_at is null or cursor_at < cast(${slot('at')} as bigint))
                )
                select subscription_id, team_id, channel_id from finished`,
            ),
          )
        : null,
    freeItems: new Prepared(db.deleteFrom('delivered_items').where('delivery_id', '=', slot<string>('id'))),
    moveCursor: new Prepared(
      db
        .updateTable('subscriptions')
        .set({ cursor: slot('cursor'), cursor_at: slot('at') })
        .where('id', '=', slot<string>('id'))
        .where((eb) => eb.or([eb('cursor_at', 'is', null), eb('cursor_at', '<', slot<number>('at'))])),
    ),
    skippedSaid: new Prepared(
      db
        .updateTable('subscriptions')
        .set({
          skipped_count: sql<number>`case when skipped_count > ${slot('said')} then skipped_count - ${slot('said')} else 0 end`,
        })
        .where('id', '=', slot<string>('id')),
    ),
  };
}

/** A delivery of a subscription, copied from its row (a no-op when one exists for that due time). */
function plannedInsert(db: Kysely<BotTables>, manual: 0 | 1) {
  return db
    .insertInto('deliveries')
    .columns(['id', 'subscription_id', 'team_id', 'channel_id', 'due_at', 'manual', 'state', 'not_before'])
    .expression(
      db
        .selectFrom('subscriptions')
        .select((eb) => [
          // Cast: PostgreSQL types a bare parameter in a select list as text.
          eb.cast<string>(eb.val(slot<string>('id')), 'text').as('delivery_id'),
          'id',
          'team_id',
          'channel_id',
          eb.cast<number>(eb.val(slot<number>('dueAt')), 'bigint').as('due_at'),
          eb.lit(manual).as('manual'),
          sql.lit('pending').as('state'),
          eb.cast<number>(eb.val(slot<number>('dueAt')), 'bigint').as('not_before'),
        ])
        .where('id', '=', slot<string>('subscriptionId')),
    )
    .onConflict((conflict) => conflict.doNothing());
}

function releaseQuery(db: Kysely<BotTables>, keepAttempt: boolean) {
  return db
    .updateTable('deliveries')
    .set({
      state: 'pending',
      lease_owner: null,
      lease_until: null,
      not_before: slot('notBefore'),
      ...(keepAttempt ? {} : { attempting_part: null }),
    })
    .where('id', '=', slot<string>('id'))
    .where('lease_owner', '=', slot<string>('owner'))
    .where('state', '=', 'working');
}

/**
 * Marks a part as being sent, renewing the lease. Freezing: the delivery's content is written in
 * the same row write (a first attempt whose content reserves nothing), one write a post instead of two.
 */
function markAttemptQuery(db: Kysely<BotTables>, freezing: boolean) {
  return (
    db
      .updateTable('deliveries')
      .set({
        attempting_part: slot('part'),
        attempt_at: slot('now'),
        attempt_until: slot('attemptUntil'),
        // A new attempt has a window of its own, not read yet.
        settle_latest: null,
        lease_until: slot('until'),
        ...(freezing ? { frozen: slot<string>('frozen') } : {}),
      })
      .where('id', '=', slot<string>('id'))
      .where('lease_owner', '=', slot<string>('owner'))
      .where('state', '=', 'working')
      // Content is frozen once (see ownedUnfrozen): a stale run's mark with its own content fails.
      .$if(freezing, (query) => query.where('frozen', 'is', null))
  );
}
