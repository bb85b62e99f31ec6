import { randomUUID } from 'node:crypto';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import {
  hasZodFastifySchemaValidationErrors,
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { FieldError } from '../../contract/schemas.ts';
import { BookmarksStore } from '../store/bookmarks-store.ts';
import { CommentsStore } from '../store/comments-store.ts';
import type { SqliteDatabase } from '../store/database.ts';
import { IdempotencyStore } from '../store/idempotency-store.ts';
import { OrganisationsStore } from '../store/organisations-store.ts';
import { PipelinesStore } from '../store/pipelines-store.ts';
import { PublicRecordsReader } from '../store/public-records-reader.ts';
import { SavedSearchesStore } from '../store/saved-searches-store.ts';
import { authenticate } from './authentication.ts';
import { invalidRequest, PROBLEM_CONTENT_TYPE, ProblemError } from './problem.ts';
import { RateLimiter } from './rate-limiter.ts';
import { bookmarkRoutes } from './routes/bookmarks.ts';
import { commentRoutes } from './routes/comments.ts';
import { pipelineRoutes } from './routes/pipelines.ts';
import { publicRecordRoutes } from './routes/public-records.ts';
import { savedSearchRoutes } from './routes/saved-searches.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The stores behind the routes, for the command line's setup steps (fixture, demo data). */
    serviceContext: ServiceContext;
    /** Every route the server serves, as registered, so tests can hold the OpenAPI document to it. */
    servedRoutes: { method: string; url: string; hidden: boolean }[];
  }
}

/** Everything a route needs, built once per server. */
export interface ServiceContext {
  db: SqliteDatabase;
  publicRecords: PublicRecordsReader;
  organisations: OrganisationsStore;
  bookmarks: BookmarksStore;
  savedSearches: SavedSearchesStore;
  comments: CommentsStore;
  pipelines: PipelinesStore;
  idempotency: IdempotencyStore;
  clock: () => Date;
}

export type ServiceApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

export interface ServiceAppOptions {
  db: SqliteDatabase;
  clock?: () => Date;
  /** Request logs: off by default; a level sends pino JSON lines to standard error. */
  logLevel?: string;
  /** Query totals remembered while public records are unchanged; 0 turns the cache off. */
  countCacheSize?: number;
}

export function createServiceContext(
  db: SqliteDatabase,
  clock: () => Date = () => new Date(),
  countCacheSize?: number,
): ServiceContext {
  return {
    db,
    publicRecords: new PublicRecordsReader(db, countCacheSize),
    organisations: new OrganisationsStore(db),
    bookmarks: new BookmarksStore(db),
    savedSearches: new SavedSearchesStore(db),
    comments: new CommentsStore(db),
    pipelines: new PipelinesStore(db),
    idempotency: new IdempotencyStore(db),
    clock,
  };
}

/** The Procurement Intelligence Service as a Fastify app over one SQLite database. */
export async function buildServiceApp(options: ServiceAppOptions): Promise<ServiceApp> {
  const context = createServiceContext(options.db, options.clock, options.countCacheSize);
  const app = Fastify({
    logger: options.logLevel ? { level: options.logLevel, stream: process.stderr } : false,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<ZodTypeProvider>();
  app.decorate('serviceContext', context);
  const servedRoutes: { method: string; url: string; hidden: boolean }[] = [];
  app.decorate('servedRoutes', servedRoutes);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true;
    for (const method of methods) servedRoutes.push({ method, url: route.url, hidden });
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Procurement Intelligence Service API',
        version: '1.0.0',
        description:
          "Public procurement records and an organisation's working data. Every request carries the header Authorization: Bearer KEY. Errors are RFC 9457 problem details.",
      },
      servers: [{ url: '/' }],
      components: { securitySchemes: { bearerKey: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearerKey: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(fastifySwaggerUi, {
    routePrefix: '/docs',
    uiConfig: { validatorUrl: null, deepLinking: true, docExpansion: 'list' } as never,
    staticCSP: true,
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  app.addHook('onRequest', authenticate(context.organisations, new RateLimiter(), context.clock));

  app.get(
    '/v1/openapi.json',
    { schema: { hide: false, summary: 'This OpenAPI document', tags: ['meta'] } },
    async () => app.swagger(),
  );

  // Set before the route plugins register, so that they inherit them.
  app.setNotFoundHandler((request, reply) => {
    sendProblem(
      reply,
      request.id,
      new ProblemError(404, 'not_found', `No route ${request.method} ${request.url}.`),
    );
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    sendProblem(reply, request.id, toProblem(error, request.log));
  });
  await app.register(publicRecordRoutes(context));
  await app.register(bookmarkRoutes(context));
  await app.register(savedSearchRoutes(context));
  await app.register(commentRoutes(context));
  await app.register(pipelineRoutes(context));

  return app;
}

function sendProblem(reply: FastifyReply, requestId: string, problem: ProblemError): void {
  for (const [name, value] of Object.entries(problem.extras.headers ?? {})) reply.header(name, value);
  reply.code(problem.status);
  reply.type(PROBLEM_CONTENT_TYPE);
  // A string payload skips the route's response serializer.
  reply.send(JSON.stringify(problem.toBody(requestId)));
}

/** One place decides what a failure looks like to a caller; 5xx details stay in the log. */
function toProblem(error: FastifyError, log: FastifyBaseLogger): ProblemError {
  if (error instanceof ProblemError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const part = (error as { validationContext?: string }).validationContext ?? 'body';
    const errors = error.validation.flatMap((issue) => fieldErrorsOf(issue, part));
    // One error per field: a value failing two checks (pattern, then calendar) is named once.
    return invalidRequest(
      errors.filter((item, index) => errors.findIndex((other) => other.field === item.field) === index),
    );
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalidRequest([{ field: 'body', message: 'must be a JSON object' }]);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return invalidRequest([{ field: 'body', message: 'must be sent as application/json' }]);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return invalidRequest([{ field: 'body', message: 'must be at most 1 MiB' }]);
  }
  if (error instanceof SyntaxError || error.statusCode === 400) {
    return invalidRequest([{ field: 'body', message: 'must be a JSON object' }]);
  }
  log.error({ err: error }, 'request failed');
  return new ProblemError(
    500,
    'internal_error',
    'The service failed to answer; the request id identifies it in the log.',
  );
}

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** `/stages/0/name` in the body is `stages[0].name`; a query parameter is named by its own name. */
function fieldErrorsOf(issue: ValidationIssue, part: string): FieldError[] {
  const segments = issue.instancePath.split('/').filter((segment) => segment.length > 0);
  if (issue.keyword === 'unrecognized_keys') {
    const keys = (issue.params?.keys as string[] | undefined) ?? [];
    return keys.map((key) => ({
      field: fieldPath([...segments, key]),
      message: part === 'querystring' ? 'is not a known parameter' : 'is not a known field',
    }));
  }
  const field = segments.length > 0 ? fieldPath(segments) : part === 'querystring' ? 'query' : 'body';
  return [{ field, message: issue.message ?? 'is not valid' }];
}

function fieldPath(segments: string[]): string {
  return segments.reduce(
    (path, segment) =>
      /^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment,
    '',
  );
}
