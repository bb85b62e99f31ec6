import { TenderDetail, TenderList, type TenderSearchQuery } from '../../contract/schemas.ts';
import { type HttpTransport, segment } from '../http-transport.ts';
import type { CallOptions } from '../options.ts';
import { everyPage } from '../pagination.ts';

export type TenderSearch = Partial<TenderSearchQuery>;

/** GET /v1/tenders and /v1/tenders/{id}. */
export function tendersResource(api: HttpTransport) {
  const search = (query: TenderSearch = {}, options?: CallOptions) =>
    api.call(
      { name: 'tenders.search', method: 'GET', path: '/v1/tenders', query, schema: TenderList },
      options,
    );
  return {
    search,
    get: (id: string, options?: CallOptions) =>
      api.data(
        { name: 'tenders.get', method: 'GET', path: `/v1/tenders/${segment(id)}`, schema: TenderDetail },
        options,
      ),
    /** Every tender of the search, page after page. */
    all: (query: TenderSearch = {}, options?: CallOptions) =>
      everyPage((offset) => search({ ...query, offset }, options), query.offset),
  };
}

export type TendersResource = ReturnType<typeof tendersResource>;
