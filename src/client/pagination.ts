/** `limit` and `offset` of a list that pages by offset. */
export type PageOptions = { limit?: number; offset?: number };

type Page<T> = { data: T[]; pagination: { limit: number; offset: number; total: number; hasMore: boolean } };

/** Walks a list page by page until the service says there is no more. */
export async function* everyPage<T>(
  fetchPage: (offset: number) => Promise<Page<T>>,
  startOffset = 0,
): AsyncGenerator<T> {
  let offset = startOffset;
  for (;;) {
    const page = await fetchPage(offset);
    yield* page.data;
    if (!page.pagination.hasMore || page.data.length === 0) return;
    offset = page.pagination.offset + page.data.length;
  }
}
