import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../../src/service/http/app.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.stop());

/** `/v1/tenders/:id` in Fastify is `/v1/tenders/{id}` in OpenAPI. */
const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z]+)/g, '{$1}');

describe('GET /v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document by a real validator, served without a key', async () => {
    const answer = await sandbox.call('GET', '/v1/openapi.json');
    expect(answer.status).toBe(200);
    expect(answer.body.openapi).toBe('3.1.0');
    const result = await new Validator().validate(answer.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents every route the server serves under /v1, with each method', async () => {
    const document = (await sandbox.call('GET', '/v1/openapi.json')).body;
    const served = sandbox.app.servedRoutes.filter(
      (route) => route.url.startsWith('/v1/') && route.method !== 'HEAD',
    );
    expect(served.length).toBeGreaterThanOrEqual(19);
    for (const route of served) {
      const operations = document.paths[toOpenApiPath(route.url)];
      expect(operations, `${route.method} ${route.url}`).toBeDefined();
      expect(operations[route.method.toLowerCase()], `${route.method} ${route.url}`).toBeDefined();
    }
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations as object).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(
      served.map((route) => `${route.method} ${toOpenApiPath(route.url)}`).sort(),
    );
  });

  it('says what CONTRACT.md says: bearer auth, problem details, named schemas, the enumerations', async () => {
    const document = (await sandbox.call('GET', '/v1/openapi.json')).body;
    expect(document.components.securitySchemes.bearerKey).toEqual({ type: 'http', scheme: 'bearer' });
    const text = JSON.stringify(document);
    expect(text).toContain('application/problem+json');
    for (const name of [
      'Tender',
      'Buyer',
      'Supplier',
      'Framework',
      'Comment',
      'Pipeline',
      'Stage',
      'Problem',
    ]) {
      expect(document.components.schemas, name).toHaveProperty(name);
    }
    const tenderStatus = document.components.schemas.Tender.properties.status.enum;
    expect(tenderStatus).toEqual(['planned', 'open', 'closed', 'awarded', 'cancelled']);
    const listParameters = document.paths['/v1/tenders'].get.parameters.map(
      (parameter: { name: string }) => parameter.name,
    );
    expect(listParameters.sort()).toEqual(
      [
        'q',
        'status',
        'buyerId',
        'region',
        'cpv',
        'valueMin',
        'valueMax',
        'publishedFrom',
        'publishedTo',
        'deadlineFrom',
        'deadlineTo',
        // Beyond CONTRACT.md §5: a tender found by a link pasted from its notice (for link unfurls).
        'url',
        // The currency of valueMin/valueMax (GBP when absent; other currencies converted at dated rates).
        'currency',
        // A tender by the reference its source prints (a Buyandsell number, a Contracts Finder id).
        'reference',
        'limit',
        'offset',
      ].sort(),
    );
  });
});

describe('buildOpenApiDocument', () => {
  it('makes, without listening, the document the service serves, valid by the validator', async () => {
    const built = await buildOpenApiDocument();
    const served = (await sandbox.call('GET', '/v1/openapi.json')).body;
    // Through JSON, as it is printed and served: the same document, key for key.
    expect(JSON.parse(JSON.stringify(built))).toEqual(served);
    const result = await new Validator().validate(JSON.parse(JSON.stringify(built)));
    expect(result.errors ?? []).toEqual([]);
  });
});
