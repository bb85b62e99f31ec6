import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Statement } from 'better-sqlite3';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import {
  hasZodFastifySchemaValidationErrors,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { EMPTY_UPDATE_ISSUE } from '../../contract/schemas.ts';
import { inviteBodiesWithin } from '../../shared/request-body.ts';
import { limitSlowClients, type SlowClientLimits } from '../../shared/slow-clients.ts';
import { openDatabase, type SqliteDatabase } from '../store/database.ts';
import { authenticate, identifyCaller, isApiPath, refuseKeyInQuery } from './authentication.ts';
import { joinField, readJsonBodiesStrictly } from './json-body.ts';
import { type OpenApiDocument, openApiDocument, registerOpenApi, serveOpenApi } from './openapi-document.ts';
import { FieldErrorList, invalidField, PROBLEM_CONTENT_TYPE, ProblemError, shorten } from './problem.ts';
import { RateLimiter } from './rate-limiter.ts';
import { requestLoggerFactory } from './request-logger.ts';
import { bookmarkRoutes } from './routes/bookmarks.ts';
import { commentRoutes } from './routes/comments.ts';
import { pipelineRoutes } from './routes/pipelines.ts';
import { publicRecordRoutes } from './routes/public-records.ts';
import { savedSearchRoutes } from './routes/saved-searches.ts';
import { createServiceContext, type ServiceContext } from './service-context.ts';
import { redactUrl } from './url-secrets.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The stores behind the routes, for the command line's setup steps (fixture, demo data). */
    serviceContext: ServiceContext;
    /** Every route the server serves, as registered, so tests can hold the OpenAPI document to it. */
    servedRoutes: { method: string; url: string; hidden: boolean }[];
  }
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
  /** How long a request may take to arrive (tests shorten them); SLOW_CLIENT_LIMITS when absent. */
  slowClientLimits?: SlowClientLimits;
}

/** The largest request body the service reads (a pipeline's notes and a comment fit many times over). */
const BODY_LIMIT_BYTES = 1024 * 1024;

