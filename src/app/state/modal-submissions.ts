import { z } from 'zod';
import { ConnectIds } from '../ids.ts';

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
