import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_WORKER_NICENESS } from '../../../src/app/receiver/answer-worker-settings.ts';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
import { FakeSlack, type FakeUser } from '../../../src/fake-slack/fake-slack.ts';
import { type ServiceGate, startServiceGate } from '../../deploy/support/service-gate.ts';
import { eventually } from '../../support/bot.ts';
import { KEYS } from '../../support/fixture.ts';
import { createTestDatabase } from '../../support/postgres.ts';
import { type StartedProcess, startTenderbot } from '../../support/process.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

// ANSWER_WORKERS (src/app/receiver/answer-workers.ts): real `tenderbot bot` processes whose
// receiver checks, stores and acknowledges each `/tender` command, and worker processes beside it
// (at a lower priority) that answer. A command acknowledged is answered, once, whichever process
// dies: the worker mid-answer, or the whole copy.

const signingSecret = randomBytes(12).toString('hex');
const botToken = `xoxb-test-${randomBytes(8).toString('hex')}`;
/** One key for every copy, as in a deployment: stored commands are sealed with it. */
const encryptionKey = randomBytes(32).toString('base64');
const PEOPLE = 12;
const person = (index: number) => ({ user: `U0P${index}`, channel: `C0P${index}` });
const USERS: FakeUser[] = [
  { id: 'U0ADMIN', name: 'ada', realName: 'Ada Admin', isAdmin: true },
  ...Array.from({ length: PEOPLE }, (_, index) => ({
    id: person(index).user,
    name: `p${index}`,
    realName: `Person ${index}`,
  })),
];
/** Two copies, the service, the workers and vitest share two cores. */
const WAIT_MS = 30_000;

let sandbox: TestSandbox;
let slack: FakeSlack;
/** In front of the service: holds searches while `holding`, so a worker is caught mid-answer. */
let gate: ServiceGate;
const running: StartedProcess<number>[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox();
  slack = await new FakeSlack({
    signingSecret,
    botToken,
    users: USERS,
    channels: Array.from({ length: PEOPLE }, (_, index) => ({
      id: person(index).channel,
      name: `p${index}`,
    })),
  }).start();
  gate = await startServiceGate(
    sandbox.baseUrl,
    (method, url) => method === 'GET' && url.startsWith('/v1/tenders?'),
    20_000,
  );
}, 60_000);

afterAll(async () => {
  for (const copy of running) {
    try {
      process.kill(copy.pid, 'SIGKILL');
    } catch {}
  }
  await gate?.stop();
  await slack?.stop();
  await sandbox?.stop();
});

interface Copy {
  process: StartedProcess<number>;
  /** The pids of the answer workers that have said they are ready, in order. */
  workerPids(): number[];
}

/** `tenderbot bot` with one answer worker, resolved once the worker is ready. */
async function startCopy(databaseUrl: string, more: Record<string, string> = {}): Promise<Copy> {
  const started = await startTenderbot(
    ['bot'],
    (output) => {
      const line = output.split('\n').find((candidate) => candidate.includes('tenderbot is running'));
      return line ? (JSON.parse(line).port as number) : null;
    },
    {
      PATH: process.env.PATH,
      SLACK_BOT_TOKEN: botToken,
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_API_URL: slack.apiUrl,
      PROCUREMENT_API_URL: gate.url,
      PROCUREMENT_API_KEY: KEYS.carolMemberAcme,
      DATABASE_URL: databaseUrl,
      ENCRYPTION_KEY: encryptionKey,
      LOG_LEVEL: 'info',
      PORT: '0',
      ANSWER_WORKERS: '1',
      ...more,
    },
  );
  running.push(started);
  slack.appUrl = `http://127.0.0.1:${started.found}/slack/events`;
  const workerPids = () =>
    started
      .output()
      .split('\n')
      .filter((line) => line.includes('an answer worker is ready'))
      .map((line) => JSON.parse(line).pid as number);
  await eventually(() => workerPids().length > 0, 'an answer worker', WAIT_MS);
  return { process: started, workerPids };
}

/** Answers each person has seen in their channel. */
function answersSeen(index: number): number {
  const { user, channel } = person(index);
  return slack.messagesIn(channel, user).length;
}

/** Sends `/tender search cleaning` as each of `people`, each acknowledged with 200 at once. */
async function searchAsEach(people: number[]): Promise<void> {
  const acks = await Promise.all(
    people.map((index) =>
      slack.slashCommand(person(index).user, person(index).channel, '/tender', 'search cleaning'),
    ),
  );
  expect(acks.map((ack) => ack.status)).toEqual(people.map(() => 200));
}

