import { describe, expect, it } from 'vitest';
import {
  ApiError,
  MissingScopeError,
  NotFoundError,
  ServerError,
  ValidationError,
} from '../../src/client/errors.ts';

// ApiError.from reads a problem body with the contract's schemas, part by part: what matches is
// kept, what does not is replaced by what the status and headers say, and nothing is lost for it.

const problem = {
  type: 'https://tenderbot.example/problems/not_found',
  title: 'Not found',
  status: 404,
  code: 'not_found',
  detail: 'Tender t-9 does not exist.',
  requestId: 'req-1',
};

describe('ApiError.from', () => {
  it('reads a contract problem whole', () => {
    const error = ApiError.from(404, problem, {});
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({
      status: 404,
      code: 'not_found',
      detail: problem.detail,
      requestId: 'req-1',
    });
  });

  it('loses only the part that does not match: a numeric detail keeps the code and the request id', () => {
    const error = ApiError.from(404, { ...problem, detail: 42 }, {});
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.detail).toBe('The service answered 404.');
    expect(error.requestId).toBe('req-1');
  });

  it('keeps a code this client does not know as text, classed by status', () => {
    const error = ApiError.from(503, { ...problem, status: 503, code: 'maintenance_window' }, {});
    expect(error).toBeInstanceOf(ServerError);
    expect(error.code).toBe('maintenance_window');
  });

  it('reads a body that is not a problem (an array, a string, null) from the status and the header', () => {
    for (const body of [[problem], 'Bad gateway', null, 7]) {
      const error = ApiError.from(502, body, { 'x-request-id': 'req-header' });
      expect(error).toBeInstanceOf(ServerError);
      expect(error).toMatchObject({ code: 'http_502', requestId: 'req-header' });
      expect(error.detail).toBe('The service answered 502.');
    }
  });

  it('takes requiredScope only when it is one of the contract’s scopes', () => {
    const missing = { ...problem, status: 403, code: 'missing_scope' };
    const known = ApiError.from(403, { ...missing, requiredScope: 'buyers:read' }, {});
    expect(known).toBeInstanceOf(MissingScopeError);
    expect((known as MissingScopeError).requiredScope).toBe('buyers:read');
    const unknown = ApiError.from(403, { ...missing, requiredScope: 'everything:write' }, {});
    expect((unknown as MissingScopeError).requiredScope).toBeNull();
  });

  it('keeps field errors that are FieldErrors by the contract and skips the rest', () => {
    const errors = [{ field: 'limit', message: 'too big' }, { field: 'q' }, { field: 'q', message: 3 }];
    const error = ApiError.from(400, { ...problem, status: 400, code: 'invalid_request', errors }, {});
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).fieldErrors).toEqual([{ field: 'limit', message: 'too big' }]);
    expect((error as ValidationError).omittedFieldErrors).toBe(0);
  });
});
