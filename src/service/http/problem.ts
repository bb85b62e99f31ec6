import type { ErrorCode, FieldError, Problem, Scope } from '../../contract/schemas.ts';

const TITLES: Record<ErrorCode, string> = {
  invalid_request: 'Invalid request',
  empty_update: 'Empty update',
  missing_api_key: 'Missing API key',
  invalid_api_key: 'Invalid API key',
  expired_api_key: 'Expired API key',
  disabled_api_key: 'Disabled API key',
  plan_without_api_access: 'Plan without API access',
  missing_scope: 'Missing scope',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  idempotency_conflict: 'Idempotency conflict',
  pipeline_submission_not_allowed: 'Pipeline submission not allowed',
  rate_limited: 'Rate limited',
  internal_error: 'Internal error',
};

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** A failure the API reports as problem details (CONTRACT.md §2). Thrown by routes, shaped by one handler. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extras: { errors?: FieldError[]; requiredScope?: Scope; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = 'ProblemError';
  }

  toBody(requestId: string): Problem {
    return {
      type: `https://tenderbot.dev/problems/${this.code}`,
      title: TITLES[this.code],
      status: this.status,
      code: this.code,
      detail: this.detail,
      requestId,
      ...(this.extras.errors ? { errors: this.extras.errors } : {}),
      ...(this.extras.requiredScope ? { requiredScope: this.extras.requiredScope } : {}),
    };
  }
}

export function invalidRequest(errors: FieldError[]): ProblemError {
  const fields = errors.map((error) => error.field).join(', ');
  return new ProblemError(400, 'invalid_request', `The request is not valid: ${fields}.`, { errors });
}

export function invalidField(field: string, message: string): ProblemError {
  return invalidRequest([{ field, message }]);
}

export function notFound(what: string): ProblemError {
  return new ProblemError(404, 'not_found', `${what} was not found.`);
}

export function forbidden(detail: string): ProblemError {
  return new ProblemError(403, 'forbidden', detail);
}
