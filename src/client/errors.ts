import { z } from 'zod';
import { type ErrorCode, FieldError, Problem, Scope } from '../contract/schemas.ts';
import { cutText } from '../shared/cut-text.ts';

/** Every failure the client reports is one of these; none of them ever carries the API key. */
export class ProcurementClientError extends Error {
  override name = 'ProcurementClientError';
}

const AUTHENTICATION_REASONS = [
  'missing_api_key',
  'invalid_api_key',
  'expired_api_key',
  'disabled_api_key',
] as const satisfies readonly ErrorCode[];
export type AuthenticationReason = (typeof AUTHENTICATION_REASONS)[number];

const isAuthenticationReason = (code: string): code is AuthenticationReason =>
  (AUTHENTICATION_REASONS as readonly string[]).includes(code);

/** What every answer that is not a success carries. */
export interface FailedAnswer {
  status: number;
  code: ErrorCode | string;
  detail: string;
  requestId: string | null;
  headers: Readonly<Record<string, string>>;
}

/** At most this many field errors are kept from a problem body; `omittedFieldErrors` counts the rest. */
export const MAX_FIELD_ERRORS = 100;
/** Longest text kept from a problem body's strings (detail, field, message); longer ones are cut. */
const MAX_TEXT = 2000;
const MAX_TOKEN = 200;

/** Null instead of a failure: a part that does not match the contract loses that part, not the answer. */
const orNull = <T extends z.ZodType>(schema: T) => schema.nullable().catch(null);

/**
 * A problem body read with the contract's own schemas (`Problem` and its parts), part by part
 * rather than `Problem.parse` whole: a failed answer must still say what it can when a proxy, an
 * older or a newer service sends only some of it. A code this client does not know is kept as
 * text; `errors` is left to `fieldErrorsOf`, which reads a huge list only as far as it needs.
 */
const ProblemParts = z.object({
  code: orNull(z.union([Problem.shape.code, z.string()])),
  detail: orNull(Problem.shape.detail),
  requestId: orNull(Problem.shape.requestId),
  requiredScope: orNull(Scope),
  errors: z.unknown().optional(),
});
const NO_PARTS: z.infer<typeof ProblemParts> = {
  code: null,
  detail: null,
  requestId: null,
  requiredScope: null,
  errors: undefined,
};

/** The first MAX_FIELD_ERRORS entries that are `FieldError`s by the contract, each string cut short. */
function fieldErrorsOf(errors: unknown): { kept: FieldError[]; omitted: number } {
  if (!Array.isArray(errors)) return { kept: [], omitted: 0 };
  const kept: FieldError[] = [];
  let index = 0;
  for (; index < errors.length && kept.length < MAX_FIELD_ERRORS; index++) {
    const entry = FieldError.safeParse(errors[index]);
    if (entry.success) {
      kept.push({ field: cut(entry.data.field, MAX_TOKEN), message: cut(entry.data.message, MAX_TOKEN) });
    }
  }
  return { kept, omitted: errors.length - index };
}

function cut(text: string, max: number): string {
  return cutText(text, max, '…');
}

function cutOrNull(text: string | null, max: number): string | null {
  return text === null ? null : cut(text, max);
}

/** An answer of the service that is not a success: status, code, detail and the request id to quote. */
export class ApiError extends ProcurementClientError {
  override name = 'ApiError';
  readonly status: number;
  readonly code: ErrorCode | string;
  readonly detail: string;
  readonly requestId: string | null;
  readonly headers: Readonly<Record<string, string>>;

  constructor(answer: FailedAnswer) {
    super(
      `${answer.status} ${answer.code}: ${answer.detail}${answer.requestId ? ` (request ${answer.requestId})` : ''}`,
    );
    this.status = answer.status;
    this.code = answer.code;
    this.detail = answer.detail;
    this.requestId = answer.requestId;
    this.headers = answer.headers;
  }

