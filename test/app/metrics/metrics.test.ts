import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS } from '../../support/fixture.ts';
import { dueSubscription, Harness, type Instance } from '../delivery/harness.ts';

// The real app (composeBot, the guarded receiver, Bolt) on the local service and the fake Slack:
// a command, its answer and a channel post each move the series GET /metrics shows.
const harness = new Harness('2027-03-01T08:00:00Z', mkdtempSync(join(tmpdir(), 'tenderbot-metrics-')));
let app: Instance;
let metricsUrl: string;

beforeAll(async () => {
  await harness.start();
  app = await harness.instance('A');
  metricsUrl = app.url.replace('/slack/events', '/metrics');
}, 60_000);

afterAll(async () => {
  await app?.stop();
  await harness.stop();
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus' text format, the sample lines only (`name{a="b",...} value`). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1] as string] = pair[2] as string;
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

async function scrape(): Promise<{ text: string; contentType: string; samples: Sample[] }> {
  const answer = await request(metricsUrl);
  const text = await answer.body.text();
  expect(answer.statusCode).toBe(200);
  return { text, contentType: String(answer.headers['content-type']), samples: parse(text) };
}

/** The value of one series (0 when it has no sample yet, as Prometheus reads a missing counter). */
function seriesValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.find(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  return found?.value ?? 0;
}

/** Scrapes until `moved` holds (an answer is counted once its listener returns, after Slack shows it). */
async function scrapeUntil(moved: (samples: Sample[]) => boolean, what: string): Promise<Sample[]> {
  const started = Date.now();
  for (;;) {
    const { samples } = await scrape();
    if (moved(samples)) return samples;
    if (Date.now() - started > 8000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('GET /metrics', () => {
  it('answers in Prometheus’ text format, every series labelled with this copy, process metrics included', async () => {
    const { contentType, samples } = await scrape();
    expect(contentType).toContain('text/plain');
    expect(samples.length).toBeGreaterThan(0);
    const copy = app.bot.metrics.copy;
    expect(copy).toMatch(/-\d+$/);
    expect(samples.every((sample) => sample.labels.copy === copy)).toBe(true);
    expect(samples.some((sample) => sample.name === 'process_cpu_user_seconds_total')).toBe(true);
    expect(samples.some((sample) => sample.name === 'nodejs_eventloop_lag_seconds')).toBe(true);
  });

  it('counts a slash command’s acknowledgement, its answer and the service call it made', async () => {
    const before = (await scrape()).samples;
    const command = { kind: 'command' };
    const answer = await harness.command('U0MEMBER', 'C0GENERAL', 'search cleaning');
    expect(answer.text.length).toBeGreaterThan(0);
    const after = await scrapeUntil(
      (samples) =>
        seriesValue(samples, 'tenderbot_answer_seconds_count', command) >
        seriesValue(before, 'tenderbot_answer_seconds_count', command),
      'the answer to be counted',
    );
    const moved = (name: string, labels: Record<string, string>) =>
      seriesValue(after, name, labels) - seriesValue(before, name, labels);
    expect(moved('tenderbot_acknowledgement_seconds_count', command)).toBe(1);
    expect(moved('tenderbot_answer_seconds_count', command)).toBe(1);
    // Acknowledged well inside Slack's 3 s (the 3 s bucket holds it).
    expect(moved('tenderbot_acknowledgement_seconds_bucket', { kind: 'command', le: '3' })).toBe(1);
    // No other kind of request moved.
    expect(moved('tenderbot_acknowledgement_seconds_count', { kind: 'action' })).toBe(0);
    // The search asked the service for tenders, and the call succeeded.
    const search = { endpoint: 'tenders.search' };
    expect(moved('tenderbot_service_call_seconds_count', search)).toBeGreaterThanOrEqual(1);
    expect(moved('tenderbot_service_call_errors_total', search)).toBe(0);
    // Nothing is being answered any more.
    expect(seriesValue(after, 'tenderbot_answers_in_flight')).toBe(0);
  });

  it('counts a channel post: due, planned, posted, finished as sent; a 429 from Slack by method', async () => {
    const subscription = await dueSubscription(harness, app.store, 'C0BIDS');
    const before = (await scrape()).samples;
    // Planned (not yet claimed): the scrape finds it due.
    expect(await app.bot.scheduler.plan(harness.clock())).toBe(1);
    const planned = (await scrape()).samples;
    expect(seriesValue(planned, 'tenderbot_deliveries_due')).toBe(1);
    expect(
      seriesValue(planned, 'tenderbot_deliveries_planned_total') -
        seriesValue(before, 'tenderbot_deliveries_planned_total'),
    ).toBe(1);

    // Slack refuses the first try with a 429; the post goes out once its Retry-After has passed.
    harness.slack.failNext('chat.postMessage', { kind: 'ratelimit', retryAfterSeconds: 2, times: 1 });
    await app.bot.scheduler.runDue();
    expect(harness.postsOf('C0BIDS', subscription.id)).toHaveLength(0);
    harness.now += 2000;
    await app.bot.scheduler.runDue();
    const posts = harness.postsOf('C0BIDS', subscription.id);
    expect(posts.length).toBeGreaterThanOrEqual(1);

    const after = (await scrape()).samples;
    const moved = (name: string, labels: Record<string, string> = {}) =>
      seriesValue(after, name, labels) - seriesValue(before, name, labels);
    expect(moved('tenderbot_slack_rate_limited_total', { method: 'chat.postMessage' })).toBe(1);
    expect(moved('tenderbot_channel_posts_total')).toBe(posts.length);
    expect(moved('tenderbot_channel_post_lateness_seconds_count')).toBe(posts.length);
    // Two seconds late (the Retry-After): not late by the minute the late counter uses.
    expect(moved('tenderbot_channel_posts_late_total')).toBe(0);
    expect(moved('tenderbot_deliveries_finished_total', { state: 'sent' })).toBe(1);
    expect(moved('tenderbot_deliveries_finished_total', { state: 'failed' })).toBe(0);
    expect(moved('tenderbot_deliveries_settled_from_history_total', { result: 'found' })).toBe(0);
    expect(seriesValue(after, 'tenderbot_deliveries_due')).toBe(0);
    // The post read the pipeline through the service.
    expect(
      after.some(
        (sample) =>
          sample.name === 'tenderbot_service_call_seconds_count' &&
          sample.labels.endpoint?.startsWith('pipelines.'),
      ),
    ).toBe(true);
  });

  it('names no key, token, workspace, channel or person', async () => {
    const { text } = await scrape();
    expect(text).not.toContain(KEYS.carolMemberAcme);
    expect(text).not.toMatch(/xox[bp]-/);
    expect(text).not.toContain(harness.slack.teamId);
    expect(text).not.toContain('C0BIDS');
    expect(text).not.toContain('U0MEMBER');
  });
});
