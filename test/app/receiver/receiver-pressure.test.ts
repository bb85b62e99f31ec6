import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { WORKER_CONCURRENCY } from '../../../src/app/receiver/answer-worker-settings.ts';
import { AnswerWorkers } from '../../../src/app/receiver/answer-workers.ts';
import {
  ReceiverPressure,
  readThreadTimes,
  type ThreadTimes,
} from '../../../src/app/receiver/receiver-pressure.ts';
import { KeyCipher } from '../../../src/app/security/key-cipher.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';

/** Long enough for a worker process to start on a busy machine. */
const WAIT = { timeout: 15_000, interval: 20 };
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-pressure-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A receiver thread's times that grow with the real clock at the shares the test sets: `ran` of
 * the time running, `waited` of it waiting for a CPU.
 */
function simulatedThread() {
  let at = performance.now();
  const times: ThreadTimes = { ranNs: 0, waitedNs: 0 };
  let workersNs = 0;
  let shares = { ran: 0, waited: 0, workers: 0 };
  const advance = () => {
    const now = performance.now();
    times.ranNs += (now - at) * 1e6 * shares.ran;
    times.waitedNs += (now - at) * 1e6 * shares.waited;
    workersNs += (now - at) * 1e6 * shares.workers;
    at = now;
  };
  return {
    read: (): ThreadTimes => {
      advance();
      return { ...times };
    },
    readWorkers: (): number => {
      advance();
      return workersNs;
    },
    /** The receiver ran `ran` of the time and waited `waited`; the workers ran `workers` of it. */
    set(ran: number, waited: number, workers = 0.6) {
      advance();
      shares = { ran, waited, workers };
    },
  };
}

describe('ReceiverPressure', () => {
  it('reads this thread’s own scheduler times on Linux, growing as it works', () => {
    const first = readThreadTimes();
    if (process.platform !== 'linux') {
      expect(first).toBeNull();
      return;
    }
    expect(first?.ranNs).toBeGreaterThan(0);
    // Work on this thread until the scheduler counts 5 ms more of it (however busy the machine).
    const giveUp = performance.now() + 10_000;
    let now = readThreadTimes();
    while ((now?.ranNs ?? 0) < (first?.ranNs ?? 0) + 5e6 && performance.now() < giveUp)
      now = readThreadTimes();
    expect(now?.ranNs).toBeGreaterThanOrEqual((first?.ranNs ?? 0) + 5e6);
    expect(readThreadTimes(process.pid)?.ranNs).toBeGreaterThanOrEqual(now?.ranNs ?? 0);
    expect(readThreadTimes(2 ** 22 + 1)).toBeNull(); // no such process
  });

  it('is pressed when busy and kept waiting, stays pressed while busy, and ends when the requests slow', () => {
    let clock = 0;
    let times: ThreadTimes = { ranNs: 0, waitedNs: 0 };
    let workersNs = 0;
    const changes: boolean[] = [];
    const pressure = new ReceiverPressure(
      (pressed) => changes.push(pressed),
      { receiver: () => times, workers: () => workersNs },
      250,
      () => clock,
    );
    pressure.start();
    const window = (ran: number, waited: number, ms = 250, workers = 0) => {
      clock += ms;
      times = { ranNs: times.ranNs + ran * ms * 1e6, waitedNs: times.waitedNs + waited * ms * 1e6 };
      workersNs += workers * ms * 1e6;
      pressure.sample();
      return pressure.pressed;
    };
    expect(window(0.9, 0.01)).toBe(false); // busy, nobody in its way (a machine with spare cores)
    expect(window(0.2, 0.3)).toBe(false); // kept waiting, but not busy
    expect(window(0.6, 0.06)).toBe(true); // both
    expect(window(0.95, 0)).toBe(true); // the workers held back: no waiting, still busy
    expect(window(0.55, 0, 1000)).toBe(true); // a late timer: a longer window, same shares
    expect(window(0.1, 0)).toBe(false); // the requests slowed
    expect(changes).toEqual([true, false]);
    // The workers' own share, beside it: busy from a fifth of a core.
    window(0.9, 0.2, 250, 0.1);
    expect(pressure.workersBusy).toBe(false);
    window(0.9, 0.2, 250, 0.25);
    expect(pressure.workersBusy).toBe(true);
    workersNs = 0; // one worker ended: its time leaves the sum, nothing counts as run
    window(0.9, 0.2, 250, 0);
    expect(pressure.workersBusy).toBe(false);
    pressure.stop();
    expect(changes).toEqual([true, false, true, false]);
  });

  it('is never pressed where the system has no scheduler times', () => {
    const changes: boolean[] = [];
    const pressure = new ReceiverPressure(
      (pressed) => changes.push(pressed),
      { receiver: () => null, workers: () => null },
      10,
    );
    pressure.start();
    pressure.sample();
    expect(pressure.workersBusy).toBe(false);
    expect(pressure.pressed).toBe(false);
    expect(changes).toEqual([]);
    pressure.stop();
  });
});

