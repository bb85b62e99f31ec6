/**
 * Optimal string alignment distance: insertions, deletions, substitutions and a swap of two
 * neighbouring letters (`serach`), each 1. For command words of a few letters (small and quadratic
 * on purpose; the service's search has its own, bounded, for its vocabulary).
 */
export function editDistance(a: string, b: string, swapCost = 1): number {
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      let value = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, (beforePrevious[j - 2] ?? 0) + swapCost);
      current[j] = value;
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * Known names ranked by how near each is to `typed`: by editDistance, then, between two as near,
 * the one reached without swapping letters first (`pipelinse` is `pipeline` with a letter more
 * before it is `pipelines` with two swapped). Two with the same `distance` and `plain` are a tie.
 */
export function rankNearest<T>(
  typed: string,
  known: readonly T[],
  nameOf: (item: T) => string,
): { item: T; distance: number; plain: number }[] {
  return known
    .map((item) => {
      const name = nameOf(item);
      return { item, distance: editDistance(typed, name), plain: editDistance(typed, name, 2) };
    })
    .sort((a, b) => a.distance - b.distance || a.plain - b.plain);
}
