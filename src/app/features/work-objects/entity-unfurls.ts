/**
 * Link unfurls as Work Objects: `chat.unfurl` with `metadata.entities` (docs/work-objects.md).
 * Whether a workspace shows them is learnt from Slack's answer: a refusal keeps the plain card.
 */
import type { EntityMetadata } from '@slack/types';
import type { AppSlack } from '../../adapters/app-slack.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';

/** Where the previews go: the posted message, or the composer's unfurl id. */
export type UnfurlTarget =
  | { channel: string; ts: string }
  | { unfurl_id: string; source: 'composer' | 'conversations_history' };

/** Slack's answer when the app's Work Objects are not on in a workspace (remembered a while). */
const NOT_ENABLED = new Set(['feature_not_enabled', 'not_allowed', 'not_enabled']);
/** After a refusal, plain cards only for this long; then entities are tried again (an admin may turn them on). */
const REMEMBER_REFUSAL_MS = 60 * 60 * 1000;

const refusedUntil = new WeakMap<FeatureContext, Map<string, number>>();

function refusals(context: FeatureContext): Map<string, number> {
  let teams = refusedUntil.get(context);
  if (!teams) {
    teams = new Map();
    refusedUntil.set(context, teams);
  }
  return teams;
}

/** A bid link: the service's own `…/v1/pipelines/<id>` address; the bid's id, or null. */
export function recogniseBidLink(raw: string, serviceOrigins: readonly string[]): string | null {
  if (raw.length > 2000) return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  const own = serviceOrigins.some((origin) => {
    try {
      return new URL(origin).origin === url.origin;
    } catch {
      return false;
    }
  });
  if (!own) return null;
  const parts = url.pathname.split('/').filter(Boolean);
  const at = parts.lastIndexOf('pipelines');
  if (at < 1 || parts[at - 1] !== 'v1' || parts.length !== at + 2) return null;
  try {
    return decodeURIComponent(parts[at + 1] as string) || null;
  } catch {
    return null;
  }
}

/** Whether entities are worth trying for this workspace (no recent refusal). */
export function mayShowEntities(context: FeatureContext, teamId: string): boolean {
  const until = refusals(context).get(teamId);
  return until === undefined || until <= context.clock().getTime();
}

/**
 * Sends the entities; true when Slack took them. A refusal is logged and, when it says the
 * workspace does not have Work Objects, remembered, so the plain cards go out instead.
 */
export async function unfurlEntities(
  context: FeatureContext,
  slack: AppSlack,
  teamId: string,
  target: UnfurlTarget,
  entities: EntityMetadata[],
): Promise<boolean> {
  if (entities.length === 0 || !mayShowEntities(context, teamId)) return false;
  try {
    // metadata alone: the SDK's ChatUnfurlArguments takes `unfurls` or `metadata`.
    await slack.apiCall('chat.unfurl', { ...target, metadata: { entities } });
    return true;
  } catch (error) {
    const code = (error as { data?: { error?: unknown } }).data?.error;
    if (typeof code === 'string' && NOT_ENABLED.has(code))
      refusals(context).set(teamId, context.clock().getTime() + REMEMBER_REFUSAL_MS);
    else context.logger.warn({ err: error, teamId }, 'work objects refused; the plain card is shown');
    return false;
  }
}
