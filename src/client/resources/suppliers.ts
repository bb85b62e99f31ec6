import { SupplierDetail, SupplierList } from '../../contract/schemas.ts';
import { type HttpTransport, segment } from '../http-transport.ts';
import type { CallOptions } from '../options.ts';
import { everyPage } from '../pagination.ts';
import type { DirectorySearch } from './buyers.ts';

/** GET /v1/suppliers and /v1/suppliers/{id}. */
export function suppliersResource(api: HttpTransport) {
  const list = (query: DirectorySearch = {}, options?: CallOptions) =>
    api.call(
      { name: 'suppliers.list', method: 'GET', path: '/v1/suppliers', query, schema: SupplierList },
      options,
    );
  return {
    list,
    get: (id: string, options?: CallOptions) =>
      api.data(
        {
          name: 'suppliers.get',
          method: 'GET',
          path: `/v1/suppliers/${segment(id)}`,
          schema: SupplierDetail,
        },
        options,
      ),
    all: (query: DirectorySearch = {}, options?: CallOptions) =>
      everyPage((offset) => list({ ...query, offset }, options), query.offset),
  };
}

export type SuppliersResource = ReturnType<typeof suppliersResource>;
