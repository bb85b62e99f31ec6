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
import type { Scope } from '../../contract/schemas.ts';
import { escapeMrkdwn, type Mrkdwn, mrkdwn, text } from '../blocks/mrkdwn.ts';
import {
  KeyUnreadableError,
  madeWithOwnKey,
  NotConnectedError,
  PERSONAL_KEY_REQUIRED_SENTENCE,
  PersonalKeyRequiredError,
  ServiceUrlRefusedError,
} from './workspace-clients.ts';

export interface FailureDescription {
  /** What happened and what to do, in one or two sentences. */
  sentence: Mrkdwn;
  /** Whether trying again later may work (offer "Try again"). */
  retryable: boolean;
}

/**
 * The one place that decides what a person is told when something fails. The sentences go into
 * mrkdwn: any text from the service (a problem's detail, field names) is escaped here.
 */
export function describeFailure(error: unknown): FailureDescription {
  if (error instanceof PersonalKeyRequiredError)
    return { sentence: PERSONAL_KEY_REQUIRED_SENTENCE, retryable: false };
  if (error instanceof KeyUnreadableError && error.userId !== null) {
    return {
      sentence: mrkdwn`Tenderbot can no longer read your own API key (its encryption key was changed). Link it again with \`/tender connect me\`, or unlink it with \`/tender disconnect me\`.`,
      retryable: false,
    };
  }
  if (error instanceof ServiceUrlRefusedError) {
    return {
      sentence: mrkdwn`This workspace’s key is connected to a service address Tenderbot does not allow. A workspace admin must connect the key again with \`/tender connect\`.`,
      retryable: false,
    };
  }
  if (error instanceof KeyUnreadableError) {
    return {
      sentence: mrkdwn`Tenderbot can no longer read this workspace’s stored API key (its encryption key was changed). A workspace admin must reconnect with \`/tender connect\`.`,
      retryable: false,
    };
  }
  if (error instanceof NotConnectedError) {
    return {
      sentence: mrkdwn`This workspace has no API key yet. A workspace admin can add one with \`/tender connect\`.`,
      retryable: false,
    };
  }
  const ownKey = madeWithOwnKey(error);
  if (error instanceof AuthenticationError && ownKey) {
    const why: Record<string, string> = {
      expired_api_key: 'Your own API key has expired.',
      disabled_api_key: 'Your own API key was disabled because the person who made it left the organisation.',
      invalid_api_key: 'The service no longer recognises your own API key.',
    };
    return {
      sentence: mrkdwn`${text(why[error.code] ?? 'The service refused your own API key.')} Make a new one and link it with \`/tender connect me\`, or unlink it with \`/tender disconnect me\` to use the workspace’s.`,
      retryable: false,
    };
  }
  if (error instanceof MissingScopeError && ownKey) {
    return {
      sentence: mrkdwn`Your own key is not allowed to ${text(error.requiredScope ? SCOPE_WORDS[error.requiredScope] : 'do that')}. Make a key that may, and link it with \`/tender connect me\`.`,
      retryable: false,
    };
  }
  if (error instanceof AuthenticationError) {
    const why: Record<string, string> = {
      expired_api_key: 'The workspace’s API key has expired.',
      disabled_api_key:
        'The workspace’s API key was disabled because the person who made it left the organisation.',
      invalid_api_key: 'The service no longer recognises the workspace’s API key.',
      missing_api_key: 'No API key was sent to the service.',
    };
    return {
      sentence: mrkdwn`${text(why[error.code] ?? 'The service refused the workspace’s API key.')} A workspace admin must make a new key and run \`/tender connect\`.`,
      retryable: false,
    };
  }
  if (error instanceof MissingScopeError) {
    return {
      sentence: mrkdwn`This workspace’s key is not allowed to ${text(error.requiredScope ? SCOPE_WORDS[error.requiredScope] : 'do that')}. Ask whoever made the key for one that may, and have a workspace admin connect it with \`/tender connect\`.`,
      retryable: false,
    };
  }
  if (error instanceof PlanError) {
    return {
      sentence: mrkdwn`Your organisation’s plan has no API access. An owner can upgrade it to Professional or Enterprise.`,
      retryable: false,
    };
  }
  if (error instanceof ForbiddenError) {
    return {
      sentence: mrkdwn`The service did not allow this: ${escapeMrkdwn(clipped(error.detail))}`,
      retryable: false,
    };
  }
  if (error instanceof NotFoundError) {
    return {
      sentence: mrkdwn`That record was not found: it may have been removed, or the id may be mistyped.`,
      retryable: false,
    };
  }
  if (error instanceof RateLimitedError) {
    const wait =
      error.retryAfter === null
        ? 'a moment'
        : `${Math.ceil(error.retryAfter)} second${error.retryAfter > 1 ? 's' : ''}`;
    return {
      sentence: mrkdwn`The service is busy with ${ownKey ? mrkdwn`your own key’s` : mrkdwn`this workspace’s`} requests. Try again in ${text(wait)}.`,
      retryable: true,
    };
  }
  if (error instanceof ValidationError) {
    // The words typed are the one thing a person sends the service as they are (a search's, a
    // directory's, a pipeline list's `q`): said in words, whichever command sent them.
    if (error.fieldErrors.length > 0 && error.fieldErrors.every((field) => field.field === 'q')) {
      return {
        sentence: mrkdwn`Those words are too many for one search (500 characters at most). Use fewer words.`,
        retryable: false,
      };
    }
    const fields = escapeMrkdwn(
      clipped(
        error.fieldErrors
          .slice(0, 5)
          .map((field) => `${field.field} ${field.message}`)
          .join('; '),
      ),
    );
    return {
      sentence: mrkdwn`The service refused the request${fields ? mrkdwn`: ${fields}` : mrkdwn``}.`,
      retryable: false,
    };
  }
  if (error instanceof SubmissionNotAllowedError) {
    return {
      sentence: mrkdwn`A bid is submitted through the service’s own submission workflow, not from Slack.`,
      retryable: false,
    };
  }
  if (error instanceof IdempotencyConflictError) {
    return {
      sentence: mrkdwn`That was already done with different details; please start again.`,
      retryable: false,
    };
  }
  if (error instanceof TimeoutError) {
    return {
      sentence: mrkdwn`The tender service did not answer in time. It may be busy; try again in a minute.`,
      retryable: true,
    };
  }
  if (error instanceof ConnectionError) {
    return {
      sentence: mrkdwn`Tenderbot could not reach the tender service: it may be down or restarting. Try again in a few minutes.`,
      retryable: true,
    };
  }
  if (error instanceof ServerError) {
    return {
      sentence: mrkdwn`The procurement service failed to answer. It is usually back within minutes.`,
      retryable: true,
    };
  }
  if (error instanceof ResponseValidationError) {
    return {
      sentence: mrkdwn`The procurement service answered in a form Tenderbot does not understand. We have logged it.`,
      retryable: false,
    };
  }
  if (slackErrorOf(error) === 'expired_trigger_id') {
    // Slack lets a window open only within 3 s of the click or command; nothing is broken.
    return { sentence: EXPIRED_TRIGGER_SENTENCE, retryable: true };
  }
  return { sentence: mrkdwn`Something went wrong on Tenderbot’s side. We have logged it.`, retryable: true };
}

export const EXPIRED_TRIGGER_SENTENCE = mrkdwn`That took too long: Slack gives Tenderbot 3 seconds to open a window, and they had passed. Run it again.`;

/** The `error` of a Web API call Slack refused (`slack_webapi_platform_error`), else null. */
function slackErrorOf(error: unknown): string | null {
  const coded = error as { code?: unknown; data?: { error?: unknown } } | null;
  return coded?.code === 'slack_webapi_platform_error' && typeof coded.data?.error === 'string'
    ? coded.data.error
    : null;
}

/** The service's own words, cut to a length a sentence can carry. */
function clipped(text: string): string {
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

/** What each scope of a key allows, in the words of a sentence ("… is not allowed to read bids"). */
const SCOPE_WORDS: Record<Scope, string> = {
  'tenders:read': 'read tenders',
  'buyers:read': 'read buyers',
  'suppliers:read': 'read suppliers',
  'frameworks:read': 'read frameworks',
  'bookmarks:read': 'read bookmarks',
  'bookmarks:write': 'change bookmarks',
  'saved-searches:read': 'read saved searches',
  'comments:read': 'read comments',
  'comments:write': 'write comments',
  'pipeline:read': 'read bids',
  'pipeline:write': 'start or change bids',
};
