import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/** Where the service serves the document (CONTRACT.md §1: without a key). */
export const OPENAPI_PATH = '/v1/openapi.json';

/**
 * The OpenAPI document is made by @fastify/swagger from the routes as registered, each route's
 * zod schemas (src/contract/schemas.ts) turned into JSON Schema. The routes are the only list
 * of what is served, so the document is read from them rather than from a second description.
 */
export type OpenApiDocument = ReturnType<FastifyInstance['swagger']>;

/**
 * Registers the document's generator and the interactive reference at `/docs`. Call before the
 * routes are registered: the generator sees only the routes registered after it.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
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
    transform: (route) => withPublicSecurity(route, jsonSchemaTransform(route)),
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(fastifySwaggerUi, {
    routePrefix: '/docs',
    uiConfig: { validatorUrl: null, deepLinking: true, docExpansion: 'list' },
    staticCSP: true,
  });
}

type TransformInput = Parameters<typeof jsonSchemaTransform>[0] & {
  route?: { config?: { public?: boolean } };
};

/**
 * A route marked `config.public`, the mark authentication reads to let a request through
 * without a key, says so in the document: `security: []` overrides the document-wide bearer key.
 */
function withPublicSecurity(
  input: TransformInput,
  transformed: ReturnType<typeof jsonSchemaTransform>,
): ReturnType<typeof jsonSchemaTransform> {
  if (input.route?.config?.public !== true || !transformed.schema) return transformed;
  return { ...transformed, schema: { ...transformed.schema, security: [] } };
}

/** GET OPENAPI_PATH: the document, without a key. */
export function serveOpenApi(app: FastifyInstance): void {
  app.get(
    OPENAPI_PATH,
    {
      config: { public: true },
      schema: { hide: false, summary: 'This OpenAPI document', tags: ['meta'] },
    },
    async () => openApiDocument(app),
  );
}

/**
 * The document of a ready app: what the service answers at OPENAPI_PATH, and what
 * `tenderbot openapi` prints (buildOpenApiDocument, in app.ts, makes an app ready without
 * listening). One function, so the two cannot differ.
 */
export function openApiDocument(app: FastifyInstance): OpenApiDocument {
  return app.swagger();
}
