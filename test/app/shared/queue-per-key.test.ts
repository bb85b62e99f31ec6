import { describe, expect, it } from 'vitest';
import { queuePerKey } from '../../../src/app/shared/queue-per-key.ts';

describe('queuePerKey', () => {
  it('runs one key’s work in the order given, each after the last has settled, failed or not', async () => {
    const inTurn = queuePerKey();
    const done: string[] = [];
    const slow = inTurn('a', async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      done.push('a1');
    });
    const failing = inTurn('a', async () => {
      done.push('a2');
      throw new Error('refused');
    });
    const quick = inTurn('a', async () => {
      done.push('a3');
      return 'three';
    });
    // Another key does not wait.
    await inTurn('b', async () => done.push('b1'));
    expect(done).toEqual(['b1']);
    await slow;
    await expect(failing).rejects.toThrow('refused');
    await expect(quick).resolves.toBe('three');
    expect(done).toEqual(['b1', 'a1', 'a2', 'a3']);
  });
});
