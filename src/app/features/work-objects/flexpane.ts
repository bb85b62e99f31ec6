/**
 * The flexpane: `entity_details_requested` answered with `entity.presentDetails` for the person
 * who opened it, looked up with their own access (their linked key, else the workspace's), and
 * refused as the commands refuse: a bid their key cannot read is an error, never its details.
 */
import type { EntityMetadata } from '@slack/types';
import { ForbiddenError, NotFoundError } from '../../../client/errors.ts';
import type { Pipeline } from '../../../contract/schemas.ts';
import type { AppSlack } from '../../adapters/app-slack.ts';
import { describeFailure } from '../../shared/failure-sentences.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { bidReferences } from '../bids/index.ts';
import { bidEntity, ENTITY_REF_TYPES, tenderEntity } from './views/entities.ts';

/** What `entity_details_requested` carries that the answer needs. */
export interface DetailsRequest {
  teamId: string;
  userId: string;
  triggerId: string;
  externalRef: { id: string; type?: string };
  entityUrl: string;
}

/** entity.presentDetails' error object (its reference page). */
interface PresentError {
  status: 'restricted' | 'not_found' | 'internal_error' | 'custom';
  custom_title?: string;
  custom_message?: string;
  message_format?: 'markdown';
}

const LOOKUP_TIMEOUT_MS = 2500;

async function present(
  slack: AppSlack,
  triggerId: string,
  answer: { metadata: EntityMetadata } | { error: PresentError },
): Promise<void> {
  await slack.entity.presentDetails({ trigger_id: triggerId, ...answer });
}

/** Looks the entity up as this person and shows it to them, or says why not. */
export async function presentEntityDetails(
  context: FeatureContext,
  slack: AppSlack,
  request: DetailsRequest,
): Promise<void> {
  const { id, type } = request.externalRef;
  if (type !== ENTITY_REF_TYPES.tender && type !== ENTITY_REF_TYPES.bid) {
    await present(slack, request.triggerId, { error: { status: 'not_found' } });
    return;
  }
  let source: Awaited<ReturnType<FeatureContext['clients']['forPerson']>>['source'] = 'workspace';
  let answer: { metadata: EntityMetadata } | { error: PresentError };
  try {
    const chosen = await context.clients.forPerson(request.teamId, request.userId);
    source = chosen.source;
    const place = { url: request.entityUrl };
    const options = { timeoutMs: LOOKUP_TIMEOUT_MS };
    answer = {
      metadata:
        type === ENTITY_REF_TYPES.tender
          ? tenderEntity(await chosen.client.tenders.get(id, options), place, context.clock())
          : await bidEntityOf(context, request.teamId, await chosen.client.pipelines.get(id, options), place),
    };
  } catch (error) {
    answer = { error: refusal(error, type, source) };
  }
  // Outside the look-up's catch: Slack refusing the answer is logged by the listener, not shown as a refusal.
  await present(slack, request.triggerId, answer);
}

/** A bid's entity, named by its reference (`BID-7`). */
async function bidEntityOf(
  context: FeatureContext,
  teamId: string,
  bid: Pipeline,
  place: { url: string },
): Promise<EntityMetadata> {
  const reference = (await bidReferences(context, teamId, [bid.id])).get(bid.id) as string;
  return bidEntity(bid, place, reference);
}

/**
 * The commands' sentence for what went wrong, as the flexpane's error. It names no id: the
 * flexpane opens on the entity the person clicked, and a bid's id is a service id they never saw
 * (they know the bid as BID-7).
 */
function refusal(
  error: unknown,
  type: 'tender' | 'bid',
  source: 'personal' | 'workspace' | 'default',
): PresentError {
  if (error instanceof NotFoundError || error instanceof ForbiddenError) {
    const message =
      type === 'bid'
        ? source === 'personal'
          ? 'This bid cannot be seen with your own key: it may have been deleted, or not shared with you.'
          : 'This bid cannot be seen with this workspace’s key: it may have been deleted, or not shared with the person who made the key.'
        : source === 'personal'
          ? 'This tender cannot be seen with your own key.'
          : 'This tender cannot be seen with this workspace’s key.';
    return {
      status: 'custom',
      custom_title: type === 'bid' ? 'You cannot see this bid' : 'You cannot see this tender',
      custom_message: message,
      message_format: 'markdown',
    };
  }
  return {
    status: 'custom',
    custom_title: 'Tenderbot could not show this',
    custom_message: String(describeFailure(error).sentence),
    message_format: 'markdown',
  };
}
