import { hostname } from 'node:os';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** What kind of request Slack sent, as the latency histograms are labelled (a fixed set). */
export type RequestKind =
  | 'command'
  | 'action'
  | 'view_submission'
  | 'view_closed'
  | 'event'
  | 'options'
  | 'shortcut'
  | 'other';

const REQUEST_KINDS: readonly RequestKind[] = [
  'command',
  'action',
  'view_submission',
  'view_closed',
  'event',
  'options',
  'shortcut',
  'other',
];

const KIND_OF_TYPE: Readonly<Record<string, RequestKind>> = {
  block_actions: 'action',
  interactive_message: 'action',
  view_submission: 'view_submission',
  view_closed: 'view_closed',
  event_callback: 'event',
  block_suggestion: 'options',
  shortcut: 'shortcut',
  message_action: 'shortcut',
};

/** The kind of a parsed Slack body (a slash command has `command`, the rest a `type`). */
export function requestKind(body: Record<string, unknown>): RequestKind {
  if (typeof body.command === 'string') return 'command';
  return (typeof body.type === 'string' ? KIND_OF_TYPE[body.type] : undefined) ?? 'other';
}

/** How a finished delivery ended (DeliveryFinish's states). */
export type FinishedState = 'sent' | 'empty' | 'failed';

/** Seconds: Slack wants an acknowledgement within 3; answers take as long as the service. */
const ACK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5];
const ANSWER_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const CALL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** How long after its due time a channel post went out. */
const LATENESS_BUCKETS = [0.1, 0.5, 1, 5, 30, 60, 300, 900, 3600];
/** A post sent more than this after its due time counts as late. */
const LATE_AFTER_SECONDS = 60;
/** Due deliveries counted at most (the gauge says "at least this many" beyond). */
const DUE_COUNT_LIMIT = 10_000;

export interface BotMetricsOptions {
  /** This copy of the app, the `copy` label of every series (hostname and pid by default). */
  copy?: string;
  /** Node's process metrics (CPU, memory, event loop lag, GC); on by default. */
  processMetrics?: boolean;
}

type Child = { observe(value: number): void };
type Increment = { inc(value?: number): void };

/**
 * The app's metrics on a registry of its own (never prom-client's global one, so two apps in one
 * process, or tests, do not share series), served as GET /metrics by the receiver. Every series
 * carries the `copy` label. The label children used per request are made once, here, so a request
 * costs a map lookup and an observe.
 */
export class BotMetrics {
  readonly registry = new Registry();
  readonly copy: string;
  private readonly acks = new Map<RequestKind, Child>();
  private readonly answers = new Map<RequestKind, Child>();
  /** Requests being answered now: a plain number, read at each scrape (a gauge's inc costs more). */
  private answeringNow = 0;
  private readonly planned: Counter;
  private readonly finished = new Map<FinishedState, Increment>();
  private readonly posts: Counter;
  private readonly latePosts: Counter;
  private readonly lateness: Histogram;
  private readonly settled = new Map<'found' | 'absent', Increment>();
  private readonly serviceSeconds: Histogram<'endpoint'>;
  private readonly serviceErrors: Counter<'endpoint'>;
  private readonly rateLimited: Counter<'method'>;
  private readonly endpoints = new Map<string, { seconds: Child; errors: Increment }>();
  private countQueued: (() => Promise<number>) | null = null;
  private countHeld: (() => number) | null = null;
  private countDue: ((limit: number) => Promise<number>) | null = null;

