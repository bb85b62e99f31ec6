import {
  ApiError,
  AuthenticationError,
  ConnectionError,
  ForbiddenError,
  IdempotencyConflictError,
  MissingScopeError,
  NotFoundError,
  PlanError,
  ProcurementClientError,
  RateLimitedError,
  ResponseValidationError,
  ServerError,
  SubmissionNotAllowedError,
  TimeoutError,
  ValidationError,
} from '../client/errors.ts';

/** A refusal of this server's own (a cursor from another list), said as it is. */
export class ToolRefusal extends Error {
  override name = 'ToolRefusal';
}

/** The sentence for a bid that was asked to become submitted, as the Slack app says it. */
export function submittedSentence(serviceDetail: string, currentStatus: string | null): string {
  return `A bid can only be marked submitted through the Procurement Intelligence Service’s own submission workflow (with its receipt and final files), not through these tools, so nothing was changed${currentStatus ? ` (it is still ${currentStatus.replace('_', ' ')})` : ''}. Submit the bid there. The service said: “${serviceDetail}”`;
}

/**
 * What a person (or the model relaying to one) reads when a call fails: the service's own
 * explanation with what to do next, never a stack or the key. `null` for a failure that is not
 * one the client or this server describes (a bug): the caller logs it and says so plainly.
 */
export function sentenceFor(error: unknown): string | null {
  if (error instanceof ToolRefusal) return error.message;
  if (!(error instanceof ProcurementClientError)) return null;
  if (error instanceof ApiError) return `${apiSentence(error)}${requestOf(error)}`;
  if (error instanceof ConnectionError || error instanceof TimeoutError)
    return 'The Procurement Intelligence Service could not be reached (or did not answer in time). Nothing is known to have changed; try again in a moment.';
  if (error instanceof ResponseValidationError)
    return `The service answered in a shape this server does not know, so the answer was not used. Try again later; if it persists, tell the operator${error.requestId ? ` (request ${error.requestId})` : ''}.`;
  return `The call did not complete: ${error.message}`;
}

function apiSentence(error: ApiError): string {
  if (error instanceof MissingScopeError)
    return `The service refused: ${error.detail} Nothing was done. An owner or admin of the organisation can make a key that has ${error.requiredScope ?? 'that scope'}.`;
  if (error instanceof AuthenticationError)
    return `The service refused the API key: ${error.detail} Check the key this server was given (PROCUREMENT_API_KEY for the stdio server, the bearer token over HTTP).`;
  if (error instanceof PlanError) return `The service refused: ${error.detail}`;
  if (error instanceof ForbiddenError)
    return `The service refused: ${error.detail} Nothing was changed: the key's creator may not do this (a viewer cannot write, and a bid needs edit access).`;
  if (error instanceof NotFoundError)
    return `Not found: ${error.detail} It does not exist, or this key may not see it.`;
  if (error instanceof SubmissionNotAllowedError) return submittedSentence(error.detail, null);
  if (error instanceof IdempotencyConflictError)
    return `The service refused: ${error.detail} That idempotencyKey was already used for a different creation: make a new UUID for a new record, and reuse one only to retry the very same call.`;
  if (error instanceof ValidationError) {
    const fields = error.fieldErrors.map((field) => `${field.field} ${field.message}`);
    const more = error.omittedFieldErrors > 0 ? ` (and ${error.omittedFieldErrors} more)` : '';
    return `The service refused the request: ${error.detail}${fields.length > 0 ? ` ${fields.join('; ')}${more}.` : ''}`;
  }
  if (error instanceof RateLimitedError)
    return `The service says this key is over its rate: ${error.detail} Wait${error.retryAfter === null ? ' a moment' : ` ${Math.ceil(error.retryAfter)} s`} and try again.`;
  if (error instanceof ServerError)
    return `The service failed (${error.status}); nothing is known to have changed. Try again later.`;
  return `The service refused (${error.status}): ${error.detail}`;
}

function requestOf(error: ApiError): string {
  return error.requestId ? ` (request ${error.requestId})` : '';
}
