import type { ErrorCode, FieldError, Problem, Scope } from '../../contract/schemas.ts';
import { cutText } from '../../shared/cut-text.ts';

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

/** A problem answer names at most this many fields; the detail says how many more there were. */
export const MAX_FIELD_ERRORS = 100;
/** Longest field name or message echoed back: a field name is whatever the caller sent. */
const MAX_ECHOED_TEXT = 200;

/** `text` cut to at most `max` UTF-16 units, ending in an ellipsis when cut (never half a character). */
export function shorten(text: string, max = MAX_ECHOED_TEXT): string {
  return cutText(text, max, '…');
}

/**
 * Field errors, one per field, kept in the order found: the first MAX_FIELD_ERRORS are kept and
 * the rest only counted, so that building the answer is linear in the input and its size bounded.
 */
export class FieldErrorList {
  private readonly seen = new Set<string>();
  readonly kept: FieldError[] = [];
  private omittedCount = 0;

  add(field: string, message: string): void {
    if (this.seen.has(field)) return;
    this.seen.add(field);
    if (this.kept.length < MAX_FIELD_ERRORS)
      this.kept.push({ field: shorten(field), message: shorten(message) });
    else this.omittedCount++;
  }

  /**
   * Fields known to be distinct from each other and from every other field in error (the
   * unknown keys of one object): once the list is full, the rest are only counted, in O(1).
   */
  addDistinct(names: readonly string[], message: string, toField: (name: string) => string): void {
    let index = 0;
    for (; index < names.length && this.kept.length < MAX_FIELD_ERRORS; index++) {
      this.add(toField(names[index] as string), message);
    }
    this.omittedCount += names.length - index;
  }

  /** Fields in error beyond the ones kept. */
  get omitted(): number {
    return this.omittedCount;
  }

  toProblem(): ProblemError {
    const fields = this.kept.map((error) => error.field).join(', ');
    const more =
      this.omittedCount > 0
        ? `, and ${this.omittedCount.toLocaleString('en-GB')} more (only the first ${MAX_FIELD_ERRORS} are listed)`
        : '';
    return new ProblemError(400, 'invalid_request', `The request is not valid: ${fields}${more}.`, {
      errors: this.kept,
    });
  }
}

export function invalidRequest(errors: Iterable<FieldError>): ProblemError {
  const list = new FieldErrorList();
  for (const error of errors) list.add(error.field, error.message);
  return list.toProblem();
}

export function invalidField(field: string, message: string): ProblemError {
  return invalidRequest([{ field, message }]);
}

/** `what` names the record with the id the caller sent, which is cut short when long. */
export function notFound(what: string): ProblemError {
  return new ProblemError(404, 'not_found', `${shorten(what)} was not found.`);
}

export function forbidden(detail: string): ProblemError {
  return new ProblemError(403, 'forbidden', detail);
}
