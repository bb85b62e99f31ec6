import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  MAX_FIELD_ERRORS,
  ResponseValidationError,
  ValidationError,
} from '../../src/client/errors.ts';
import { ProcurementClient } from '../../src/client/procurement-client.ts';
import { type FaultServer, startFaultServer } from '../support/fault-server.ts';

// A broken or hostile server must not make the client spend time or memory out of proportion:
// whatever the body holds, the client keeps a bounded part of it and answers quickly.

let faults: FaultServer;
let client: ProcurementClient;
beforeAll(async () => {
  faults = await startFaultServer();
  client = new ProcurementClient({
    baseUrl: faults.baseUrl,
    apiKey: 'pis_large_answers_0123456789abcdefghijklmnopq',
    maxRetries: 0,
  });
});
afterAll(async () => {
  await client.close();
  await faults.stop();
});

describe('a huge problem body', () => {
  it('keeps the first 100 field errors of 12,000, counts the rest, and cuts long strings', async () => {
    const errors = Array.from({ length: 12_000 }, (_, index) => ({
      field: `field${index}`,
      message: 'is not a known field',
    }));
    errors[0] = { field: 'f'.repeat(20_000), message: 'm'.repeat(20_000) };
    const body = { code: 'invalid_request', detail: 'd'.repeat(100_000), requestId: 'req-huge', errors };
    // Under the client's 1 MiB limit for problems, so that it is read and parsed in full.
    expect(JSON.stringify(body).length).toBeLessThan(1024 * 1024);
    faults.play([{ status: 400, headers: { 'x-request-id': 'req-huge' }, body }]);
    const error = await client.tenders.search().catch((caught) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.fieldErrors.length).toBe(MAX_FIELD_ERRORS);
    expect(error.omittedFieldErrors).toBe(12_000 - MAX_FIELD_ERRORS);
    expect(error.fieldErrors[1]).toEqual({ field: 'field1', message: 'is not a known field' });
    expect(error.fieldErrors[0].field.length).toBeLessThanOrEqual(200);
    expect(error.fieldErrors[0].message.length).toBeLessThanOrEqual(200);
    expect(error.detail.length).toBeLessThanOrEqual(2000);
    expect(error.message.length).toBeLessThan(2500);
    expect(error.requestId).toBe('req-huge');
  });

  it('skips entries that are not field errors, and still stops after 100 kept', async () => {
    const errors: unknown[] = [null, 7, { field: 1, message: 'x' }, 'text'];
    for (let index = 0; index < 500; index++) errors.push({ field: `f${index}`, message: 'bad' });
    faults.play([{ status: 400, body: { code: 'invalid_request', detail: 'bad', errors } }]);
    const error = await client.tenders.search().catch((caught) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.fieldErrors.length).toBe(MAX_FIELD_ERRORS);
    expect(error.fieldErrors[0]).toEqual({ field: 'f0', message: 'bad' });
    expect(error.omittedFieldErrors).toBe(errors.length - (MAX_FIELD_ERRORS + 4));
  });

  it('stops reading a problem body past 1 MiB and reports the status with the header’s request id', async () => {
    const huge = JSON.stringify({
      code: 'invalid_request',
      detail: 'x',
      errors: Array.from({ length: 80_000 }, (_, index) => ({ field: `f${index}`, message: 'bad' })),
    });
    expect(huge.length).toBeGreaterThan(2 * 1024 * 1024);
    faults.play([{ status: 400, headers: { 'x-request-id': 'req-big' }, rawBody: huge }]);
    const error = await client.tenders.search().catch((caught) => caught);
    // Not read, so not parsed: a plain ApiError, not a ValidationError with 80,000 fields.
    expect(error).toBeInstanceOf(ApiError);
    expect(error).not.toBeInstanceOf(ValidationError);
    expect(error.code).toBe('http_400');
    expect(error.status).toBe(400);
    expect(error.requestId).toBe('req-big');
  });

  it('names at most 100 issues of a success body that is wrong everywhere', async () => {
    const data = Array.from({ length: 5000 }, () => ({ id: 1 }));
    faults.play([
      { status: 200, body: { data, pagination: { limit: 1, offset: 0, total: 1, hasMore: false } } },
    ]);
    const error = await client.tenders.search().catch((caught) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.issues.length).toBe(MAX_FIELD_ERRORS);
  });
});
