import { z } from 'zod';
import { type PIPELINE_STATUSES, STAGE_STATUSES } from '../../../contract/schemas.ts';

/**
 * The schemas of every value the pipelines feature writes into Slack (option values, button
 * values, private_metadata) and reads back through src/app/shared/values/codec.ts. Short keys: an option
 * value holds 150 characters, and a state that does not fit is kept in the bot's store.
 */
const id = z.string().trim().min(1).max(300);

/** Every pipeline status a person may set from Slack: `submitted` belongs to the service's own workflow. */
export const SETTABLE_PIPELINE_STATUSES = [
  'draft',
  'qualifying',
  'bidding',
  'on_hold',
  'won',
  'lost',
  'no_bid',
] as const satisfies readonly Exclude<(typeof PIPELINE_STATUSES)[number], 'submitted'>[];

/** A pipeline (Archive, Restore, Post in channel). */
export const PipelineRefValue = z.strictObject({ p: id });
/** One stage of a pipeline ("Notes and due date"). */
export const StageRefValue = z.strictObject({ p: id, s: id });
/** An option of a stage's status select. */
export const StageStatusOptionValue = z.strictObject({ p: id, s: id, v: z.enum(STAGE_STATUSES) });
/** An option of the pipeline's status select (never `submitted`). */
export const PipelineStatusOptionValue = z.strictObject({
  p: id,
  v: z.enum(SETTABLE_PIPELINE_STATUSES),
});
/**
 * The "Start a bid" modal: the tender, the creation's idempotency key, and where to post the card.
 * Forms' metadata drops keys it does not know (see FORM_METADATA in codec.ts): a form opened by a
 * newer copy is answered by an older one during a rolling update.
 */
export const StartBidMetadataValue = z.object({
  t: id.nullable(),
  k: z.string().uuid(),
  c: z.string().max(50),
  /** The tender's deadline while ahead, as the form said it (forms opened before it have none). */
  d: z.string().max(40).optional(),
});
/** The "Notes and due date" modal: the stage, and the card it was opened from (for its thread). */
export const StageNotesMetadataValue = z.object({
  p: id,
  s: id,
  c: z.string().max(50),
  ts: z.string().max(50).nullable(),
  /** The "All stages" form the notes were opened on top of: redrawn once they are saved. */
  u: z.string().max(50).optional(),
});
/** The "Edit details" modal: the bid, its stages' ids in card order, and the card it was opened from. */
export const EditBidMetadataValue = z.object({
  p: id,
  s: z.array(id).max(100),
  c: z.string().max(50),
  ts: z.string().max(50).nullable(),
  /** The tender's deadline while ahead, as the form said it (forms opened before it have none). */
  d: z.string().max(40).optional(),
});