describe('answer workers while the receiver is pressed', () => {
  const cipher = new KeyCipher(Buffer.alloc(32, 7).toString('base64'));
  let sent = 0;
  const command = () => ({
    command: '/tender',
    text: `search cleaning ${sent}`,
    user_id: 'U1',
    team_id: 'T1',
    response_url: `http://127.0.0.1:9/${sent++}`,
  });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** A command as the receiver offers it, with its signed request (each new). */
  const handOff = (workers: AnswerWorkers) =>
    workers.handOff(command(), {
      id: `signature:v0=${sent}`,
      expiresAt: new Date(Date.now() + 360_000),
      now: new Date(),
    });

  /** One worker (support/answering-child.mjs) that answers only once `answerFile` exists. */
  async function started(name: string, holdAtMostMs = 60_000) {
    const copyName = `${name}-${sent}`;
    const store = openBotStore(`sqlite:${join(dir, `${copyName}.db`)}`);
    const thread = simulatedThread();
    const answerFile = join(dir, `${copyName}.answer`);
    const workers = new AnswerWorkers({
      count: 1,
      store,
      logger: pino({ level: 'silent' }),
      script: join(import.meta.dirname, 'support/answering-child.mjs'),
      args: [],
      env: { ANSWER_WHEN: answerFile },
      execArgv: [],
      cipher,
      // No sweep while a test runs: a command stored by one would leave the worker less than full
      // (a busy worker claims at least CLAIM_AT_LEAST at a time); holds end on their own timer.
      sweepMs: 60_000,
      pressureSampleMs: 20,
      holdAtMostMs,
      readThreadTimes: thread.read,
      readWorkersRanNs: thread.readWorkers,
    });
    workers.start();
    // Ready once a command is handed over rather than left to the receiver's own app.
    await vi.waitFor(async () => expect(await handOff(workers)).toBe('handed'), WAIT);
    writeFileSync(answerFile, '');
    await vi.waitFor(async () => expect(await store.queuedCommandCount()).toBe(0), WAIT);
    rmSync(answerFile);
    return {
      store,
      thread,
      workers,
      answer: () => writeFileSync(answerFile, ''),
      /** The worker holds what it is given again (a slow answer each). */
      slow: () => rmSync(answerFile),
      /** The one worker given as many commands as it answers at once, none answered yet. */
      fill: async () => {
        for (let index = 0; index < WORKER_CONCURRENCY; index++) await handOff(workers);
      },
      stop: async () => {
        await workers.stop();
        await store.close();
      },
    };
  }

  it('hold new commands in the store while the answers cannot keep up and the receiver is pressed, until it is not', async () => {
    const copy = await started('held');
    await copy.fill();
    copy.thread.set(0.9, 0.2);
    await sleep(100); // several samples: pressed
    expect(copy.workers.holding).toBe(false); // nothing has had to wait yet
    for (let index = 0; index < 5; index++) expect(await handOff(copy.workers)).toBe('handed');
    expect(copy.workers.holding).toBe(true);
    // The worker answers what it held and then has room, but is given nothing new.
    copy.answer();
    await vi.waitFor(async () => expect(await copy.store.queuedCommandCount()).toBe(5), WAIT);
    await sleep(300);
    expect(await copy.store.queuedCommandCount()).toBe(5);

    copy.thread.set(0.95, 0); // the workers held back no longer keep it waiting: still pressed
    await sleep(200);
    expect(copy.workers.holding).toBe(true);
    expect(await copy.store.queuedCommandCount()).toBe(5);

    copy.thread.set(0.05, 0); // the requests slowed
    await vi.waitFor(async () => expect(await copy.store.queuedCommandCount()).toBe(0), WAIT);
    expect(copy.workers.holding).toBe(false);
    await copy.stop();
  });

  it('hold nothing when the workers are not what keeps the receiver waiting, or ANSWER_HOLD_SECONDS is 0', async () => {
    /** A full worker, the receiver pressed, the workers running `workersShare`: nothing held. */
    const notHeld = async (name: string, holdAtMostMs: number, workersShare: number) => {
      const copy = await started(name, holdAtMostMs);
      await copy.fill();
      copy.thread.set(0.9, 0.2, workersShare);
      await sleep(100);
      for (let index = 0; index < 3; index++) await handOff(copy.workers);
      expect(copy.workers.holding).toBe(false);
      copy.answer();
      await vi.waitFor(async () => expect(await copy.store.queuedCommandCount()).toBe(0), WAIT);
      await copy.stop();
    };
    // Full of answers waiting on a slow service: the workers use next to no CPU.
    await notHeld('idle-workers', 60_000, 0.01);
    await notHeld('never', 0, 0.6);
  });

  it('hold nothing while the answers keep up, however pressed the receiver', async () => {
    const copy = await started('keeping-up');
    copy.answer();
    copy.thread.set(0.9, 0.3);
    await sleep(100);
    // Keeping up: each answered before the next comes (on a starved machine the worker may fall
    // behind by twelve, and then a hold is right).
    for (let index = 0; index < 20; index++) {
      expect(await handOff(copy.workers)).toBe('handed');
      expect(copy.workers.holding).toBe(false);
      await vi.waitFor(async () => expect(await copy.store.queuedCommandCount()).toBe(0), WAIT);
    }
    expect(copy.workers.holding).toBe(false);
    await copy.stop();
  });

  it('keep what is left of the hold through a lull: holds add up to HOLD_AT_MOST_MS until the answers catch up', async () => {
    const copy = await started('lull', 2000);
    await copy.fill();
    copy.thread.set(0.9, 0.2);
    await sleep(100);
    for (let index = 0; index < 3; index++) await handOff(copy.workers);
    expect(copy.workers.holding).toBe(true);
    await sleep(1000);
    // A pause in the requests: the receiver is no longer pressed, answers go on.
    copy.thread.set(0.05, 0);
    await vi.waitFor(() => expect(copy.workers.holding).toBe(false), WAIT);
    // The worker is still full (nothing answered), so the answers have not caught up. The next burst
    // is held again (acknowledgements first), for what is left of the 2 s, not for 2 s more.
    copy.thread.set(0.9, 0.2);
    await sleep(100);
    await handOff(copy.workers);
    expect(copy.workers.holding).toBe(true);
    const heldAgainAt = performance.now();
    await vi.waitFor(() => expect(copy.workers.holding).toBe(false), WAIT);
    expect(performance.now() - heldAgainAt).toBeLessThan(1900);
    expect(await copy.store.queuedCommandCount()).toBeGreaterThanOrEqual(WORKER_CONCURRENCY + 4);
    copy.answer();
    await vi.waitFor(async () => expect(await copy.store.queuedCommandCount()).toBe(0), WAIT);
    await copy.stop();
  });

  it('hold for HOLD_AT_MOST_MS at the longest, and a stop answers what is held', async () => {
    const copy = await started('spent', 400);
    await copy.fill();
    copy.thread.set(0.9, 0.2);
    await sleep(100);
    for (let index = 0; index < 3; index++) await handOff(copy.workers);
    expect(copy.workers.holding).toBe(true);
    const heldAt = performance.now();
    copy.answer();
    await vi.waitFor(async () => expect(await copy.store.queuedCommandCount()).toBe(0), WAIT);
    // Answered once the hold had lasted its longest, though the receiver is pressed still.
    expect(performance.now() - heldAt).toBeGreaterThanOrEqual(300);
    expect(copy.workers.holding).toBe(false);
    // The answers caught up: full again under the same pressure, a new hold begins.
    copy.slow();
    await copy.fill();
    await handOff(copy.workers);
    expect(copy.workers.holding).toBe(true);
    copy.answer();
    await copy.stop();

    const stopping = await started('stop');
    await stopping.fill();
    stopping.thread.set(0.9, 0.2);
    await sleep(100);
    for (let index = 0; index < 3; index++) await handOff(stopping.workers);
    expect(stopping.workers.holding).toBe(true);
    stopping.answer();
    await stopping.workers.stop();
    expect(await stopping.store.queuedCommandCount()).toBe(0);
    await stopping.store.close();
  });
});