function niceness(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function queued(databaseUrl: string): Promise<number> {
  const store: BotStore = openBotStore(databaseUrl);
  try {
    return await store.queuedCommandCount();
  } finally {
    await store.close();
  }
}

describe('answer workers', () => {
  it('answer every command in a worker process at a lower priority; each is answered once, and a stop answers what is queued', async () => {
    const databaseUrl = `sqlite:${join(sandbox.dir, 'workers-answer.db')}`;
    const copy = await startCopy(databaseUrl);
    const [workerPid] = copy.workerPids();
    expect(workerPid).toBeDefined();
    // A child of the receiver's process, run at the lower priority.
    expect(parentOf(workerPid as number)).toBe(copy.process.pid);
    expect(niceness(workerPid as number)).toBe(ANSWER_WORKER_NICENESS);

    const everyone = Array.from({ length: PEOPLE }, (_, index) => index);
    await searchAsEach(everyone);
    // On a loaded machine a "the service is slow" notice may come first; the answer replaces it.
    const searched = (index: number) => {
      const [answer] = slack.messagesIn(person(index).channel, person(index).user);
      return JSON.stringify(answer?.blocks ?? []).includes('cleaning');
    };
    await eventually(() => everyone.every(searched), 'every answer', WAIT_MS);
    for (const index of everyone) expect(answersSeen(index)).toBe(1);

    // Odd and huge texts go through the store and the worker like any other: each answered once.
    const odd = [
      `search ${Array.from({ length: 40_000 }, (_, index) => `w${index}`).join(' ')}`,
      'search \u0000\u202e‮ “cleaning” 🧹 \ud800',
      'search',
    ];
    const oddAcks = await Promise.all(
      odd.map((text) => slack.slashCommand(person(11).user, person(11).channel, '/tender', text)),
    );
    expect(oddAcks.map((ack) => ack.status)).toEqual([200, 200, 200]);
    await eventually(() => answersSeen(11) >= 1 + odd.length, 'the odd commands answered', WAIT_MS);
    const oddAnswers = JSON.stringify(slack.messagesIn(person(11).channel, person(11).user));
    // The longest is cut to its first words, whole ones, and searched; none is refused in the service's words.
    expect(oddAnswers).toContain('w50 w51');
    expect(oddAnswers).not.toMatch(/w51 w5[”"]|Too big|<=500/);

    // Held at the service: acknowledged and stored, not answered yet, when the stop comes.
    gate.holding = true;
    await searchAsEach([0, 1, 2]);
    await eventually(() => gate.held === 3, 'three searches held at the service', WAIT_MS);
    const stopped = copy.process.stop();
    await new Promise((resolve) => setTimeout(resolve, 300));
    gate.release();
    expect(await stopped).toBe(0);
    for (const index of everyone)
      expect(answersSeen(index)).toBe(index < 3 ? 2 : index === 11 ? 1 + odd.length : 1);
    expect(isRunning(workerPid as number)).toBe(false);
    expect(await queued(databaseUrl)).toBe(0);
    // The worker, not the receiver, answered them (its own count, logged as it stopped).
    const served = copy.process
      .output()
      .split('\n')
      .filter((line) => line.includes('answer worker stopped'))
      .map((line) => JSON.parse(line).served as number);
    expect(served).toEqual([PEOPLE + 3 + odd.length]);
  }, 90_000);

  it('give what a killed worker held to the next one: every command answered once', async () => {
    const databaseUrl = `sqlite:${join(sandbox.dir, 'workers-killed.db')}`;
    const copy = await startCopy(databaseUrl);
    const [firstWorker] = copy.workerPids();
    const before = Array.from({ length: PEOPLE }, (_, index) => answersSeen(index));
    gate.holding = true;
    const heldBefore = gate.heldEver;
    const caught = [3, 4, 5, 6];
    await searchAsEach(caught);
    await eventually(() => gate.held === caught.length, 'the searches held at the service', WAIT_MS);
    process.kill(firstWorker as number, 'SIGKILL');
    await eventually(() => copy.workerPids().length === 2, 'a new worker', WAIT_MS);
    expect(copy.workerPids()[1]).not.toBe(firstWorker);
    // The dead worker's searches reach the service but nobody is left to answer them; the new
    // worker asks again, and is let through.
    await eventually(
      () => gate.heldEver - heldBefore >= caught.length * 2,
      'the new worker’s searches',
      WAIT_MS,
    );
    gate.release();
    await eventually(
      () => caught.every((index) => answersSeen(index) === (before[index] ?? 0) + 1),
      'the answers',
      WAIT_MS,
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const [index, count] of before.entries())
      expect(answersSeen(index)).toBe(count + (caught.includes(index) ? 1 : 0));
    expect(copy.process.output()).toContain(
      'an answer worker ended while answering; its commands are answered again',
    );
    expect(await copy.process.stop()).toBe(0);
    expect(await queued(databaseUrl)).toBe(0);
  }, 90_000);

  for (const kind of ['SQLite', 'PostgreSQL'] as const) {
    it(`keep what a killed copy acknowledged: the next start answers it, once (${kind})`, async () => {
      const database =
        kind === 'SQLite'
          ? { url: `sqlite:${join(sandbox.dir, 'workers-copy-killed.db')}`, drop: async () => {} }
          : await createTestDatabase('answer_workers');
      try {
        const first = await startCopy(database.url, { ANSWER_LEASE_SECONDS: '5' });
        const [worker] = first.workerPids();
        const before = Array.from({ length: PEOPLE }, (_, index) => answersSeen(index));
        // Answered by the worker as they come…
        await searchAsEach([10]);
        await eventually(() => answersSeen(10) === (before[10] ?? 0) + 1, 'an answer', WAIT_MS);
        // …and held at the service when the whole copy is killed.
        gate.holding = true;
        const caught = [7, 8, 9];
        await searchAsEach(caught);
        await eventually(() => gate.held === caught.length, 'the searches held at the service', WAIT_MS);
        process.kill(worker as number, 'SIGKILL');
        process.kill(first.process.pid, 'SIGKILL');
        await eventually(() => !isRunning(first.process.pid), 'the first copy gone', WAIT_MS);
        gate.release();
        expect(await queued(database.url)).toBe(caught.length);
        if (kind === 'SQLite') {
          // Kept sealed: neither the response_url (a capability) nor Slack's token is readable.
          const raw = new Database(database.url.slice('sqlite:'.length), { readonly: true });
          const bodies = raw.prepare('select body from queued_commands').pluck().all() as string[];
          raw.close();
          expect(bodies).toHaveLength(caught.length);
          for (const body of bodies) expect(body).not.toMatch(/response_url|answers|token|cleaning/);
        }
        const second = await startCopy(database.url, { ANSWER_LEASE_SECONDS: '5' });
        await eventually(
          () => caught.every((index) => answersSeen(index) === (before[index] ?? 0) + 1),
          'the acknowledged commands answered by the next start',
          WAIT_MS,
        );
        for (let tries = 0; (await queued(database.url)) > 0; tries++) {
          if (tries > 100) throw new Error('the queue was not emptied');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        for (const [index, count] of before.entries())
          expect(answersSeen(index)).toBe(count + (caught.includes(index) || index === 10 ? 1 : 0));
        expect(await second.process.stop()).toBe(0);
      } finally {
        await database.drop();
      }
    }, 90_000);
  }

  it('keep a slow answer’s command with its worker however long it takes (its lease renewed): answered once', async () => {
    const databaseUrl = `sqlite:${join(sandbox.dir, 'workers-slow.db')}`;
    const copy = await startCopy(databaseUrl, { ANSWER_LEASE_SECONDS: '5' });
    const before = answersSeen(0);
    gate.holding = true;
    const heldBefore = gate.heldEver;
    await searchAsEach([0]);
    await eventually(() => gate.held === 1, 'the search held at the service', WAIT_MS);
    // Past the lease (5 s), twice over: without renewal the copy would take it again for its worker.
    await new Promise((resolve) => setTimeout(resolve, 9000));
    expect(gate.heldEver - heldBefore).toBe(1);
    gate.release();
    await eventually(() => answersSeen(0) === before + 1, 'the answer', WAIT_MS);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(answersSeen(0)).toBe(before + 1);
    expect(await copy.process.stop()).toBe(0);
    expect(await queued(databaseUrl)).toBe(0);
  }, 90_000);

  it('answer `/tender connect` in the receiver, which opens its modal while the trigger lasts', async () => {
    const databaseUrl = `sqlite:${join(sandbox.dir, 'workers-connect.db')}`;
    const copy = await startCopy(databaseUrl);
    const before = slack.openModals('U0ADMIN').length;
    const ack = await slack.slashCommand('U0ADMIN', person(0).channel, '/tender', 'connect');
    expect(ack.status).toBe(200);
    await eventually(() => slack.openModals('U0ADMIN').length > before, 'the connect modal', WAIT_MS);
    expect(await copy.process.stop()).toBe(0);
    const served = copy.process
      .output()
      .split('\n')
      .filter((line) => line.includes('answer worker stopped'))
      .map((line) => JSON.parse(line).served as number);
    expect(served).toEqual([0]);
  }, 90_000);
});
