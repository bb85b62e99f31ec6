import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL_POSTS_QUEUE } from '../../src/app/delivery/pg-boss-queue.ts';
import type { BotStore, Subscription } from '../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../src/app/storage/open-bot-store.ts';
import { ProcurementClient } from '../../src/client/procurement-client.ts';
import {
  type AppAnswer,
  type FakeMessage,
  FakeSlack,
  type FakeUser,
} from '../../src/fake-slack/fake-slack.ts';
import { importOcdsFiles } from '../../src/service/import/ocds-importer.ts';
import { eventually } from '../support/bot.ts';
import { KEYS } from '../support/fixture.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { type StartedProcess, startTenderbot } from '../support/process.ts';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.ts';
import { parseAccessLine, type RunningNginx, startNginx } from './support/nginx.ts';
import { type ServiceGate, startServiceGate } from './support/service-gate.ts';

// Issue 13 item 5: two copies of the app (real `tenderbot bot` processes) on one database behind
// Debian's nginx, a stream of commands, clicks and submissions through nginx, and one copy stopped
// (SIGTERM) in the middle of it, while it is writing to the service and channel posts fall due.
// Nothing may be lost or done twice. Run on one SQLite file (two-copies-sqlite.test.ts) and on
// PostgreSQL, where channel posts go through pg-boss (two-copies-postgres.test.ts).

/**
 * People working at once, each in a channel of their own (their answers cannot be confused); one
 * more (`worker(WORKERS)`) submits a comment straight to the first copy as it is told to stop.
 */
const WORKERS = 8;
/** Rounds per person: a search, a bookmark, a comment, a bid (6 requests through nginx each). */
const ROUNDS = 5;
const REQUESTS = WORKERS * ROUNDS * 6;
/** Channel subscriptions due when the stream starts, and when the copy is stopped. */
const DUE_AT_START = 6;
const DUE_AT_STOP = 16;
const SUBSCRIPTION_CHANNELS = ['C0DIGESTA', 'C0DIGESTB', 'C0DIGESTC', 'C0DIGESTD'];
/** Long waits: two copies, nginx, the service and vitest share two cores. */
const WAIT_MS = 30_000;

/**
 * Letters only, so the search finds exactly this run's tenders; each word ends in a z after the
 * person's letter, since searches match word stems as prefixes and a stem drops a final e
 * (`…we` would find `…wa`).
 */
const RUN = Array.from(randomBytes(6), (byte) => String.fromCharCode(97 + (byte % 26))).join('');
const worker = (index: number) => ({
  user: `U0W${index}`,
  channel: `C0W${index}`,
  word: `${RUN}w${String.fromCharCode(97 + index)}z`,
});
const USERS: FakeUser[] = [
  { id: 'U0ADMIN', name: 'ada', realName: 'Ada Admin', isAdmin: true },
  ...Array.from({ length: WORKERS + 1 }, (_, index) => ({
    id: worker(index).user,
    name: `worker${index}`,
    realName: `Worker ${index}`,
  })),
];

/** The delivery ids of the channel posts queue's completed pg-boss jobs (queued or archived). */
async function completedJobsOf(url: string): Promise<Set<string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ key: string }>(
      `SELECT singleton_key AS key FROM pgboss.job WHERE name = $1 AND state = 'completed'
       UNION SELECT singleton_key FROM pgboss.archive WHERE name = $1 AND state = 'completed'`,
      [CHANNEL_POSTS_QUEUE],
    );
    return new Set(rows.map((row) => row.key));
  } finally {
    await client.end();
  }
}

