/**
 * The bound a test puts on one request's cost to catch work out of proportion to the input (a
 * quadratic path took about 35 s on the largest bodies here; the linear one 0.15 to 0.3 s). Not a
 * speed figure — those live in the benchmarks — so it is wide: a loaded 2-core machine running the
 * whole suite took just over 1 s, and a one-second bound failed there.
 */
export const OUT_OF_PROPORTION_MS = 10_000;

/** `work`'s result and how long it took, in milliseconds. */
export async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}