  /** The one place that decides which class an answer becomes. */
  static from(status: number, body: unknown, headers: Record<string, string>): ApiError {
    const parsed = ProblemParts.safeParse(body);
    const problem = parsed.success ? parsed.data : NO_PARTS;
    const code = problem.code === null ? `http_${status}` : cut(problem.code, MAX_TOKEN);
    const detail =
      problem.detail === null ? `The service answered ${status}.` : cut(problem.detail, MAX_TEXT);
    const requestId = cutOrNull(problem.requestId ?? headers['x-request-id'] ?? null, MAX_TOKEN);
    const answer: FailedAnswer = { status, code, detail, requestId, headers };
    switch (code) {
      case 'missing_api_key':
      case 'invalid_api_key':
      case 'expired_api_key':
      case 'disabled_api_key':
        return new AuthenticationError(answer);
      case 'missing_scope':
        return new MissingScopeError(answer, problem.requiredScope);
      case 'plan_without_api_access':
        return new PlanError(answer);
      case 'forbidden':
        return new ForbiddenError(answer);
      case 'not_found':
        return new NotFoundError(answer);
      case 'idempotency_conflict':
        return new IdempotencyConflictError(answer);
      case 'pipeline_submission_not_allowed':
        return new SubmissionNotAllowedError(answer);
      case 'invalid_request':
      case 'empty_update': {
        const { kept, omitted } = fieldErrorsOf(problem.errors);
        return new ValidationError(answer, kept, omitted);
      }
      case 'rate_limited':
        return new RateLimitedError(answer, retryAfterSeconds(headers['retry-after']));
    }
    if (status === 401) return new AuthenticationError(answer);
    if (status === 404) return new NotFoundError(answer);
    if (status === 429) return new RateLimitedError(answer, retryAfterSeconds(headers['retry-after']));
    if (status >= 500) return new ServerError(answer);
    return new ApiError(answer);
  }
}

/** 401: the key is missing, unknown, expired, or its creator left the organisation (`reason`). */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
  get reason(): AuthenticationReason | null {
    return isAuthenticationReason(this.code) ? this.code : null;
  }
}

/** 403: the key lacks `requiredScope`; an admin must add it to the key. */
export class MissingScopeError extends ApiError {
  override name = 'MissingScopeError';
  constructor(
    answer: FailedAnswer,
    readonly requiredScope: Scope | null,
  ) {
    super(answer);
  }
}

/** 403: the organisation's plan has no API access. */
export class PlanError extends ApiError {
  override name = 'PlanError';
}

/** 403: the key's user may not do this (a viewer writing, another's comment, no edit permission). */
export class ForbiddenError extends ApiError {
  override name = 'ForbiddenError';
}

export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}

/** 409: the idempotency key was used before for a different request. */
export class IdempotencyConflictError extends ApiError {
  override name = 'IdempotencyConflictError';
}

/** 409: a pipeline cannot be set to `submitted` through the API. */
export class SubmissionNotAllowedError extends ApiError {
  override name = 'SubmissionNotAllowedError';
}

/**
 * 400: the request was refused; `fieldErrors` names each field (empty for an empty update), the
 * first MAX_FIELD_ERRORS of them, and `omittedFieldErrors` counts those left out.
 */
export class ValidationError extends ApiError {
  override name = 'ValidationError';
  constructor(
    answer: FailedAnswer,
    readonly fieldErrors: FieldError[],
    readonly omittedFieldErrors = 0,
  ) {
    super(answer);
  }
}

/** 429: over the key's rate; `retryAfter` is in seconds (null when the service did not say). */
export class RateLimitedError extends ApiError {
  override name = 'RateLimitedError';
  constructor(
    answer: FailedAnswer,
    readonly retryAfter: number | null,
  ) {
    super(answer);
  }
}

/** 5xx: the service failed; worth trying again later. */
export class ServerError extends ApiError {
  override name = 'ServerError';
}

/** The service could not be reached, or the connection broke before an answer. */
export class ConnectionError extends ProcurementClientError {
  override name = 'ConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** No answer within the call's timeout. */
export class TimeoutError extends ProcurementClientError {
  override name = 'TimeoutError';
}

/** The call was cancelled through its `signal`; never retried. */
export class AbortedError extends ProcurementClientError {
  override name = 'AbortedError';
}

/** A success whose body does not have the documented shape: `issues` says where (the first 100). */
export class ResponseValidationError extends ProcurementClientError {
  override name = 'ResponseValidationError';
  readonly issues: { path: string; message: string }[];
  constructor(
    readonly operation: string,
    issues: readonly { path: string; message: string }[],
    readonly requestId: string | null,
  ) {
    super(
      `${operation}: the response does not have the documented shape (${issues
        .slice(0, 5)
        .map((issue) => `${issue.path || '(root)'}: ${issue.message}`)
        .join('; ')})`,
    );
    this.issues = issues.slice(0, MAX_FIELD_ERRORS);
  }
}

/** `Retry-After` in seconds, or as an HTTP date. */
export function retryAfterSeconds(header: string | undefined): number | null {
  if (!header) return null;
  if (/^\d+(\.\d+)?$/.test(header.trim())) return Number(header);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, (date - Date.now()) / 1000);
}
