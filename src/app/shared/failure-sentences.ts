import type { Scope } from '../../contract/schemas.ts';
import { cutText } from '../../shared/cut-text.ts';
import { asCodedError, type CodedError, ErrorCode, type ServiceFailure } from './errors.ts';
import { code, escapeMrkdwn, joinMrkdwn, type Mrkdwn, mrkdwn, text } from './views/mrkdwn.ts';

export interface FailureDescription {
  /** What happened and what to do, in one or two sentences. */
  sentence: Mrkdwn;
  /** Whether trying again later may work (offer "Try again"). */
  retryable: boolean;
}

/** Said to a person whose write PersonalKeyRequiredError stopped: nothing was written. */
export const PERSONAL_KEY_REQUIRED_SENTENCE = mrkdwn`In this workspace, changes are made with each person’s own key, and you have not linked yours. Run \`/tender connect me\` to link it, then try again. Nothing was changed.`;

export const EXPIRED_TRIGGER_SENTENCE = mrkdwn`That took too long: Slack gives Tenderbot 3 seconds to open a window, and they had passed. Run it again.`;

/**
 * The one place that decides what a person is told when something fails, by the failure's code
 * (a new code is a compile error here until it has its sentence). The sentences go into mrkdwn:
 * any text from the service (a problem's detail, field names) is escaped here.
 */
export function describeFailure(error: unknown): FailureDescription {
  const [sentence, retryable] = sentenceOf(asCodedError(error));
  return { sentence, retryable };
}

function sentenceOf(error: CodedError): [Mrkdwn, boolean] {
  const failure = error as CodedError & Partial<Pick<ServiceFailure, 'original' | 'ownKey'>>;
  const ownKey = failure.ownKey === true;
  switch (error.code) {
    case ErrorCode.PersonalKeyRequired:
      return [PERSONAL_KEY_REQUIRED_SENTENCE, false];
    case ErrorCode.KeyUnreadable:
      return (error as CodedError & { userId: string | null }).userId !== null
        ? [
            mrkdwn`Tenderbot can no longer read your own API key (its encryption key was changed). Link it again with \`/tender connect me\`, or unlink it with \`/tender disconnect me\`.`,
            false,
          ]
        : [
            mrkdwn`Tenderbot can no longer read this workspace’s stored API key (its encryption key was changed). A workspace admin must reconnect with \`/tender connect\`.`,
            false,
          ];
    case ErrorCode.ServiceUrlRefused:
      return [
        mrkdwn`This workspace’s key is connected to a service address Tenderbot does not allow. A workspace admin must connect the key again with \`/tender connect\`.`,
        false,
      ];
    case ErrorCode.NotConnected:
      return [
        mrkdwn`This workspace has no API key yet. A workspace admin can add one with \`/tender connect\`.`,
        false,
      ];
    case ErrorCode.ServiceKeyRefused: {
      const code = (failure.original as { code?: string } | undefined)?.code ?? '';
      if (ownKey) {
        const why: Record<string, string> = {
          expired_api_key: 'Your own API key has expired.',
          disabled_api_key:
            'Your own API key was disabled because the person who made it left the organisation.',
          invalid_api_key: 'The service no longer recognises your own API key.',
        };
        return [
          mrkdwn`${text(why[code] ?? 'The service refused your own API key.')} Make a new one and link it with \`/tender connect me\`, or unlink it with \`/tender disconnect me\` to use the workspace’s.`,
          false,
        ];
      }
      const why: Record<string, string> = {
        expired_api_key: 'The workspace’s API key has expired.',
        disabled_api_key:
          'The workspace’s API key was disabled because the person who made it left the organisation.',
        invalid_api_key: 'The service no longer recognises the workspace’s API key.',
        missing_api_key: 'No API key was sent to the service.',
      };
      return [
        mrkdwn`${text(why[code] ?? 'The service refused the workspace’s API key.')} A workspace admin must make a new key and run \`/tender connect\`.`,
        false,
      ];
    }
    case ErrorCode.ServiceScopeMissing: {
      const scope = (failure.original as { requiredScope?: Scope | null } | undefined)?.requiredScope;
      const allowed = text(scope ? SCOPE_WORDS[scope] : 'do that');
      return ownKey
        ? [
            mrkdwn`Your own key is not allowed to ${allowed}. Make a key that may, and link it with \`/tender connect me\`.`,
            false,
          ]
        : [
            mrkdwn`This workspace’s key is not allowed to ${allowed}. Ask whoever made the key for one that may, and have a workspace admin connect it with \`/tender connect\`.`,
            false,
          ];
    }
    case ErrorCode.ServicePlanWithoutApi:
      return [
        mrkdwn`Your organisation’s plan has no API access. An owner can upgrade it to Professional or Enterprise.`,
        false,
      ];
    case ErrorCode.ServiceForbidden:
      return [
        mrkdwn`The service did not allow this: ${escapeMrkdwn(clipped((failure.original as { detail?: string } | undefined)?.detail ?? ''))}`,
        false,
      ];
    case ErrorCode.ServiceNotFound:
      return [mrkdwn`That record was not found: it may have been removed, or the id may be mistyped.`, false];
    case ErrorCode.ServiceRateLimited: {
      const retryAfter = (failure.original as { retryAfter?: number | null } | undefined)?.retryAfter ?? null;
      const wait =
        retryAfter === null ? 'a moment' : `${Math.ceil(retryAfter)} second${retryAfter > 1 ? 's' : ''}`;
      return [
        mrkdwn`The service is busy with ${ownKey ? mrkdwn`your own key’s` : mrkdwn`this workspace’s`} requests. Try again in ${text(wait)}.`,
        true,
      ];
    }
    case ErrorCode.ServiceInputRefused: {
      const fieldErrors =
        (failure.original as { fieldErrors?: { field: string; message: string }[] } | undefined)
          ?.fieldErrors ?? [];
      // Words that look like an API key (a key pasted into a search): the service never takes one
      // in a URL, which logs keep. Said as what it is, not as words too many.
      if (fieldErrors.some((field) => /API key/i.test(field.message))) {
        return [
          mrkdwn`What you typed holds something that looks like an API key, and a key is never sent in a search (addresses are written into logs). Search without it. If it is a real key, treat it as shared: make a new one, connect it with ${code('/tender connect')}, then delete this one.`,
          false,
        ];
      }
      // The words typed are the one thing a person sends the service as they are (a search's, a
      // directory's, a pipeline list's `q`): said in words, whichever command sent them.
      if (
        fieldErrors.length > 0 &&
        fieldErrors.every((field) => field.field === 'q' && tooLong(field.message))
      ) {
        return [
          mrkdwn`Those words are too many for one search (500 characters at most). Use fewer words.`,
          false,
        ];
      }
      // The validator's own words ("Too big: expected string…") are the service's, not a person's:
      // each field is named and what is wrong with it said in words.
      const said = fieldErrors.slice(0, 3).map(fieldSentence);
      // "the search words" are many: them, as two fields are.
      const many = said.length > 1 || fieldErrors[0]?.field === 'q';
      return [
        said.length > 0
          ? mrkdwn`The tender service did not accept ${orJoined(said)}. Change ${many ? mrkdwn`them` : mrkdwn`it`} and try again.`
          : mrkdwn`The tender service did not accept the request. Check what you typed and try again.`,
        false,
      ];
    }
    case ErrorCode.SubmissionNotAllowed:
      return [
        mrkdwn`A bid is submitted through the Procurement Intelligence Service’s own submission workflow, not from Slack.`,
        false,
      ];
    case ErrorCode.IdempotencyConflict:
      return [mrkdwn`That was already done with different details; please start again.`, false];
    case ErrorCode.ServiceTimeout:
      return [
        mrkdwn`The tender service did not answer in time. It may be busy; try again in a minute.`,
        true,
      ];
    case ErrorCode.ServiceUnreachable:
      return [
        mrkdwn`Tenderbot could not reach the tender service: it may be down or restarting. Try again in a few minutes.`,
        true,
      ];
    case ErrorCode.ServiceFailed:
      return [mrkdwn`The procurement service failed to answer. It is usually back within minutes.`, true];
    case ErrorCode.ServiceAnswerUnreadable:
      return [
        mrkdwn`The procurement service answered in a form Tenderbot does not understand. We have logged it.`,
        false,
      ];
    case ErrorCode.SlackTriggerExpired:
      // Slack lets a window open only within 3 s of the click or command; nothing is broken.
      return [EXPIRED_TRIGGER_SENTENCE, true];
    case ErrorCode.Unknown:
      return [mrkdwn`Something went wrong on Tenderbot’s side. We have logged it.`, true];
    default:
      return assertNever(error.code);
  }
}

