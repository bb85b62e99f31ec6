import { describe, expect, it } from 'vitest';
import { timeOrderedId } from '../../../src/app/receiver/worker-messages.ts';

// The queue takes its commands oldest first by their key: ids must sort as their times do.
describe('the queued commands’ ids', () => {
  it('are UUIDv7-shaped, sort by their time to the millisecond, and never repeat', () => {
    const start = Date.parse('2026-11-23T05:00:00Z');
    const ids = Array.from({ length: 2000 }, (_, index) => timeOrderedId(new Date(start + index)));
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    const sameMillisecond = Array.from({ length: 2000 }, () => timeOrderedId(new Date(start)));
    expect(new Set([...ids, ...sameMillisecond]).size).toBe(4000);
    expect(timeOrderedId(new Date(start)).slice(0, 13)).toBe(
      `${start.toString(16).padStart(12, '0').slice(0, 8)}-${start.toString(16).padStart(12, '0').slice(8)}`,
    );
  });
});
