import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ArchivePipelineBody,
  CreatePipelineBody,
  IdParams,
  PipelineDetail,
  PipelineList,
  PipelineQuery,
  StageDetail,
  StageParams,
  UpdatePipelineBody,
  UpdateStageBody,
} from '../../../contract/schemas.ts';
import type { KeyHolder } from '../../store/organisations-store.ts';
import { forbidden, invalidField, notFound, ProblemError } from '../problem.ts';
import type { ServiceContext } from '../service-context.ts';
import { createIdempotently } from './idempotent-creation.ts';
import { listEnvelope, responses } from './responses.ts';

/** Bid pipelines: visible to their owner and to users they are shared with, never by role alone. */
export function pipelineRoutes(context: ServiceContext): FastifyPluginAsyncZod {
  const { pipelines, publicRecords } = context;

  /** 404 when the caller may not see the pipeline; 403 when they may see but not edit it. */
  const requireEditable = (caller: KeyHolder, pipelineId: string): void => {
    const permission = pipelines.permissionOf(caller.organisationId, pipelineId, caller.userId);
    if (permission === null) throw notFound(`Pipeline ${pipelineId}`);
    if (permission !== 'edit' || caller.role === 'viewer') {
      throw forbidden(
        'You may view this pipeline but not change it; its owner can give you edit permission.',
      );
    }
  };

  const readPipeline = (caller: KeyHolder, id: string) => {
    const pipeline = pipelines.get(caller.organisationId, id);
    if (!pipeline) throw notFound(`Pipeline ${id}`);
    return pipeline;
  };

  return async (app) => {
    app.get(
      '/v1/pipelines',
      {
        config: { scope: 'pipeline:read' },
        schema: {
          summary: 'Pipelines the caller may see, newest first',
          tags: ['pipelines'],
          querystring: PipelineQuery,
          response: responses({ 200: PipelineList }),
        },
      },
      async (request) => {
        const { caller, query } = request;
        return listEnvelope(
          pipelines.list(caller.organisationId, caller.userId, query),
          query.limit,
          query.offset,
        );
      },
    );

    app.get(
      '/v1/pipelines/:id',
      {
        config: { scope: 'pipeline:read' },
        schema: {
          summary: 'One pipeline with its stages',
          tags: ['pipelines'],
          params: IdParams,
          response: responses({ 200: PipelineDetail }),
        },
      },
      async (request) => {
        const { caller } = request;
        if (pipelines.permissionOf(caller.organisationId, request.params.id, caller.userId) === null) {
          throw notFound(`Pipeline ${request.params.id}`);
        }
        return { data: readPipeline(caller, request.params.id) };
      },
    );

    app.post(
      '/v1/pipelines',
      {
        config: { scope: 'pipeline:write' },
        schema: {
          summary: 'Start a bid pipeline, owned by the key creator (idempotent by idempotencyKey)',
          tags: ['pipelines'],
          body: CreatePipelineBody,
          response: responses({ 200: PipelineDetail, 201: PipelineDetail }),
        },
      },
      async (request, reply) => {
        const { caller, body } = request;
        if (caller.role === 'viewer') throw forbidden('Viewers cannot create pipelines.');
        const { status, record } = createIdempotently(
          context,
          caller,
          'POST /v1/pipelines',
          body,
          (now) => {
            const tenderId = body.tenderId ?? null;
            if (tenderId !== null && !publicRecords.tenderExists(tenderId)) {
              throw invalidField('tenderId', 'must be the id of a known tender');
            }
            return pipelines.create(
              {
                organisationId: caller.organisationId,
                ownerId: caller.userId,
                name: body.name,
                summary: body.summary ?? null,
                targetSubmissionDate: body.targetSubmissionDate ?? null,
                tenderId,
                stages: body.stages ?? [],
              },
              now,
            );
          },
          (id) => pipelines.get(caller.organisationId, id),
        );
        reply.code(status);
        return { data: record };
      },
    );

    app.patch(
      '/v1/pipelines/:id',
      {
        config: { scope: 'pipeline:write' },
        schema: {
          summary: 'Change a pipeline; its status may not be set to submitted (409)',
          tags: ['pipelines'],
          params: IdParams,
          body: UpdatePipelineBody,
          response: responses({ 200: PipelineDetail }),
        },
      },
      async (request) => {
        const { caller, body, params } = request;
        if (pipelines.permissionOf(caller.organisationId, params.id, caller.userId) === null) {
          throw notFound(`Pipeline ${params.id}`);
        }
        if (body.status === 'submitted') {
          throw new ProblemError(
            409,
            'pipeline_submission_not_allowed',
            "A pipeline is submitted through the application's receipt and final-file workflow, not through the API.",
          );
        }
        requireEditable(caller, params.id);
        pipelines.update(params.id, body, context.clock().toISOString());
        return { data: readPipeline(caller, params.id) };
      },
    );

    app.patch(
      '/v1/pipelines/:id/stages/:stageId',
      {
        config: { scope: 'pipeline:write' },
        schema: {
          summary: "Change a stage's status, name, notes or due date",
          tags: ['pipelines'],
          params: StageParams,
          body: UpdateStageBody,
          response: responses({ 200: StageDetail }),
        },
      },
      async (request) => {
        const { caller, body, params } = request;
        requireEditable(caller, params.id);
        if (!pipelines.getStage(params.id, params.stageId)) throw notFound(`Stage ${params.stageId}`);
        pipelines.updateStage(params.id, params.stageId, body, context.clock().toISOString());
        const stage = pipelines.getStage(params.id, params.stageId);
        if (!stage) throw notFound(`Stage ${params.stageId}`);
        return { data: stage };
      },
    );

    app.post(
      '/v1/pipelines/:id/archive',
      {
        config: { scope: 'pipeline:write' },
        schema: {
          summary:
            'Archive (archived: true) or restore (archived: false) a pipeline; its status is unchanged',
          tags: ['pipelines'],
          params: IdParams,
          body: ArchivePipelineBody,
          response: responses({ 200: PipelineDetail }),
        },
      },
      async (request) => {
        const { caller, body, params } = request;
        requireEditable(caller, params.id);
        pipelines.setArchived(params.id, body.archived, context.clock().toISOString());
        return { data: readPipeline(caller, params.id) };
      },
    );
  };
}
