import { describe, expect, it } from 'vitest';
import {
  asCodedError,
  ErrorCode,
  KeyUnreadableError,
  markOwnKey,
  NotConnectedError,
  PersonalKeyRequiredError,
  ServiceFailure,
  ServiceUrlRefusedError,
  UnknownError,
} from '../../../src/app/shared/errors.ts';
import { describeFailure } from '../../../src/app/shared/failure-sentences.ts';
import {
  ApiError,
  ConnectionError,
  ResponseValidationError,
  TimeoutError,
} from '../../../src/client/errors.ts';

/** A failure as the client makes it from the service's answer. */
const answered = (status: number, code: string, extra: Record<string, unknown> = {}) =>
  ApiError.from(status, { code, detail: `detail of ${code}`, ...extra }, {});

describe('coded errors', () => {
  it('gives each of the client’s failures its own code, keeping the client’s error as the original', () => {
    const cases: [Error, ErrorCode][] = [
      [answered(401, 'expired_api_key'), ErrorCode.ServiceKeyRefused],
      [answered(403, 'missing_scope'), ErrorCode.ServiceScopeMissing],
      [answered(403, 'plan_without_api_access'), ErrorCode.ServicePlanWithoutApi],
      [answered(403, 'forbidden'), ErrorCode.ServiceForbidden],
      [answered(404, 'not_found'), ErrorCode.ServiceNotFound],
      [answered(429, 'rate_limited'), ErrorCode.ServiceRateLimited],
      [answered(400, 'invalid_request'), ErrorCode.ServiceInputRefused],
      [answered(409, 'pipeline_submission_not_allowed'), ErrorCode.SubmissionNotAllowed],
      [answered(409, 'idempotency_conflict'), ErrorCode.IdempotencyConflict],
      [answered(500, 'internal'), ErrorCode.ServiceFailed],
    ];
    for (const [error, code] of cases) {
      const coded = asCodedError(error);
      expect(coded, error.constructor.name).toBeInstanceOf(ServiceFailure);
      expect(coded.code, error.constructor.name).toBe(code);
      expect((coded as ServiceFailure).original).toBe(error);
    }
  });

  it('codes the transport’s failures, the app’s own, Slack’s expired trigger and anything else', () => {
    expect(asCodedError(new TimeoutError('slow')).code).toBe(ErrorCode.ServiceTimeout);
    expect(asCodedError(new ConnectionError('down')).code).toBe(ErrorCode.ServiceUnreachable);
    expect(asCodedError(new ResponseValidationError('tenders.get', [], null)).code).toBe(
      ErrorCode.ServiceAnswerUnreadable,
    );
    const own = [
      new NotConnectedError(),
      new KeyUnreadableError('T1'),
      new PersonalKeyRequiredError('T1', 'U1'),
      new ServiceUrlRefusedError('T1'),
    ];
    for (const error of own) expect(asCodedError(error)).toBe(error);
    const expired = { code: 'slack_webapi_platform_error', data: { error: 'expired_trigger_id' } };
    expect(asCodedError(expired).code).toBe(ErrorCode.SlackTriggerExpired);
    const bug = new TypeError('x is undefined');
    const unknown = asCodedError(bug);
    expect(unknown).toBeInstanceOf(UnknownError);
    expect(unknown.code).toBe(ErrorCode.Unknown);
    expect(asCodedError('a thrown string').code).toBe(ErrorCode.Unknown);
  });

  it('remembers whose key a failed call was made with', () => {
    const error = answered(429, 'rate_limited');
    expect((asCodedError(error) as ServiceFailure).ownKey).toBe(false);
    markOwnKey(error);
    expect((asCodedError(error) as ServiceFailure).ownKey).toBe(true);
    expect(describeFailure(error).sentence).toContain('your own key’s');
  });

  it('has a sentence for every code, none of them the generic one but Unknown’s', () => {
    const generic = describeFailure(new TypeError('bug')).sentence;
    const samples: Record<ErrorCode, unknown> = {
      [ErrorCode.NotConnected]: new NotConnectedError(),
      [ErrorCode.KeyUnreadable]: new KeyUnreadableError('T1'),
      [ErrorCode.PersonalKeyRequired]: new PersonalKeyRequiredError('T1', 'U1'),
      [ErrorCode.ServiceUrlRefused]: new ServiceUrlRefusedError('T1'),
      [ErrorCode.ServiceKeyRefused]: answered(401, 'expired_api_key'),
      [ErrorCode.ServiceScopeMissing]: answered(403, 'missing_scope'),
      [ErrorCode.ServicePlanWithoutApi]: answered(403, 'plan_without_api_access'),
      [ErrorCode.ServiceForbidden]: answered(403, 'forbidden'),
      [ErrorCode.ServiceNotFound]: answered(404, 'not_found'),
      [ErrorCode.ServiceRateLimited]: answered(429, 'rate_limited'),
      [ErrorCode.ServiceInputRefused]: answered(400, 'invalid_request'),
      [ErrorCode.SubmissionNotAllowed]: answered(409, 'pipeline_submission_not_allowed'),
      [ErrorCode.IdempotencyConflict]: answered(409, 'idempotency_conflict'),
      [ErrorCode.ServiceTimeout]: new TimeoutError('slow'),
      [ErrorCode.ServiceUnreachable]: new ConnectionError('down'),
      [ErrorCode.ServiceFailed]: answered(500, 'internal'),
      [ErrorCode.ServiceAnswerUnreadable]: new ResponseValidationError('tenders.get', [], null),
      [ErrorCode.SlackTriggerExpired]: {
        code: 'slack_webapi_platform_error',
        data: { error: 'expired_trigger_id' },
      },
      [ErrorCode.Unknown]: new Error('bug'),
    };
    const sentences = new Set<string>();
    for (const [code, error] of Object.entries(samples)) {
      expect(asCodedError(error).code).toBe(code);
      const { sentence } = describeFailure(error);
      if (code !== ErrorCode.Unknown) expect(sentence, code).not.toBe(generic);
      sentences.add(sentence);
    }
    expect(sentences.size).toBe(Object.keys(ErrorCode).length);
  });
});
