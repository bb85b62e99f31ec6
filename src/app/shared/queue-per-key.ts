/**
 * A queue per key: work given for a key runs after every earlier work of that key has settled
 * (failed or not), so two redraws of one card never land out of order. A key's queue is dropped
 * once it is empty.
 */
export function queuePerKey(): <T>(key: string, work: () => Promise<T>) => Promise<T> {
  const queues = new Map<string, Promise<unknown>>();
  return <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const previous = queues.get(key) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(work);
    const settled = run.catch(() => undefined);
    queues.set(key, settled);
    void settled.then(() => {
      if (queues.get(key) === settled) queues.delete(key);
    });
    return run;
  };
}
