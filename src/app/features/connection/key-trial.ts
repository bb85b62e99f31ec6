import {
  AuthenticationError,
  ConnectionError,
  MissingScopeError,
  PlanError,
  ProcurementClientError,
  TimeoutError,
} from '../../../client/errors.ts';
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import { type FieldErrors, type PlainSentence, plainSentence } from '../../shared/views/plain-sentence.ts';

/** A connect window's answer: its fields' refusals, or null to close it. */
export type SubmissionAnswer = FieldErrors | null;

/** A key with a character no key has (API_KEY_CHARACTERS): said, not tried (it read as "the service did not answer"). */
export const KEY_MISCOPIED = plainSentence`An API key is letters, digits and punctuation, with no spaces, curly quotes or emoji; this one has something else in it, so it was not copied whole. Copy it again from the service’s developer settings.`;

/**
 * Tries a key with one search before it is saved: null when the service accepts it, else the
 * field at fault (the key, or the service's address) and what to do, in the window's words.
 */
export async function tryKey(
  client: ProcurementClient,
): Promise<{ field: 'key' | 'url'; sentence: PlainSentence } | null> {
  try {
    await client.tenders.search({ limit: 1 });
    return null;
  } catch (error) {
    if (error instanceof AuthenticationError) {
      const reasons: Record<string, PlainSentence> = {
        expired_api_key: plainSentence`This key has expired. Make a new one in the service’s developer settings.`,
        disabled_api_key: plainSentence`This key is disabled: its creator is no longer in the organisation.`,
      };
      return {
        field: 'key',
        sentence:
          reasons[error.code] ??
          plainSentence`The service does not recognise this key. Check that it was copied whole.`,
      };
    }
    if (error instanceof MissingScopeError)
      return {
        field: 'key',
        sentence: plainSentence`This key is not allowed to read tenders. Make a key that may read tenders (and what your team needs besides) and paste that one.`,
      };
    if (error instanceof PlanError)
      return { field: 'key', sentence: plainSentence`This organisation’s plan has no API access.` };
    if (error instanceof ConnectionError || error instanceof TimeoutError) {
      return {
        field: 'url',
        sentence: plainSentence`The service did not answer at this address. Check it, or leave it empty for the default.`,
      };
    }
    // The answer's own words are not shown: they come from a server, not from Tenderbot.
    if (error instanceof ProcurementClientError)
      return {
        field: 'key',
        sentence: plainSentence`The service refused the key. Check that it was copied whole, or make a new one.`,
      };
    throw error;
  } finally {
    await client.close();
  }
}