/** The Procurement Intelligence Service as a Fastify app over one SQLite database. */
export async function buildServiceApp(options: ServiceAppOptions): Promise<ServiceApp> {
  const context = createServiceContext(options.db, options.clock, options.countCacheSize);
  const limiter = new RateLimiter();
  const app = Fastify({
    logger: options.logLevel
      ? {
          level: options.logLevel,
          stream: process.stderr,
          // The URL is logged without any API key a caller put in its query string.
          serializers: { req: (request: FastifyRequest) => loggedRequest(request) },
        }
      : false,
    // Each request's pino child is made only when the request writes a line (request-logger.ts).
    ...(options.logLevel ? { childLoggerFactory: requestLoggerFactory } : {}),
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: {
      ignoreTrailingSlash: true,
      // Longer than any request line Node accepts (16 KiB of headers), so an over-long id reaches
      // its route, is authenticated first, and is refused by the route's own schema.
      maxParamLength: 20_000,
    },
    // Field errors are built from the validation issues by toProblem; the framework's own message
    // (every issue joined into one string) would be built for nothing.
    schemaErrorFormatter: (_errors, part) => new Error(`the ${part} is not valid`),
    // Errors the router raises before any route (a URL whose percent-encoding is broken).
    frameworkErrors: (error, request, reply) => answerFrameworkError(error, request, reply),
    // Requests Node's HTTP parser refuses before Fastify sees them (bad headers, oversized heads).
    clientErrorHandler: (error, socket) => answerClientError(error, socket),
    // Node would answer a missing Host with an empty 400 of its own; the hook below answers it.
    http: { requireHostHeader: false },
  }).withTypeProvider<ZodTypeProvider>();
  // Fastify leaves Node's request timeout off: a client trickling its request would hold a socket.
  limitSlowClients(app.server, options.slowClientLimits);
  inviteBodiesWithin(app.server, BODY_LIMIT_BYTES);
  // Node answers these itself, outside Fastify: an `Expect` other than 100-continue (417) and
  // CONNECT (the socket is dropped). Both get a problem answer instead.
  app.server.on('checkExpectation', (_request, response: ServerResponse) => {
    response.socket?.end(rawProblem('Expect', 'must be 100-continue or absent'));
  });
  app.server.on('connect', (_request, socket: Socket) => {
    socket.end(rawProblem('request', 'must not be a CONNECT: this service is not a proxy'));
  });

  /** A router error, answered after the key check like any other request under /v1. */
  function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
    reply.header('X-Request-Id', request.id);
    try {
      refuseKeyInQuery(request.url);
      if (isApiPath(request.url))
        identifyCaller(context.organisations, limiter, context.clock, request, reply);
      sendProblem(reply, request.id, toProblem(error, request.log));
    } catch (problem) {
      sendProblem(reply, request.id, toProblem(problem as FastifyError, request.log));
    }
  }

  app.decorate('serviceContext', context);
  const servedRoutes: { method: string; url: string; hidden: boolean }[] = [];
  app.decorate('servedRoutes', servedRoutes);
  app.addHook('onRoute', (route) => {
    // Fail closed: a route under /v1 that names no scope would be served to anyone.
    if (isApiPath(route.url) && !route.config?.scope && route.config?.public !== true) {
      throw new Error(
        `${route.url} names no scope: give it config.scope, or config.public if it needs no key`,
      );
    }
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true;
    for (const method of methods) servedRoutes.push({ method, url: route.url, hidden });
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  readJsonBodiesStrictly(app);

  await registerOpenApi(app);

  const checkCaller = authenticate(context.organisations, limiter, context.clock);
  const readTransaction = new ReadTransaction(context.db);
  // One hook, not async: every request runs it, and a promise per hook cost more than its checks.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    const config = request.routeOptions.config;
    // Fastify runs the rest of a GET (validation, the handler up to its first await) inside done():
    // the key, member and plan row and the handler's reads are read in one transaction, ended here.
    const opened = config.readsInOneTransaction === true && readTransaction.begin();
    try {
      try {
        if (request.raw.httpVersion === '1.1' && !request.headers.host) {
          throw invalidField('Host', 'must be sent with every HTTP/1.1 request');
        }
        checkCaller(request, reply, config.scope);
      } catch (error) {
        done(error as FastifyError);
        return;
      }
      done();
    } finally {
      if (opened) readTransaction.end();
    }
  });

  serveOpenApi(app);

  // Set before the route plugins register, so that they inherit them.
  app.setNotFoundHandler((request, reply) => {
    sendProblem(
      reply,
      request.id,
      new ProblemError(404, 'not_found', `No route ${request.method} ${shorten(pathOf(request.url))}.`),
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

/**
 * The service's OpenAPI document without serving it: the app is built on an empty in-memory
 * database and made ready, never listening, then closed. The document comes from the routes as
 * registered (see openapi-document.ts), so this is the way to have it without a running service.
 */
export async function buildOpenApiDocument(): Promise<OpenApiDocument> {
  const db = openDatabase(':memory:');
  try {
    const app = await buildServiceApp({ db });
    try {
      await app.ready();
      return openApiDocument(app);
    } finally {
      await app.close();
    }
  } finally {
    db.close();
  }
}

/**
 * One SQLite read transaction around synchronous work. Each statement outside a transaction takes
 * and releases the database's shared lock and checks its size (three system calls, about 2 µs):
 * a checked read made two such statements, the key holder's row and the record, and now makes one.
 * Both see one snapshot, so a key removed or a member gone is still seen by the very next request.
 */
class ReadTransaction {
  private readonly beginStatement: Statement;
  private readonly commitStatement: Statement;

  constructor(private readonly db: SqliteDatabase) {
    this.beginStatement = db.prepare('BEGIN DEFERRED');
    this.commitStatement = db.prepare('COMMIT');
  }

  /** Opens one unless a transaction is already open (then it is not this one to end): true if opened. */
  begin(): boolean {
    if (this.db.inTransaction) return false;
    this.beginStatement.run();
    return true;
  }

  end(): void {
    if (this.db.inTransaction) this.commitStatement.run();
  }
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
    const emptyUpdate = emptyUpdateOf(error.validation);
    if (emptyUpdate) return emptyUpdate;
    // Linear in the issues, and bounded: a body of 100,000 unknown fields names the first 100.
    const errors = new FieldErrorList();
    for (const issue of error.validation) addFieldErrors(errors, issue, part);
    return errors.toProblem();
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalidField('body', 'must be a JSON object');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return invalidField('body', 'must be sent as application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return invalidField('body', 'must be at most 1 MiB');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return invalidField('body', 'must be as long as its Content-Length header says');
    case 'FST_ERR_BAD_URL':
      return invalidField('path', 'must be a valid URL: its percent-encoding is broken');
  }
  if (error instanceof SyntaxError || error.statusCode === 400)
    return invalidField('body', 'must be a JSON object');
  if (typeof error.statusCode === 'number' && error.statusCode > 400 && error.statusCode < 500) {
    return invalidField('request', 'is not a request this service can read');
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

/**
 * A PATCH body with none of its fields (the schema's `minProperties: 1`) keeps its own code,
 * `empty_update` (CONTRACT.md §2), and names the fields it may carry.
 */
function emptyUpdateOf(issues: readonly ValidationIssue[]): ProblemError | undefined {
  const [issue] = issues;
  // The issue's own params, as fastify-type-provider-zod passes them on.
  const fields = (issue?.params?.params as Record<string, unknown> | undefined)?.[EMPTY_UPDATE_ISSUE];
  if (issues.length !== 1 || typeof fields !== 'string') return undefined;
  return new ProblemError(400, 'empty_update', `Send at least one of ${fields}.`, {
    errors: [{ field: 'body', message: issue?.message ?? `must have at least one of ${fields}` }],
  });
}

/** `/stages/0/name` in the body is `stages[0].name`; a query parameter is named by its own name. */
function addFieldErrors(errors: FieldErrorList, issue: ValidationIssue, part: string): void {
  const segments = issue.instancePath.split('/').filter((segment) => segment.length > 0);
  if (issue.keyword === 'unrecognized_keys') {
    const keys = (issue.params?.keys as string[] | undefined) ?? [];
    const message = part === 'querystring' ? 'is not a known parameter' : 'is not a known field';
    const parent = fieldPath(segments);
    // An unknown key is an object's key even when it is made of digits: `5`, not `[5]`.
    errors.addDistinct(keys, message, (key) => (parent ? `${parent}.${key}` : key));
    return;
  }
  const field = segments.length > 0 ? fieldPath(segments) : part === 'querystring' ? 'query' : 'body';
  errors.add(field, issue.message ?? 'is not valid');
}

function fieldPath(segments: string[]): string {
  return segments.reduce(joinField, '');
}

function pathOf(url: string): string {
  const question = url.indexOf('?');
  return question === -1 ? url : url.slice(0, question);
}

/** What a log line says of a request: never the raw URL, which may carry a key in its query. */
function loggedRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * A request Node's parser refused (malformed or oversized head, bad header characters, a
 * timeout) still gets a problem answer with a request id; the connection is then closed.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
  const message =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'must have a request line and headers of at most 16 KiB in all'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'must arrive in full within the server’s time limit'
        : 'must be a well-formed HTTP/1.1 request';
  // Closed for good once the answer is written: a client that ignores the end (a slow one keeps
  // sending) would otherwise hold the half-open connection.
  socket.end(rawProblem('request', message), () => socket.destroy());
}

/** A whole HTTP response, written straight to a socket: a 400 problem naming `field`, with a request id. */
function rawProblem(field: string, message: string): string {
  const requestId = randomUUID();
  const body = JSON.stringify(invalidField(field, message).toBody(requestId));
  return [
    'HTTP/1.1 400 Bad Request',
    `Content-Type: ${PROBLEM_CONTENT_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}
