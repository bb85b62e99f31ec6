import { SavedSearchesStore } from '../../../../src/service/store/saved-searches-store.ts';
import { KEYS } from '../../../support/fixture.ts';
import { mrkdwnStrings } from '../../../support/slack-text.ts';
import type { Harness, Instance } from '../../delivery/harness.ts';

/**
 * Max (U0MEMBER) reads with Dave's key: Beta's saved searches, "Beta: software" (no bounds) and two
 * with value bounds saved here, "Beta: big gritting" (over £1,000,000) and "Beta: small euro works"
 * (up to €50,000).
 */
export async function saveBetaSearchesWithBounds(harness: Harness, instance: Instance): Promise<void> {
  await harness.linkPersonalKey(instance.store, 'U0MEMBER', KEYS.daveBeta);
  const saved = new SavedSearchesStore(harness.sandbox.db);
  const now = new Date(harness.now).toISOString();
  for (const [id, name, query] of [
    ['ss-beta-big', 'Beta: big gritting', { q: 'gritting', valueMin: 1_000_000 }],
    ['ss-beta-euro', 'Beta: small euro works', { valueMax: 50_000, currency: 'eur' }],
  ] as const)
    saved.insert({ id, organisationId: 'org-beta', name, query: { ...query } }, now);
}

/** Every line of mrkdwn a payload shows (a view or a message). */
export const linesOf = (payload: unknown) => mrkdwnStrings(payload).flatMap(({ text }) => text.split('\n'));

/** A saved search's entry in a list: the line naming it in bold, and those under it up to the next name. */
export const entryOf = (lines: string[], name: string) => {
  const at = lines.findIndex((line) => line.includes(`*${name}*`));
  if (at < 0) return '';
  const next = lines.findIndex((line, index) => index > at && line.startsWith('*'));
  return lines.slice(at, next < 0 ? undefined : next).join('\n');
};
