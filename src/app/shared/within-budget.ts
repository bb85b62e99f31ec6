/** What a piece of work came to, without throwing. */
export type Settled<T> = { value: T } | { error: unknown };

/**
 * Slack closes a modal whose submission is not answered within 3 s. Waits for `work` at most
 * `budgetMs`: `quick` is its outcome if it settled in time, else null (the caller then answers at
 * once with a "working" view and finishes with `outcome`, which settles the same work).
 */
export async function withinBudget<T>(
  work: Promise<T>,
  budgetMs: number,
): Promise<{ quick: Settled<T> | null; outcome: Promise<Settled<T>> }> {
  const outcome = work.then(
    (value): Settled<T> => ({ value }),
    (error: unknown): Settled<T> => ({ error }),
  );
  // No time at all: not even a loopback answer that beats a 1 ms timer counts as quick.
  if (budgetMs <= 0) return { quick: null, outcome };
  let timer: NodeJS.Timeout | undefined;
  const quick = await Promise.race([
    outcome,
    new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), budgetMs);
    }),
  ]);
  clearTimeout(timer);
  return { quick, outcome };
}
