import { z } from 'zod';
import { COMMENT_ENTITY_TYPES, RecordId, SlackUserId } from './button-values.ts';

/**
 * The comment modal's private_metadata (through the codec): what it comments on, the entity's
 * name once known, the idempotency key made when the modal opened, and where to say "posted".
 */
export const CommentModalMetadataValue = z.object({
  e: z.enum(COMMENT_ENTITY_TYPES),
  id: RecordId,
  /** Made once when the modal opens; every submission of this modal derives its key from it. */
  k: z.uuid(),
  /** The channel the modal was opened from (null: from a DM-less place, the person is told by DM). */
  c: z
    .string()
    .regex(/^[CDG][A-Z0-9]{1,30}$/)
    .nullable(),
  /** The entity's name, for the sentence after posting. */
  n: z.string().max(300).optional(),
  /** Who opened it: a submission by anyone else is refused. */
  u: SlackUserId,
});
export type CommentModalMetadata = z.infer<typeof CommentModalMetadataValue>;

/** "Delete" on one comment in the modal: the comment's id (the entity comes from the modal's metadata). */
export const CommentDeleteValue = z.strictObject({ d: RecordId });
