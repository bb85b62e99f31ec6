/**
 * Tenders and bids as Work Object entities (docs/work-objects.md): what `chat.unfurl` gives under
 * `metadata.entities` and `entity.presentDetails` under `metadata`. Pure: no I/O. Slack draws the
 * values as plain text, so outside text goes in as it is (clipped), never as mrkdwn.
 */
import type { EntityMetadata } from '@slack/types';
import type { Pipeline, Stage, Tender } from '../../../../contract/schemas.ts';
import { cutText } from '../../../../shared/cut-text.ts';
import { STAGE_LABELS, STATUS_LABELS } from '../../../shared/views/bid-parts.ts';
import { formatMoney } from '../../../shared/views/formats.ts';
import { formatDeadline } from '../../../shared/views/tender-card.ts';

/** Our own `external_ref.type`s: the flexpane's event names which of the two to look up. */
export const ENTITY_REF_TYPES = { tender: 'tender', bid: 'bid' } as const;

/** The entity types the manifest declares: a tender is an item, a bid a task (status, due date, assignee). */
export const TENDER_ENTITY_TYPE = 'slack#/entities/item';
export const BID_ENTITY_TYPE = 'slack#/entities/task';

const PRODUCT_NAME = 'Tenderbot';
/** Slack's title is one line; longer titles are cut with an ellipsis. */
const TITLE_MAX = 200;
const VALUE_MAX = 300;

function clipped(value: string, max: number): string {
  return cutText(value, max, '…');
}

function words(status: string): string {
  const spaced = status.replace(/_/g, ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** Where the entity lives, and the exact link pasted (the unfurl's key; left out for the flexpane). */
export interface EntityPlace {
  url: string;
  appUnfurlUrl?: string;
}

function placed(place: EntityPlace): Pick<EntityMetadata, 'url' | 'app_unfurl_url'> {
  return { url: place.url, ...(place.appUnfurlUrl ? { app_unfurl_url: place.appUnfurlUrl } : {}) };
}

/** A tender: status, deadline, buyer and value. */
export function tenderEntity(tender: Tender, place: EntityPlace, now: Date): EntityMetadata {
  return {
    entity_type: TENDER_ENTITY_TYPE,
    ...placed(place),
    external_ref: { id: tender.id, type: ENTITY_REF_TYPES.tender },
    entity_payload: {
      attributes: {
        title: { text: clipped(tender.title, TITLE_MAX) },
        display_type: 'Tender',
        display_id: clipped(tender.id, VALUE_MAX),
        product_name: PRODUCT_NAME,
      },
      custom_fields: [
        { key: 'status', label: 'Status', type: 'string', value: words(tender.status) },
        {
          key: 'deadline',
          label: 'Deadline',
          type: 'string',
          value: formatDeadline(tender.deadline, now),
        },
        {
          key: 'buyer',
          label: 'Buyer',
          type: 'string',
          value: tender.buyer ? clipped(tender.buyer.name, VALUE_MAX) : 'Not stated',
        },
        { key: 'value', label: 'Value', type: 'string', value: formatMoney(tender.value) },
      ],
      display_order: ['status', 'deadline', 'buyer', 'value'],
    },
  };
}

/** The stage the bid is at: the first one not completed (by position), or null when all are. */
export function currentStage(stages: readonly Stage[]): Stage | null {
  return (
    [...stages].sort((a, b) => a.position - b.position).find((stage) => stage.status !== 'completed') ?? null
  );
}

function stageLine(stages: readonly Stage[]): string {
  if (stages.length === 0) return 'No stages';
  const stage = currentStage(stages);
  if (!stage) return 'All stages completed';
  return `${clipped(stage.name, VALUE_MAX)} (${STAGE_LABELS[stage.status]})`;
}

/** A bid: status, stage, target date and owner. */
/** `reference` is the bid's `BID-7`: what people see and type for it, never its service id. */
export function bidEntity(bid: Pipeline, place: EntityPlace, reference: string): EntityMetadata {
  return {
    entity_type: BID_ENTITY_TYPE,
    ...placed(place),
    external_ref: { id: bid.id, type: ENTITY_REF_TYPES.bid },
    entity_payload: {
      attributes: {
        title: { text: clipped(bid.name, TITLE_MAX) },
        display_type: 'Bid',
        display_id: clipped(reference, VALUE_MAX),
        product_name: PRODUCT_NAME,
      },
      fields: {
        status: { value: STATUS_LABELS[bid.status] },
        ...(bid.targetSubmissionDate
          ? { due_date: { type: 'slack#/types/date', value: bid.targetSubmissionDate } }
          : {}),
        assignee: { type: 'slack#/types/user', user: { text: clipped(bid.owner.name, VALUE_MAX) } },
      },
      custom_fields: [
        { key: 'stage', label: 'Stage', type: 'string', value: stageLine(bid.stages) },
        {
          key: 'target_date',
          label: 'Target date',
          type: 'string',
          value: bid.targetSubmissionDate ?? 'No target date set',
        },
      ],
      display_order: ['status', 'stage', 'due_date', 'target_date', 'assignee'],
    },
  };
}
