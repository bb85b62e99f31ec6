import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  type CreatePipelineBody,
  PipelineDetail,
  PipelineList,
  type PipelineQuery,
  StageDetail,
  type UpdatePipelineBody,
  type UpdateStageBody,
} from '../../contract/schemas.ts';
import { type HttpTransport, segment } from '../http-transport.ts';
import type { CallOptions, CreateOptions } from '../options.ts';
import { everyPage } from '../pagination.ts';

export type PipelineSearch = Partial<PipelineQuery>;
export type NewPipeline = Omit<z.input<typeof CreatePipelineBody>, 'idempotencyKey'>;

/**
 * /v1/pipelines: bids and their stages. Updates and archive set a desired state, so they are
 * retried like reads (spec §8 rule 5); a creation carries one idempotency key on every attempt.
 */
export function pipelinesResource(api: HttpTransport) {
  const list = (query: PipelineSearch = {}, options?: CallOptions) =>
    api.call(
      { name: 'pipelines.list', method: 'GET', path: '/v1/pipelines', query, schema: PipelineList },
      options,
    );
  const pathOf = (id: string) => `/v1/pipelines/${segment(id)}`;
  return {
    list,
    all: (query: PipelineSearch = {}, options?: CallOptions) =>
      everyPage((offset) => list({ ...query, offset }, options), query.offset),
    get: (id: string, options?: CallOptions) =>
      api.data({ name: 'pipelines.get', method: 'GET', path: pathOf(id), schema: PipelineDetail }, options),
    create: (pipeline: NewPipeline, options?: CreateOptions) =>
      api.data(
        {
          name: 'pipelines.create',
          method: 'POST',
          path: '/v1/pipelines',
          body: { ...pipeline, idempotencyKey: options?.idempotencyKey ?? randomUUID() },
          schema: PipelineDetail,
        },
        options,
      ),
    update: (id: string, changes: UpdatePipelineBody, options?: CallOptions) =>
      api.data(
        {
          name: 'pipelines.update',
          method: 'PATCH',
          path: pathOf(id),
          body: changes,
          schema: PipelineDetail,
        },
        options,
      ),
    updateStage: (id: string, stageId: string, changes: UpdateStageBody, options?: CallOptions) =>
      api.data(
        {
          name: 'pipelines.updateStage',
          method: 'PATCH',
          path: `${pathOf(id)}/stages/${segment(stageId)}`,
          body: changes,
          schema: StageDetail,
        },
        options,
      ),
    /** `true` archives, `false` restores; the pipeline's status is unchanged. */
    archive: (id: string, archived: boolean, options?: CallOptions) =>
      api.data(
        {
          name: 'pipelines.archive',
          method: 'POST',
          path: `${pathOf(id)}/archive`,
          body: { archived },
          schema: PipelineDetail,
        },
        options,
      ),
  };
}

export type PipelinesResource = ReturnType<typeof pipelinesResource>;
