import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { FromChild, ToChild } from './bot-child.ts';

const ROOT = resolve(import.meta.dirname, '../../../..');
const ENTRY = resolve(import.meta.dirname, 'bot-child.ts');

/** A copy of the app in its own OS process (bot-child.ts), driven over IPC. */
export interface BotChild {
  pid: number;
  /** Sets the copy's clock; resolves once it has. */
  setClock(now: number): Promise<void>;
  /** Starts one scheduler pass; resolves once it has started (the pass may never end). */
  startPass(): Promise<void>;
  /** Whether the process is still running. */
  alive(): boolean;
  /** Kills the process with SIGKILL; resolves with the signal it died of. */
  kill(): Promise<NodeJS.Signals | null>;
  /** Everything it has written, standard output and error together. */
  output(): string;
}

/**
 * Starts bot-child.ts with `environment` (Harness.childEnvironment) and resolves once it prints
 * "ready"; fails, with its output, if it exits first or is not ready within 60 s (tsx and Bolt
 * load slowly on a busy machine).
 */
export function startBotChild(environment: Record<string, string>): Promise<BotChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY], {
    cwd: ROOT,
    env: { ...process.env, ...environment },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  const append = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<NodeJS.Signals | null>((resolveExit) =>
    child.once('exit', (_code, signal) => resolveExit(signal)),
  );
  const alive = () => child.exitCode === null && child.signalCode === null;

  return new Promise((resolveStarted, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`the app's child process was not ready within 60 s:\n${output}`));
    }, 60_000);
    const exitedEarly = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      fail(new Error(`the app's child process exited (${code ?? signal}) before it was ready:\n${output}`));
    };
    const watch = () => {
      if (!output.includes('ready\n')) return;
      clearTimeout(timer);
      child.stdout?.off('data', watch);
      child.off('exit', exitedEarly);
      resolveStarted({
        pid: child.pid as number,
        setClock: async (now) => {
          await ask(
            child,
            { now },
            (answer) => 'clock' in answer && answer.clock === now,
            () => output,
          );
        },
        startPass: async () => {
          await ask(
            child,
            { run: true },
            (answer) => 'running' in answer,
            () => output,
          );
        },
        alive,
        kill: async () => {
          if (alive()) child.kill('SIGKILL');
          return exited;
        },
        output: () => output,
      });
    };
    child.stdout?.on('data', watch);
    child.once('exit', exitedEarly);
  });
}

/** Sends `message` and resolves with the first answer `expected` accepts (or fails if the child dies or takes 20 s). */
function ask(
  child: ChildProcess,
  message: ToChild,
  expected: (answer: FromChild) => boolean,
  output: () => string,
): Promise<FromChild> {
  return new Promise((resolveAnswer, fail) => {
    const done = (error: Error | null, answer?: FromChild) => {
      clearTimeout(timer);
      child.off('message', listen);
      child.off('exit', died);
      if (error) fail(error);
      else resolveAnswer(answer as FromChild);
    };
    const listen = (answer: FromChild) => {
      if ('failed' in answer) done(new Error(`the app's child process failed: ${answer.failed}`));
      else if (expected(answer)) done(null, answer);
    };
    const died = () =>
      done(new Error(`the app's child process died on ${JSON.stringify(message)}:\n${output()}`));
    const timer = setTimeout(
      () => done(new Error(`the app's child process did not answer ${JSON.stringify(message)} within 20 s`)),
      20_000,
    );
    child.on('message', listen);
    child.once('exit', died);
    child.send(message);
  });
}