function assertNever(code: never): never {
  throw new Error(`no sentence for failure code ${String(code)}`);
}

/** The service's own words, cut to a length a sentence can carry. */
/** What a person calls each field the service may refuse (its name otherwise, as code). */
const FIELD_WORDS: Readonly<Record<string, string>> = {
  q: 'the search words',
  region: 'the region',
  cpv: 'the CPV code',
  status: 'the status',
  buyerId: 'the buyer',
  id: 'the id',
  name: 'the name',
  body: 'the comment',
  notes: 'the notes',
  summary: 'the summary',
  reference: 'the reference',
  currency: 'the currency',
  valueMin: 'the lowest value',
  valueMax: 'the highest value',
  limit: 'the number of results',
  dueDate: 'the due date',
  targetSubmissionDate: 'the target date',
  tenderId: 'the tender',
  stages: 'the stages',
};

/** Whether a field error says the value is too long. */
function tooLong(message: string): boolean {
  return LONGEST.test(message);
}

const LONGEST = /<=\s*(\d+)\s*characters|at most (\d+) characters/i;

/** `the region (too long: 200 characters at most)`, from a field the service refused. */
function fieldSentence({ field, message }: { field: string; message: string }): Mrkdwn {
  const words = FIELD_WORDS[field];
  const named = words ? text(words) : mrkdwn`the field ${code(field, 60)}`;
  const longest = LONGEST.exec(message);
  if (longest) return mrkdwn`${named} (too long: ${text(longest[1] ?? longest[2] ?? '')} characters at most)`;
  if (/>=\s*1\s*characters|blank|empty/i.test(message)) return mrkdwn`${named} (empty)`;
  if (/too small/i.test(message)) return mrkdwn`${named} (too small)`;
  if (/too big/i.test(message)) return mrkdwn`${named} (too large)`;
  if (/real calendar date/i.test(message)) return mrkdwn`${named} (not a day the calendar has)`;
  return named;
}

/** `a`, `a or b`, `a, b or c`. */
function orJoined(parts: readonly Mrkdwn[]): Mrkdwn {
  const last = parts.at(-1) ?? mrkdwn``;
  return parts.length > 1 ? mrkdwn`${joinMrkdwn(parts.slice(0, -1), mrkdwn`, `)} or ${last}` : last;
}

function clipped(words: string): string {
  return cutText(words, 300, '…');
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
