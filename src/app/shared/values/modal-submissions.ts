import { z } from 'zod';
import { CommentIds, ConnectIds } from '../ids.ts';

/**
 * Every modal's submission, read from `view.state.values` by one schema per modal, here and
 * nowhere else. A field Slack leaves out (an empty optional input) reads as empty text.
 */
const text = z
  .string()
  .nullish()
  .transform((value) => value ?? '');

/** One plain_text_input's block: `{ [action_id]: { value } }` → its text. */
function textInput(actionId: string) {
  return z
    .object({ [actionId]: z.object({ value: text }).loose().optional() })
    .loose()
    .optional()
    .transform((block) => (block?.[actionId] as { value: string } | undefined)?.value ?? '');
}

export const ConnectSubmission = z
  .object({
    [ConnectIds.keyBlock]: textInput(ConnectIds.keyInput),
    [ConnectIds.urlBlock]: textInput(ConnectIds.urlInput),
  })
  .loose()
  .transform((values) => ({
    key: values[ConnectIds.keyBlock] as string,
    serviceUrl: values[ConnectIds.urlBlock] as string,
  }));

export type ConnectSubmitted = z.output<typeof ConnectSubmission>;

/** The connect modal's fields; anything unreadable reads as empty, which the modal then asks for. */
export function parseConnectSubmission(values: unknown): ConnectSubmitted {
  const parsed = ConnectSubmission.safeParse(values ?? {});
  return parsed.success ? parsed.data : { key: '', serviceUrl: '' };
}

/**
 * The comment modal: its text, and the reply choice as the option's value (decoded by the codec
 * later; null when no reply is chosen).
 */
export const CommentSubmission = z
  .object({
    [CommentIds.textBlock]: textInput(CommentIds.textInput),
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
    const parentBlock = values[CommentIds.parentBlock] as
      | Record<string, { selected_option?: { value: string } | null } | undefined>
      | undefined;
    return {
      text: values[CommentIds.textBlock] as string,
      parentValue: parentBlock?.[CommentIds.parentInput]?.selected_option?.value ?? null,
    };
  });

export type CommentSubmitted = z.output<typeof CommentSubmission>;

/** The comment modal's fields; anything unreadable reads as empty, which the submission then asks for. */
export function parseCommentSubmission(values: unknown): CommentSubmitted {
  const parsed = CommentSubmission.safeParse(values ?? {});
  return parsed.success ? parsed.data : { text: '', parentValue: null };
}
