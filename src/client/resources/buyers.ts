import { BuyerDetail, BuyerList, type DirectoryQuery } from '../../contract/schemas.ts';
import { type HttpTransport, segment } from '../http-transport.ts';
import type { CallOptions } from '../options.ts';
import { everyPage } from '../pagination.ts';

/** A search of the buyer or the supplier directory. */
export type DirectorySearch = Partial<DirectoryQuery>;

/** GET /v1/buyers and /v1/buyers/{id}. */
export function buyersResource(api: HttpTransport) {
  const list = (query: DirectorySearch = {}, options?: CallOptions) =>
    api.call({ name: 'buyers.list', method: 'GET', path: '/v1/buyers', query, schema: BuyerList }, options);
  return {
    list,
    get: (id: string, options?: CallOptions) =>
      api.data(
        { name: 'buyers.get', method: 'GET', path: `/v1/buyers/${segment(id)}`, schema: BuyerDetail },
        options,
      ),
    all: (query: DirectorySearch = {}, options?: CallOptions) =>
      everyPage((offset) => list({ ...query, offset }, options), query.offset),
  };
}

export type BuyersResource = ReturnType<typeof buyersResource>;
