import { z } from 'zod';

/** A body in one of Slack's shapes, or the reason it is not (the 400's text). */
export type ParsedBody = { ok: true; body: Record<string, unknown> } | { ok: false; problem: string };

const FORM = 'application/x-www-form-urlencoded';

const User = z.looseObject({ id: z.string().min(1) });
const Team = z.looseObject({ id: z.string() }).nullish();

/** The least of each interaction Bolt's routing and the listeners read; the rest passes through. */
const Interaction = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('block_actions'),
    user: User,
    team: Team,
    actions: z
      .array(
        z.looseObject({
          action_id: z.string().min(1),
          block_id: z.string().optional(),
          type: z.string().optional(),
          value: z.string().optional(),
        }),
      )
      .min(1),
    response_url: z.string().optional(),
    trigger_id: z.string().optional(),
  }),
  z.looseObject({
    type: z.enum(['view_submission', 'view_closed']),
    user: User,
    team: Team,
    view: z.looseObject({
      id: z.string().optional(),
      callback_id: z.string(),
      private_metadata: z.string().optional(),
      state: z.looseObject({ values: z.record(z.string(), z.record(z.string(), z.unknown())) }).optional(),
    }),
  }),
  z.looseObject({ type: z.enum(['shortcut', 'message_action']), user: User, callback_id: z.string() }),
  z.looseObject({
    type: z.literal('block_suggestion'),
    user: User,
    action_id: z.string(),
    value: z.string(),
  }),
]);

const Command = z.looseObject({
  command: z.string().startsWith('/'),
  user_id: z.string().min(1),
  team_id: z.string().optional(),
  channel_id: z.string().optional(),
  response_url: z.string().optional(),
  trigger_id: z.string().optional(),
});

const EventEnvelope = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('url_verification'), challenge: z.string() }),
  z.looseObject({
    type: z.literal('event_callback'),
    event_id: z.string().optional(),
    team_id: z.string().optional(),
    event: z.looseObject({ type: z.string() }),
  }),
  z.looseObject({ type: z.literal('app_rate_limited') }),
]);

/**
 * Reads a signed body into the object Bolt expects, refusing anything that is not one of Slack's
 * shapes. Linear in the body: one pass of URLSearchParams or JSON.parse, then a bounded check.
 * A form field given twice counts once (its first value), as it would in Slack's single field.
 * `form` is the same text already read as a form (the receiver reads it once for both uses).
 */
export function parseSlackBody(
  text: string,
  contentType: string | undefined,
  form?: URLSearchParams,
): ParsedBody {
  if (contentType === FORM) {
    const fields = firstValues(form ?? new URLSearchParams(text));
    if (fields.payload !== undefined) {
      const payload = parseJsonObject(fields.payload);
      if (!payload) return { ok: false, problem: 'The payload field is not a JSON object.' };
      const checked = Interaction.safeParse(payload);
      return checked.success
        ? { ok: true, body: checked.data }
        : {
            ok: false,
            problem: `The payload is not an interaction Tenderbot handles (${where(checked.error)}).`,
          };
    }
    // A command Slack sends without text (nothing typed after it) still gets its answer.
    const command = Command.safeParse({ text: '', ...fields });
    return command.success
      ? { ok: true, body: command.data }
      : { ok: false, problem: `The form is neither a command nor an interaction (${where(command.error)}).` };
  }
  if (contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType)) {
    const body = parseJsonObject(text);
    if (!body) return { ok: false, problem: 'The body is not a JSON object.' };
    const checked = EventEnvelope.safeParse(body);
    return checked.success
      ? { ok: true, body: checked.data }
      : { ok: false, problem: `The body is not an event Tenderbot handles (${where(checked.error)}).` };
  }
  return {
    ok: false,
    problem: `Content-Type must be ${FORM} or application/json.`,
  };
}

function firstValues(params: URLSearchParams): Record<string, string> {
  // No prototype, so a field named __proto__ stays a plain field (and no Map to copy from).
  const fields: Record<string, string> = Object.create(null);
  for (const [name, value] of params) if (!Object.hasOwn(fields, name)) fields[name] = value;
  return fields;
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** The first problem's place, for the log and the 400 (never the body's text itself). */
function where(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'type'}: ${issue.message}` : 'unknown shape';
}
