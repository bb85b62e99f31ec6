import { z } from 'zod';
import { CommentIds } from '../ids.ts';

/**
 * The comment modal's fields, read from `view.state.values` by one schema (as the connect modal's
 * are in src/app/state/modal-submissions.ts). Anything unreadable reads as empty, which the
 * submission then asks for; the reply choice is the option's value, decoded by the codec later.
 */
const text = z
  .string()
  .nullish()
  .transform((value) => value ?? '');

export const CommentSubmission = z
  .object({
    [CommentIds.textBlock]: z
      .object({ [CommentIds.textInput]: z.object({ value: text }).loose().optional() })
      .loose()
      .optional(),
    [CommentIds.parentBlock]: z
      .object({
        [CommentIds.parentInput]: z
          .object({
            selected_option: z
              .object({ value: z.string().max(2000) })
              .loose()
              .nullish(),
          })
          .loose()
          .optional(),
      })
      .loose()
      .optional(),
  })
  .loose()
  .transform((values) => {
    const textBlock = values[CommentIds.textBlock] as
      | Record<string, { value: string } | undefined>
      | undefined;
    const parentBlock = values[CommentIds.parentBlock] as
      | Record<string, { selected_option?: { value: string } | null } | undefined>
      | undefined;
    return {
      text: textBlock?.[CommentIds.textInput]?.value ?? '',
      parentValue: parentBlock?.[CommentIds.parentInput]?.selected_option?.value ?? null,
    };
  });

export type CommentSubmitted = z.output<typeof CommentSubmission>;

export function parseCommentSubmission(values: unknown): CommentSubmitted {
  const parsed = CommentSubmission.safeParse(values ?? {});
  return parsed.success ? parsed.data : { text: '', parentValue: null };
}
