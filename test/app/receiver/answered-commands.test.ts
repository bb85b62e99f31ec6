import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { AnsweredCommands } from '../../../src/app/receiver/answered-commands.ts';

// Answered commands are removed from the store in one write per turn of the event loop, and count
// as stored (their lease renewed) until that write is done.

function recorder(fail = false) {
  const writes: string[][] = [];
  let release: () => void = () => undefined;
  let gate: Promise<void> = Promise.resolve();
  return {
    writes,
    /** The next writes wait until opened. */
    hold() {
      gate = new Promise<void>((resolve) => {
        release = resolve;
      });
    },
    open: () => release(),
    remove: async (ids: readonly string[]) => {
      writes.push([...ids]);
      await gate;
      if (fail) throw new Error('database is locked');
    },
  };
}

describe('AnsweredCommands', () => {
  it('removes the answers of one turn in one write, and those reported during it in the next', async () => {
    const store = recorder();
    const answered = new AnsweredCommands(store.remove, pino({ level: 'silent' }));
    store.hold();
    answered.add('a');
    answered.add('b');
    expect(answered.stored).toEqual(['a', 'b']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.writes).toEqual([['a', 'b']]);
    answered.add('c');
    // Being removed and waiting alike are still stored: their lease must be renewed.
    expect(answered.stored.sort()).toEqual(['a', 'b', 'c']);
    const flushed = answered.flush();
    store.open();
    await flushed;
    expect(store.writes).toEqual([['a', 'b'], ['c']]);
    expect(answered.stored).toEqual([]);
  });

  it('says so when the removal fails, and the flush still ends', async () => {
    const store = recorder(true);
    let logs = '';
    const logger = pino(
      { level: 'error' },
      new Writable({
        write(chunk, _encoding, done) {
          logs += chunk;
          done();
        },
      }),
    );
    const answered = new AnsweredCommands(store.remove, logger);
    answered.add('a');
    await answered.flush();
    expect(store.writes).toEqual([['a']]);
    expect(logs).toContain('they will be answered again');
    expect(answered.stored).toEqual([]);
  });
});
