import {
  AuthenticationError,
  ConnectionError,
  ForbiddenError,
  IdempotencyConflictError,
  MissingScopeError,
  NotFoundError,
  PlanError,
  RateLimitedError,
  ResponseValidationError,
  ServerError,
  SubmissionNotAllowedError,
  TimeoutError,
  ValidationError,
} from '../../client/errors.ts';

/**
 * Every kind of failure the Slack app tells a person about, named as bolt-js names its own
 * (`errors.ts`): one code per kind, one small class each, and `asCodedError` for anything else.
 * The sentences said for each code are chosen in one place, ./failure-sentences.ts.
 */
export const ErrorCode = {
  /** The workspace has no API key: neither its own nor a default. */
  NotConnected: 'tenderbot_not_connected',
  /** A stored key cannot be decrypted with this ENCRYPTION_KEY. */
  KeyUnreadable: 'tenderbot_key_unreadable',
  /** The workspace asks for a person's own key to change anything, and this person has none. */
  PersonalKeyRequired: 'tenderbot_personal_key_required',
  /** The workspace's key is stored with a service address the operator does not allow. */
  ServiceUrlRefused: 'tenderbot_service_url_refused',
  /** The service refused the key (expired, disabled, unknown, missing). */
  ServiceKeyRefused: 'tenderbot_service_key_refused',
  ServiceScopeMissing: 'tenderbot_service_scope_missing',
  ServicePlanWithoutApi: 'tenderbot_service_plan_without_api',
  ServiceForbidden: 'tenderbot_service_forbidden',
  ServiceNotFound: 'tenderbot_service_not_found',
  ServiceRateLimited: 'tenderbot_service_rate_limited',
  ServiceInputRefused: 'tenderbot_service_input_refused',
  SubmissionNotAllowed: 'tenderbot_submission_not_allowed',
  IdempotencyConflict: 'tenderbot_idempotency_conflict',
  ServiceTimeout: 'tenderbot_service_timeout',
  ServiceUnreachable: 'tenderbot_service_unreachable',
  ServiceFailed: 'tenderbot_service_failed',
  ServiceAnswerUnreadable: 'tenderbot_service_answer_unreadable',
  /** Slack's 3 s to open a window had passed (`expired_trigger_id`). */
  SlackTriggerExpired: 'tenderbot_slack_trigger_expired',
  Unknown: 'tenderbot_unknown',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface CodedError extends Error {
  readonly code: ErrorCode;
}

const CODES = new Set<string>(Object.values(ErrorCode));

export class NotConnectedError extends Error implements CodedError {
  readonly code = ErrorCode.NotConnected;
  constructor() {
    super('This workspace has no API key yet.');
  }
}

export class KeyUnreadableError extends Error implements CodedError {
  readonly code = ErrorCode.KeyUnreadable;
  constructor(
    readonly teamId: string,
    /** Set when the unreadable key is a person's own (they link it again with `/tender connect me`). */
    readonly userId: string | null = null,
  ) {
    super(
      userId
        ? `the stored personal API key of user ${userId} in workspace ${teamId} cannot be decrypted with this ENCRYPTION_KEY`
        : `the stored API key of workspace ${teamId} cannot be decrypted with this ENCRYPTION_KEY`,
    );
  }
}

export class ServiceUrlRefusedError extends Error implements CodedError {
  readonly code = ErrorCode.ServiceUrlRefused;
  constructor(readonly teamId: string) {
    super(
      `the stored service URL of workspace ${teamId} is not PROCUREMENT_API_URL nor in PROCUREMENT_API_URLS_ALLOWED`,
    );
  }
}

export class PersonalKeyRequiredError extends Error implements CodedError {
  readonly code = ErrorCode.PersonalKeyRequired;
  constructor(
    readonly teamId: string,
    readonly userId: string,
  ) {
    super(`workspace ${teamId} requires personal keys for writes and user ${userId} has not linked one`);
  }
}

/** What the service answered, by kind; the client's error (with its details) is `original`. */
type ServiceErrorCode =
  | typeof ErrorCode.ServiceKeyRefused
  | typeof ErrorCode.ServiceScopeMissing
  | typeof ErrorCode.ServicePlanWithoutApi
  | typeof ErrorCode.ServiceForbidden
  | typeof ErrorCode.ServiceNotFound
  | typeof ErrorCode.ServiceRateLimited
  | typeof ErrorCode.ServiceInputRefused
  | typeof ErrorCode.SubmissionNotAllowed
  | typeof ErrorCode.IdempotencyConflict
  | typeof ErrorCode.ServiceTimeout
  | typeof ErrorCode.ServiceUnreachable
  | typeof ErrorCode.ServiceFailed
  | typeof ErrorCode.ServiceAnswerUnreadable;

export class ServiceFailure<C extends ServiceErrorCode = ServiceErrorCode>
  extends Error
  implements CodedError
{
  constructor(
    readonly code: C,
    readonly original: ServiceOriginal<C>,
    /** The call was made with the person's own key (not the workspace's). */
    readonly ownKey: boolean,
  ) {
    super(original.message, { cause: original });
  }
}

/** The client's error behind each code of the service. */
interface ServiceOriginals {
  [ErrorCode.ServiceKeyRefused]: AuthenticationError;
  [ErrorCode.ServiceScopeMissing]: MissingScopeError;
  [ErrorCode.ServicePlanWithoutApi]: PlanError;
  [ErrorCode.ServiceForbidden]: ForbiddenError;
  [ErrorCode.ServiceNotFound]: NotFoundError;
  [ErrorCode.ServiceRateLimited]: RateLimitedError;
  [ErrorCode.ServiceInputRefused]: ValidationError;
  [ErrorCode.SubmissionNotAllowed]: SubmissionNotAllowedError;
  [ErrorCode.IdempotencyConflict]: IdempotencyConflictError;
  [ErrorCode.ServiceTimeout]: TimeoutError;
  [ErrorCode.ServiceUnreachable]: ConnectionError;
  [ErrorCode.ServiceFailed]: ServerError;
  [ErrorCode.ServiceAnswerUnreadable]: ResponseValidationError;
}
type ServiceOriginal<C extends ServiceErrorCode> = ServiceOriginals[C];

export class SlackTriggerExpiredError extends Error implements CodedError {
  readonly code = ErrorCode.SlackTriggerExpired;
  constructor(readonly original: unknown) {
    super('Slack refused to open a window: its trigger had expired', { cause: original });
  }
}

/** Anything else: a bug, or a failure no code names yet. Logged with its reference, said plainly. */
export class UnknownError extends Error implements CodedError {
  readonly code = ErrorCode.Unknown;
  constructor(readonly original: unknown) {
    super(original instanceof Error ? original.message : String(original), { cause: original });
  }
}

// The client's errors, most specific first (a subclass before the class it extends).
const SERVICE_CODES: ReadonlyArray<readonly [new (...args: never[]) => Error, ServiceErrorCode]> = [
  [AuthenticationError, ErrorCode.ServiceKeyRefused],
  [MissingScopeError, ErrorCode.ServiceScopeMissing],
  [PlanError, ErrorCode.ServicePlanWithoutApi],
  [ForbiddenError, ErrorCode.ServiceForbidden],
  [NotFoundError, ErrorCode.ServiceNotFound],
  [RateLimitedError, ErrorCode.ServiceRateLimited],
  [ValidationError, ErrorCode.ServiceInputRefused],
  [SubmissionNotAllowedError, ErrorCode.SubmissionNotAllowed],
  [IdempotencyConflictError, ErrorCode.IdempotencyConflict],
  [TimeoutError, ErrorCode.ServiceTimeout],
  [ConnectionError, ErrorCode.ServiceUnreachable],
  [ServerError, ErrorCode.ServiceFailed],
  [ResponseValidationError, ErrorCode.ServiceAnswerUnreadable],
];

/** Whatever was thrown, as a coded error: the app's own as they are, the client's and Slack's by kind. */
export function asCodedError(error: unknown): CodedError {
  if (error instanceof Error && CODES.has((error as { code?: unknown }).code as string)) {
    return error as CodedError;
  }
  for (const [kind, code] of SERVICE_CODES) {
    if (error instanceof kind) {
      return new ServiceFailure(code, error as never, madeWithOwnKey(error));
    }
  }
  if (slackErrorOf(error) === 'expired_trigger_id') return new SlackTriggerExpiredError(error);
  return new UnknownError(error);
}

const OWN_KEY = Symbol('made with a person’s own key');

/** Marks a failure of a call made with a person's own key, so the sentence says whose key. */
export function markOwnKey(error: unknown): void {
  if (typeof error === 'object' && error !== null && !(OWN_KEY in error))
    Object.defineProperty(error, OWN_KEY, { value: true });
}

/** Whether a client's failure came from a call made with a person's own key. */
export function madeWithOwnKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && OWN_KEY in error;
}

/** The `error` of a Web API call Slack refused (`slack_webapi_platform_error`), else null. */
export function slackErrorOf(error: unknown): string | null {
  const coded = error as { code?: unknown; data?: { error?: unknown } } | null;
  return coded?.code === 'slack_webapi_platform_error' && typeof coded.data?.error === 'string'
    ? coded.data.error
    : null;
}