  constructor(options: BotMetricsOptions = {}) {
    this.copy = options.copy ?? `${hostname()}-${process.pid}`;
    const registers = [this.registry];
    this.registry.setDefaultLabels({ copy: this.copy });
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
    const ack = new Histogram({
      name: 'tenderbot_acknowledgement_seconds',
      help: 'From a signed request arriving to Slack being answered 200, by kind of request',
      labelNames: ['kind'],
      buckets: ACK_BUCKETS,
      registers,
    });
    const answer = new Histogram({
      name: 'tenderbot_answer_seconds',
      help: 'From a request arriving to its listener (or answer worker) having answered, by kind of request',
      labelNames: ['kind'],
      buckets: ANSWER_BUCKETS,
      registers,
    });
    for (const kind of REQUEST_KINDS) {
      this.acks.set(kind, ack.labels(kind));
      this.answers.set(kind, answer.labels(kind));
    }
    // Counted at each scrape, from whatever watchAnswers and watchDueDeliveries were given.
    const self = this;
    new Gauge({
      name: 'tenderbot_answers_in_flight',
      help: 'Requests this copy’s app is answering now (acknowledged, listener still running)',
      registers,
      collect() {
        this.set(self.answeringNow);
      },
    });
    new Gauge({
      name: 'tenderbot_answers_queued',
      help: 'Slash commands stored for the answer workers and not yet answered (every copy’s; the store is shared)',
      registers,
      async collect() {
        if (self.countQueued) this.set(await self.countQueued());
      },
    });
    new Gauge({
      name: 'tenderbot_answer_workers_in_flight',
      help: 'Slash commands this copy’s answer workers hold (given to them, not yet answered)',
      registers,
      collect() {
        if (self.countHeld) this.set(self.countHeld());
      },
    });
    new Gauge({
      name: 'tenderbot_deliveries_due',
      help: `Channel posts due and not yet claimed (every copy’s; counted up to ${DUE_COUNT_LIMIT})`,
      registers,
      async collect() {
        if (self.countDue) this.set(await self.countDue(DUE_COUNT_LIMIT));
      },
    });
    this.planned = new Counter({
      name: 'tenderbot_deliveries_planned_total',
      help: 'Channel posts planned by this copy (one per subscription and period)',
      registers,
    });
    const finished = new Counter({
      name: 'tenderbot_deliveries_finished_total',
      help: 'Deliveries this copy finished, by how: sent, empty (nothing to post) or failed',
      labelNames: ['state'],
      registers,
    });
    // Counters start at 0 for each label, so rate() and increase() see their first step.
    for (const state of ['sent', 'empty', 'failed'] as const) {
      const child = finished.labels(state);
      child.inc(0);
      this.finished.set(state, child);
    }
    this.posts = new Counter({
      name: 'tenderbot_channel_posts_total',
      help: 'Messages this copy posted to channels for subscriptions (each part of a delivery)',
      registers,
    });
    this.latePosts = new Counter({
      name: 'tenderbot_channel_posts_late_total',
      help: `Channel posts sent more than ${LATE_AFTER_SECONDS} s after their due time`,
      registers,
    });
    this.lateness = new Histogram({
      name: 'tenderbot_channel_post_lateness_seconds',
      help: 'How long after its due time each channel post was sent',
      buckets: LATENESS_BUCKETS,
      registers,
    });
    const settled = new Counter({
      name: 'tenderbot_deliveries_settled_from_history_total',
      help: 'Posts whose answer was lost, looked for in the channel’s history: found (not posted again) or absent (posted)',
      labelNames: ['result'],
      registers,
    });
    for (const result of ['found', 'absent'] as const) {
      const child = settled.labels(result);
      child.inc(0);
      this.settled.set(result, child);
    }
    this.serviceSeconds = new Histogram({
      name: 'tenderbot_service_call_seconds',
      help: 'Calls to the procurement service by endpoint (client resource and method), retries included',
      labelNames: ['endpoint'],
      buckets: CALL_BUCKETS,
      registers,
    });
    this.serviceErrors = new Counter({
      name: 'tenderbot_service_call_errors_total',
      help: 'Calls to the procurement service that failed, by endpoint',
      labelNames: ['endpoint'],
      registers,
    });
    this.rateLimited = new Counter({
      name: 'tenderbot_slack_rate_limited_total',
      help: 'Answers 429 from Slack’s Web API, by method',
      labelNames: ['method'],
      registers,
    });
  }

  /** The receiver answered Slack for a request that arrived at `startedAt` (performance.now()). */
  acknowledged(kind: RequestKind, startedAt: number): void {
    this.acks.get(kind)?.observe((performance.now() - startedAt) / 1000);
  }

  /** A listener (or an answer worker) finished answering a request that arrived at `startedAt`. */
  answered(kind: RequestKind, startedAt: number): void {
    this.answers.get(kind)?.observe((performance.now() - startedAt) / 1000);
  }

  /** The app started (+1) or finished (-1) answering a request. */
  answering(change: 1 | -1): void {
    this.answeringNow += change;
  }

  /** Where the queued commands and the answer workers' held commands are counted at each scrape. */
  watchAnswers(sources: { queued?: () => Promise<number>; held?: () => number }): void {
    if (sources.queued) this.countQueued = sources.queued;
    if (sources.held) this.countHeld = sources.held;
  }

  /** Where the due deliveries are counted at each scrape (up to `limit`). */
  watchDueDeliveries(count: (limit: number) => Promise<number>): void {
    this.countDue = count;
  }

  deliveriesPlanned(count: number): void {
    if (count > 0) this.planned.inc(count);
  }

  deliveryFinished(state: FinishedState): void {
    this.finished.get(state)?.inc();
  }

  /** A part was posted `lateSeconds` after its delivery's due time. */
  channelPosted(lateSeconds: number): void {
    this.posts.inc();
    const late = Math.max(0, lateSeconds);
    this.lateness.observe(late);
    if (late > LATE_AFTER_SECONDS) this.latePosts.inc();
  }

  settledFromHistory(result: 'found' | 'absent'): void {
    this.settled.get(result)?.inc();
  }

  /** A call to the service (`endpoint`: a client resource and method, a fixed set) took `seconds`. */
  serviceCall(endpoint: string, seconds: number, failed: boolean): void {
    let children = this.endpoints.get(endpoint);
    if (!children) {
      children = {
        seconds: this.serviceSeconds.labels(endpoint),
        errors: this.serviceErrors.labels(endpoint),
      };
      children.errors.inc(0);
      this.endpoints.set(endpoint, children);
    }
    children.seconds.observe(seconds);
    if (failed) children.errors.inc();
  }

  /** Slack answered 429 to a Web API `method` (chat.postMessage, conversations.history...). */
  slackRateLimited(method: string): void {
    this.rateLimited.labels(method).inc();
  }

  /** The text GET /metrics answers, in Prometheus' exposition format. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