/** The whole test, on one SQLite file or on a PostgreSQL database of its own. */
export function describeTwoCopies(database: 'sqlite' | 'postgres'): void {
  const signingSecret = randomBytes(12).toString('hex');
  const botToken = `xoxb-test-${randomBytes(8).toString('hex')}`;
  const encryptionKey = randomBytes(32).toString('base64');
  const dir = mkdtempSync(join(tmpdir(), 'tenderbot-two-copies-'));

  let sandbox: TestSandbox;
  let slack: FakeSlack;
  let gate: ServiceGate;
  let nginx: RunningNginx;
  let service: ProcurementClient;
  let databaseUrl = `sqlite:${join(dir, 'bot.db')}`;
  let postgres: TestDatabase | null = null;
  let store: BotStore;
  interface Copy {
    name: string;
    address: string;
    /** Its scheduler's name, as its leases on channel posts carry it. */
    owner: string;
    process: StartedProcess<{ port: number; owner: string }>;
    exited: Promise<number | null> | null;
  }
  const copies: Copy[] = [];

  /** A copy of the app as its own process (`tenderbot bot`), on the shared database. */
  async function startCopy(name: string, serviceUrl: string): Promise<Copy> {
    const process_ = await startTenderbot(
      ['bot'],
      (output) => {
        const line = output.split('\n').find((candidate) => candidate.includes('tenderbot is running'));
        if (!line) return null;
        const running = JSON.parse(line) as { port: number; owner: string };
        return { port: running.port, owner: running.owner };
      },
      {
        PATH: process.env.PATH,
        SLACK_BOT_TOKEN: botToken,
        SLACK_SIGNING_SECRET: signingSecret,
        SLACK_API_URL: slack.apiUrl,
        PROCUREMENT_API_URL: serviceUrl,
        PROCUREMENT_API_KEY: KEYS.carolMemberAcme,
        DATABASE_URL: databaseUrl,
        ENCRYPTION_KEY: encryptionKey,
        LOG_LEVEL: 'info',
        PORT: '0',
      },
    );
    return {
      name,
      address: `127.0.0.1:${process_.found.port}`,
      owner: process_.found.owner,
      process: process_,
      exited: null,
    };
  }

  /** Tenders only this run's searches find: five per person, titled with their word. */
  async function importTenders(): Promise<void> {
    const file = join(dir, 'two-copies.jsonl');
    const lines: string[] = [];
    for (let index = 0; index <= WORKERS; index++)
      for (let item = 0; item < 5; item++) {
        const ocid = `ocds-${RUN}-${index}-${item}`;
        lines.push(
          JSON.stringify({
            ocid,
            id: `r-${ocid}`,
            date: '2030-01-01T00:00:00Z',
            tag: ['tender'],
            initiationType: 'tender',
            buyer: { id: 'b', name: 'Salford City Council' },
            parties: [{ id: 'b', name: 'Salford City Council', roles: ['buyer'] }],
            tender: {
              id: `T-${ocid}`,
              title: `Grounds upkeep ${worker(index).word} lot ${item}`,
              status: 'active',
            },
          }),
        );
      }
    writeFileSync(file, `${lines.join('\n')}\n`);
    await importOcdsFiles(sandbox.db, [file]);
  }

  let subscriptionCount = 0;
  /** Pipeline summaries due at `at` (made as `/tender subscribe` makes them), spread over the channels. */
  async function dueSubscriptions(count: number, at: Date): Promise<Subscription[]> {
    const made: Subscription[] = [];
    for (let index = 0; index < count; index++) {
      const subscription: Subscription = {
        id: `s-${RUN.slice(0, 3)}${++subscriptionCount}`,
        teamId: slack.teamId,
        channelId: SUBSCRIPTION_CHANNELS[index % SUBSCRIPTION_CHANNELS.length] as string,
        kind: 'pipeline',
        target: JSON.stringify({ p: 'pl-bob', n: 'Bob’s hospital cleaning bid' }),
        cadence: 'daily',
        localTime: '09:00',
        timeZone: 'UTC',
        createdBy: 'U0ADMIN',
        createdAt: new Date(),
        pausedReason: null,
        nextRunAt: at,
        cursor: null,
        skippedCount: 0,
      };
      if (!(await store.createSubscription(subscription))) throw new Error(`${subscription.id} not made`);
      made.push(subscription);
    }
    return made;
  }

  function refusesConnections(address: string): Promise<boolean> {
    const [host, port] = address.split(':');
    return new Promise((resolve) => {
      const socket = connect(Number(port), host as string);
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', () => resolve(true));
    });
  }

  /** GET /healthz through nginx. */
  async function health(): Promise<{ status: number; body: unknown }> {
    const answer = await request(`${nginx.url}/healthz`);
    return { status: answer.statusCode, body: await answer.body.json() };
  }

  /** Waits until `check` resolves true (every 50 ms, up to WAIT_MS). */
  async function until(check: () => Promise<boolean>, what: string): Promise<void> {
    const started = Date.now();
    while (!(await check())) {
      if (Date.now() - started > WAIT_MS) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  beforeAll(async () => {
    if (database === 'postgres') {
      postgres = await createTestDatabase('scale_two_copies');
      databaseUrl = postgres.url;
    }
    store = openBotStore(databaseUrl);
    sandbox = await startTestSandbox({ dir });
    await importTenders();
    slack = await new FakeSlack({
      signingSecret,
      botToken,
      users: USERS,
      channels: [
        ...Array.from({ length: WORKERS + 1 }, (_, index) => ({
          id: worker(index).channel,
          name: `w${index}`,
        })),
        ...SUBSCRIPTION_CHANNELS.map((id) => ({ id, name: id.slice(2).toLowerCase() })),
      ],
    }).start();
    // The first copy reaches the service through a gate that can hold its writes.
    gate = await startServiceGate(
      sandbox.baseUrl,
      (method, url) =>
        (method === 'POST' && (url.startsWith('/v1/comments') || url.startsWith('/v1/pipelines'))) ||
        // The search typed straight to the first copy as it is told to stop.
        (method === 'GET' && url.startsWith('/v1/tenders') && url.includes(worker(WORKERS).word)),
    );
    copies.push(await startCopy('first', gate.url), await startCopy('second', sandbox.baseUrl));
    nginx = await startNginx(copies.map((copy) => copy.address));
    slack.appUrl = `${nginx.url}/slack/events`;
    service = new ProcurementClient({ baseUrl: sandbox.baseUrl, apiKey: KEYS.carolMemberAcme });
  }, 90_000);

  afterAll(async () => {
    for (const copy of copies) if (!copy.exited) await copy.process.stop();
    await nginx?.stop();
    await gate?.stop();
    await service?.close();
    await slack?.stop();
    await sandbox?.stop();
    await store?.close();
    await postgres?.drop();
  });

  // biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON as the fake Slack keeps it.
  type Element = any;
  const actionIds = (message: FakeMessage): string[] =>
    message.blocks.flatMap((block: Element) =>
      [...(block.elements ?? []), block.accessory]
        .filter(Boolean)
        .map((element: Element) => element.action_id),
    );
  const count = (items: string[], wanted: string) => items.filter((item) => item === wanted).length;
  const buttonValue = (message: FakeMessage, actionId: string): string =>
    message.blocks
      .flatMap((block: Element) => block.elements ?? [])
      .find((element: Element) => element.action_id === actionId)?.value;

  /** Every request the stream sent through nginx, and its answer. */
  const sent: { what: string; status: number }[] = [];
  /** Set once the first copy has been sent SIGTERM. */
  let stopping = false;
  let onSent: () => void = () => undefined;
  /** Submissions answered "posting…" while the first copy's write was held (its work goes on after the answer). */
  let answeredWhileHeld = 0;
  async function send(what: string, request: Promise<AppAnswer | null>): Promise<AppAnswer> {
    const answer = await request;
    if (!answer) throw new Error(`${what}: no request was sent`);
    sent.push({ what, status: answer.status });
    if (stopping) sentAfterStop++;
    if (gate.held > 0 && answer.json?.response_action === 'update') answeredWhileHeld++;
    onSent();
    if (answer.status !== 200) throw new Error(`${what} answered ${answer.status}: ${answer.text}`);
    return answer;
  }

  interface Made {
    comments: { tenderId: string; body: string }[];
    bids: { name: string; channel: string }[];
    bookmarked: string[];
  }

  /** Opens once the first copy has been told to stop: half the people wait there, mid-stream. */
  let stopSent: () => void = () => undefined;
  const stopWasSent = new Promise<void>((resolve) => {
    stopSent = resolve;
  });
  /** People waiting there. */
  let waitingForStop = 0;
  /** Requests sent once the first copy had been told to stop. */
  let sentAfterStop = 0;

  /**
   * One person's rounds: search, bookmark the next card, comment on the first, start a bid from it.
   * Every other person waits after two rounds until the first copy has been told to stop, so the
   * stream goes on through the stop whatever the machine's speed.
   */
  async function work(index: number, made: Made): Promise<void> {
    const { user, channel, word } = worker(index);
    for (let round = 0; round < ROUNDS; round++) {
      if (index % 2 === 0 && round === 2) {
        waitingForStop++;
        await stopWasSent;
      }
      const before = slack.messagesIn(channel, user).length;
      await send(`search ${index}/${round}`, slack.slashCommand(user, channel, '/tender', `search ${word}`));
      // A slow answer is first "still looking", then replaced by the results in place.
      const results = await eventually(
        () =>
          slack
            .messagesIn(channel, user)
            .slice(before)
            .find((message) => message.ephemeralTo === user && actionIds(message).includes('comment/open')),
        `the results of search ${index}/${round}`,
        WAIT_MS,
      );

      // Bookmark: the first card not bookmarked yet; the message is redrawn with one more "Remove".
      const removable = count(actionIds(results), 'tender/remove_bookmark');
      const bookmarkValue = buttonValue(results, 'tender/bookmark');
      expect(bookmarkValue, `a card to bookmark in round ${round}`).toBeTruthy();
      await send(`bookmark ${index}/${round}`, slack.clickInMessage(user, results, 'tender/bookmark'));
      await eventually(
        () => count(actionIds(results), 'tender/remove_bookmark') === removable + 1,
        `the bookmark ${index}/${round} shown`,
        WAIT_MS,
      );
      made.bookmarked.push(bookmarkValue);

      // Comment on the first card through its modal.
      const commentTarget = JSON.parse(buttonValue(results, 'comment/open') ?? 'null') as { id: string };
      const modalsBefore = new Set(slack.openModals(user).map((view) => view.id));
      await send(`comment/open ${index}/${round}`, slack.clickInMessage(user, results, 'comment/open'));
      const commentModal = await eventually(
        () =>
          slack
            .openModals(user)
            .find(
              (view) =>
                !modalsBefore.has(view.id) &&
                view.view.callback_id === 'comment/submit' &&
                !JSON.stringify(view.view).includes('Loading'),
            ),
        `the comment modal ${index}/${round}`,
        WAIT_MS,
      );
      const body = `${word} comment ${round}`;
      const postedBefore = slack
        .messagesIn(channel, user)
        .filter((message) => message.text.startsWith('Your comment on')).length;
      const commentAnswer = await send(
        `comment ${index}/${round}`,
        slack.submitView(user, commentModal.id, { 'comment/text': body }),
      );
      // Closed at once, or "posting…" in the modal when the service is slow: never an error.
      expect([null, 'update']).toContain(commentAnswer.json?.response_action ?? null);
      await eventually(
        () =>
          slack.messagesIn(channel, user).filter((message) => message.text.startsWith('Your comment on'))
            .length ===
          postedBefore + 1,
        `comment ${index}/${round} said to be posted`,
        WAIT_MS,
      );
      made.comments.push({ tenderId: commentTarget.id, body });

      // Start a bid from the first card.
      const formsBefore = new Set(slack.openModals(user).map((view) => view.id));
      await send(`start bid ${index}/${round}`, slack.clickInMessage(user, results, 'pipeline/start_bid'));
      const form = await eventually(
        () =>
          slack
            .openModals(user)
            .find(
              (view) =>
                !formsBefore.has(view.id) && JSON.stringify(view.view.blocks).includes('pipeline/stages'),
            ),
        `the start-a-bid form ${index}/${round}`,
        WAIT_MS,
      );
      const name = `Bid ${word} ${round}`;
      const bidAnswer = await send(
        `bid ${index}/${round}`,
        slack.submitView(user, form.id, {
          'pipeline/name': name,
          'pipeline/summary': `Round ${round}`,
          'pipeline/target': '2031-03-01',
          'pipeline/stages': 'Qualify | 2\nDraft | 5',
        }),
      );
      expect([null, 'update']).toContain(bidAnswer.json?.response_action ?? null);
      await eventually(
        () =>
          slack
            .messagesIn(channel)
            .find((message) => message.ephemeralTo === null && message.text.startsWith(name)),
        `the card of ${name}`,
        WAIT_MS,
      );
      made.bids.push({ name, channel });
    }
  }

  describe(`two copies behind nginx on ${database === 'postgres' ? 'PostgreSQL' : 'one SQLite file'}, one stopped in the middle of a stream`, () => {
    it('answers every request, makes every creation once, posts every due subscription once', async () => {
      const [first, second] = copies as [Copy, Copy];
      const made: Made = { comments: [], bids: [], bookmarked: [] };
      // The health check through nginx, before and after the stop: whichever copy answers, the database is up.
      expect(await health()).toEqual({ status: 200, body: { ok: true, database: 'up' } });
      const subscriptions = await dueSubscriptions(DUE_AT_START, new Date());
      // A comment modal, open before the stream, submitted straight to the first copy at the stop.
      const stopper = worker(WORKERS);
      await slack.slashCommand(stopper.user, stopper.channel, '/tender', `search ${stopper.word}`);
      const stopperResults = await eventually(
        () =>
          slack
            .messagesIn(stopper.channel, stopper.user)
            .find((message) => actionIds(message).includes('comment/open')),
        'the stopper’s search',
        WAIT_MS,
      );
      await slack.clickInMessage(stopper.user, stopperResults, 'comment/open');
      const stopperModal = await eventually(
        () =>
          slack
            .openModals(stopper.user)
            .find(
              (view) =>
                view.view.callback_id === 'comment/submit' && !JSON.stringify(view.view).includes('Loading'),
            ),
        'the stopper’s comment modal',
        WAIT_MS,
      );
      const stopperComment = {
        tenderId: (JSON.parse(buttonValue(stopperResults, 'comment/open')) as { id: string }).id,
        body: `${stopper.word} in flight at the stop`,
      };
      let inFlightAtStop: Promise<AppAnswer> | null = null;
      const searchesBeforeStop = 0;

      // A quarter into the stream the first copy's writes to the service are held; once it has
      // answered a submission ("posting…": the rest of its work comes after the answer) and channel
      // posts have fallen due and been claimed, it is told to stop, and the people waiting go on.
      let stopped: Promise<void> | null = null;
      const stop = async () => {
        gate.holding = true;
        await eventually(
          () => gate.held > 0 && answeredWhileHeld > 0,
          'the first copy writing to the service after answering',
          WAIT_MS,
        );
        const dueAtStop = await dueSubscriptions(DUE_AT_STOP, new Date());
        subscriptions.push(...dueAtStop);
        await until(async () => {
          for (const subscription of dueAtStop)
            if (
              (await store.subscriptionDeliveries(subscription.id)).some(
                (delivery) => delivery.state === 'working',
              )
            )
              return true;
          return false;
        }, 'a channel post due at the stop claimed');
        // A submission the first copy is still working on (its write held) when it is told to stop.
        const heldBefore = gate.heldEver;
        slack.appUrl = `http://${first.address}/slack/events`;
        inFlightAtStop = slack.submitView(stopper.user, stopperModal.id, {
          'comment/text': stopperComment.body,
        });
        slack.appUrl = `${nginx.url}/slack/events`;
        await eventually(
          () => gate.held > heldBefore,
          'the submission sent to the first copy writing',
          WAIT_MS,
        );
        // The people waiting go on, and once a few of their requests are answered (the work after
        // those answers, such as filling a modal, likely still under way) the copy is told to stop.
        stopping = true;
        stopSent();
        // (Each of them first searches, which nothing holds; someone not waiting may be held.)
        const answeredBefore = sent.length;
        const resumed = waitingForStop;
        await eventually(() => sent.length >= answeredBefore + resumed, 'the stream going on', WAIT_MS);
        first.exited = first.process.stop();
        // It stops taking connections at once, and finishes the writes it holds after that.
        await until(() => refusesConnections(first.address), 'the first copy refusing connections');
        const heldAtStop = gate.held;
        gate.release();
        expect(await first.exited).toBe(0);
        expect(gate.released).toBeGreaterThanOrEqual(heldAtStop);
        // Whatever channel post it had claimed, it posted or gave back: none is left in its name
        // (a copy that died would leave them until its lease ran out).
        expect(await leasedTo(first.owner)).toEqual([]);
      };
      /** The channel posts in progress under `owner`'s lease. */
      const leasedTo = async (owner: string) =>
        (
          await Promise.all(
            subscriptions.map((subscription) => store.subscriptionDeliveries(subscription.id)),
          )
        )
          .flat()
          .filter((delivery) => delivery.state === 'working' && delivery.leaseOwner === owner);

      onSent = () => {
        if (!stopped && sent.length >= REQUESTS / 4) stopped = stop();
      };
      await Promise.all(Array.from({ length: WORKERS }, (_, index) => work(index, made)));
      expect(stopped).not.toBeNull();
      await stopped;
      expect(sentAfterStop).toBeGreaterThanOrEqual((WORKERS / 2) * (ROUNDS - 2) * 6);
      // The submission it was working on when told to stop was answered, and its work finished.
      expect((await (inFlightAtStop as unknown as Promise<AppAnswer>)).status).toBe(200);
      await eventually(
        () =>
          slack
            .messagesIn(stopper.channel, stopper.user)
            .find((message) => message.text.startsWith('Your comment on')),
        'the comment submitted at the stop said to be posted',
        WAIT_MS,
      );
      made.comments.push(stopperComment);
      await eventually(
        () =>
          slack
            .messagesIn(stopper.channel, stopper.user)
            .slice(searchesBeforeStop)
            .find(
              (message) =>
                actionIds(message).includes('tender/bookmark') ||
                actionIds(message).includes('tender/remove_bookmark'),
            ),
        'the results of the search answered before the stop and looked up after it',
        WAIT_MS,
      );

      // Every request was answered 200, through nginx, by one copy or the other.
      expect(sent).toHaveLength(REQUESTS);
      expect(sent.filter((request) => request.status !== 200)).toEqual([]);
      expect(await health()).toEqual({ status: 200, body: { ok: true, database: 'up' } });
      const lines = nginx
        .accessLog()
        .map(parseAccessLine)
        .filter((line) => line.uri === '/slack/events');
      expect(lines.filter((line) => line.status !== 200)).toEqual([]);
      const servedBy = (copy: Copy) => lines.filter((line) => line.upstreams.at(-1) === copy.address).length;
      expect(servedBy(first)).toBeGreaterThan(0);
      expect(servedBy(second)).toBeGreaterThan(0);
      // The stream, and the stopper's search and click.
      expect(servedBy(first) + servedBy(second)).toBe(REQUESTS + 2);
      expect(first.process.output()).toContain('"msg":"stopped"');

      // Every creation made once in the service.
      for (const { tenderId, body } of made.comments) {
        const thread = await service.comments.list({ entityType: 'tender', entityId: tenderId, limit: 100 });
        expect(
          thread.data.filter((comment) => comment.body === body),
          body,
        ).toHaveLength(1);
      }
      const bids = await service.pipelines.list({ q: RUN, archived: 'all', limit: 100 });
      for (const { name, channel } of made.bids) {
        expect(
          bids.data.filter((pipeline) => pipeline.name === name),
          name,
        ).toHaveLength(1);
        const cards = slack
          .messagesIn(channel)
          .filter(
            (message) =>
              message.ephemeralTo === null && message.threadTs === null && message.text.startsWith(name),
          );
        expect(cards, `the cards of ${name}`).toHaveLength(1);
      }
      expect(made.bids).toHaveLength(WORKERS * ROUNDS);
      const bookmarks = await service.bookmarks.list({ limit: 100 });
      const bookmarkedIds = new Set(bookmarks.data.map((bookmark) => bookmark.tenderId));
      for (const value of made.bookmarked) {
        const tenderId = JSON.parse(value).t as string;
        expect(bookmarkedIds.has(tenderId), tenderId).toBe(true);
      }

      // Every subscription due during the stream posted once, by one copy or the other.
      const postsOf = (subscription: Subscription) =>
        slack
          .messagesIn(subscription.channelId)
          .filter(
            (message) =>
              message.ephemeralTo === null &&
              message.metadata?.event_payload?.subscription_id === subscription.id,
          );
      const states = async () =>
        (
          await Promise.all(
            subscriptions.map((subscription) => store.subscriptionDeliveries(subscription.id)),
          )
        )
          .flat()
          .map((delivery) => delivery.state);
      // Recorded as sent (a copy records a post after Slack answers it), none left half done.
      await until(
        async () => (await states()).filter((state) => state === 'sent').length === subscriptions.length,
        'every due subscription posted and recorded',
      ).catch(async (error) => {
        const left = await Promise.all(
          subscriptions.map((subscription) => store.subscriptionDeliveries(subscription.id)),
        );
        throw new Error(
          `${(error as Error).message}: ${JSON.stringify(left.flat().filter((delivery) => delivery.state !== 'sent'))}`,
        );
      });
      for (const subscription of subscriptions) {
        const posts = postsOf(subscription);
        expect(posts, subscription.id).toHaveLength(1);
        const deliveries = await store.subscriptionDeliveries(subscription.id);
        expect(deliveries.map((delivery) => delivery.state)).toEqual(['sent']);
        expect(posts[0]?.metadata?.event_payload?.delivery_id).toBe(deliveries[0]?.id);
      }
      if (postgres) {
        const { url } = postgres;
        // On PostgreSQL the copies took their turns through pg-boss: a job for each channel's turn
        // (its first delivery, the rest of its run with it), completed. A copy completes the jobs
        // it is done with on its next claim (one statement for many): at most a poll after the last post.
        const deliveries = await Promise.all(
          subscriptions.map(async (subscription) => ({
            channel: subscription.channelId,
            id: (await store.subscriptionDeliveries(subscription.id))[0]?.id as string,
          })),
        );
        const channels = [...new Set(deliveries.map((delivery) => delivery.channel))];
        const turnTaken = (completed: Set<string>, channel: string) =>
          deliveries.some((delivery) => delivery.channel === channel && completed.has(delivery.id));
        await until(async () => {
          const completed = await completedJobsOf(url);
          return channels.every((channel) => turnTaken(completed, channel));
        }, 'every channel’s pg-boss job completed').catch(() => undefined);
        const jobs = await completedJobsOf(postgres.url);
        for (const channel of channels)
          expect(turnTaken(jobs, channel), `a pg-boss job for ${channel}`).toBe(true);
      }

      // The second copy stops as gracefully.
      second.exited = second.process.stop();
      expect(await second.exited).toBe(0);
    }, 180_000);
  });
}
