import { FrameworkDetail, FrameworkList, type FrameworkQuery } from '../../contract/schemas.ts';
import { type HttpTransport, segment } from '../http-transport.ts';
import type { CallOptions } from '../options.ts';
import { everyPage } from '../pagination.ts';

export type FrameworkSearch = Partial<FrameworkQuery>;

/** GET /v1/frameworks and /v1/frameworks/{id}. */
export function frameworksResource(api: HttpTransport) {
  const list = (query: FrameworkSearch = {}, options?: CallOptions) =>
    api.call(
      { name: 'frameworks.list', method: 'GET', path: '/v1/frameworks', query, schema: FrameworkList },
      options,
    );
  return {
    list,
    get: (id: string, options?: CallOptions) =>
      api.data(
        {
          name: 'frameworks.get',
          method: 'GET',
          path: `/v1/frameworks/${segment(id)}`,
          schema: FrameworkDetail,
        },
        options,
      ),
    all: (query: FrameworkSearch = {}, options?: CallOptions) =>
      everyPage((offset) => list({ ...query, offset }, options), query.offset),
  };
}

export type FrameworksResource = ReturnType<typeof frameworksResource>;
