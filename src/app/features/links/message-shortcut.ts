import { z } from 'zod';
import { cutText } from '../../../shared/cut-text.ts';
import type { AppSlack } from '../../adapters/app-slack.ts';
import { describeFailure } from '../../shared/failure-sentences.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { ReachIds, TENDER_PICKER } from '../../shared/ids.ts';
import { clip, mrkdwn } from '../../shared/views/mrkdwn.ts';
import { type FieldErrors, fieldErrors, plainSentence } from '../../shared/views/plain-sentence.ts';
import type { SafeModalView as ModalView } from '../../shared/views/safe-blocks.ts';
import { section } from '../../shared/views/tender-card.ts';
import { COMMENT_INPUT_MAX, showCommentModal } from '../comments/index.ts';
import { serviceOrigins } from './direct-messages.ts';
import { firstTender } from './find-tender.ts';
import { linksInText, noticeRefsInText } from './notice-links.ts';
import { tenderPickerModal } from './views/search-builder-modal.ts';

/** The part of a shortcut's `message` that is read: its text, and the text and links of its blocks and attachments. */
export interface ShortcutMessage {
  text?: string;
  user?: string;
  blocks?: unknown[];
  attachments?: unknown[];
}

/** Every string inside blocks or attachments (texts, URLs), for finding the tender a card names. */
function stringsIn(value: unknown, out: string[], depth = 0): void {
  if (depth > 8 || out.length > 500) return;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, out, depth + 1);
  else if (value && typeof value === 'object')
    for (const item of Object.values(value as Record<string, unknown>)) stringsIn(item, out, depth + 1);
}

/** Everything of a message that may name a tender: its text first, then its blocks and attachments. */
export function searchableText(message: ShortcutMessage): string {
  const parts: string[] = [message.text ?? ''];
  stringsIn(message.blocks ?? [], parts);
  stringsIn(message.attachments ?? [], parts);
  return cutText(parts.join('\n'), 40_000);
}

/**
 * The message as the comment's opening lines, in plain words: Slack's markup turned into text
 * (`<url|label>` → `label (url)`, mentions → `@name`), each line quoted with `> `, within the box's 3,000.
 */
export function quoteMessage(text: string, names: ReadonlyMap<string, string> = new Map()): string {
  const plain = text
    .replace(
      /<@([UW][A-Z0-9]+)(?:\|([^>]*))?>/g,
      (_, id: string, label?: string) => `@${label || names.get(id) || 'someone'}`,
    )
    .replace(/<#[CG][A-Z0-9]+\|([^>]*)>/g, (_, name: string) => `#${name}`)
    .replace(/<!(here|channel|everyone)[^>]*>/g, (_, word: string) => `@${word}`)
    .replace(/<(https?:\/\/[^|>]+)\|([^>]*)>/g, (_, url: string, label: string) =>
      label === url ? url : `${label} (${url})`,
    )
    .replace(/<(https?:\/\/[^>]+)>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();
  if (!plain) return '';
  const quoted = plain
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
  // Room is left below the quote for the person's own words.
  return `${clip(quoted, COMMENT_INPUT_MAX - 500)}\n\n`;
}

/** The tender picker's metadata: the channel the message is in and the quote to carry on. */
export const TenderPickerMetadata = z.strictObject({
  c: z.string().max(50).nullable(),
  q: z.string().max(COMMENT_INPUT_MAX),
});
export type TenderPickerMetadata = z.infer<typeof TenderPickerMetadata>;

/** Written as JSON within Slack's 3,000 characters of private_metadata (the quote is cut to fit). */
export function pickerMetadata(state: TenderPickerMetadata): string {
  let quote = state.q;
  for (;;) {
    const text = JSON.stringify({ c: state.c, q: quote });
    if (text.length <= 3000) return text;
    quote = clip(quote, Math.max(0, quote.length - (text.length - 3000) - 10));
  }
}

/** Read back (a broken or forged one is null: the picker then says to start again). */
export function readPickerMetadata(text: string | undefined): TenderPickerMetadata | null {
  try {
    const parsed = TenderPickerMetadata.safeParse(JSON.parse(text ?? ''));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Names of the people mentioned in a message (at most 5 asked, 1 s in all; a failure leaves "someone"). */
async function mentionedNames(slack: AppSlack, text: string): Promise<Map<string, string>> {
  const ids = [
    ...new Set([...text.matchAll(/<@([UW][A-Z0-9]+)>/g)].map((match) => match[1] as string)),
  ].slice(0, 5);
  const names = new Map<string, string>();
  await Promise.race([
    Promise.all(
      ids.map(async (id) => {
        try {
          const answer = await slack.users.info({ user: id });
          const name = answer.user?.profile?.display_name || answer.user?.real_name || answer.user?.name;
          if (name) names.set(id, name);
        } catch {
          // "someone" it is.
        }
      }),
    ),
    new Promise((resolve) => setTimeout(resolve, 1000).unref()),
  ]);
  return names;
}

function loadingView(): ModalView {
  return {
    type: 'modal' as const,
    callback_id: TENDER_PICKER.callback,
    title: { type: 'plain_text' as const, text: 'Comment on a tender' },
    close: { type: 'plain_text' as const, text: 'Close' },
    blocks: [section(mrkdwn`Looking for the tender this message is about…`)],
  };
}

/**
 * "Comment on a tender" on any message: a window opens at once (the trigger lasts 3 s); if the
 * message names a tender the service holds (a notice link or an id, in its text or its cards),
 * it becomes that tender's comment window with the message quoted in the box; otherwise it asks
 * which tender (the picker), and the comment window follows.
 */
export async function commentOnMessage(
  context: FeatureContext,
  request: SlackRequest,
  args: { triggerId: string; message: ShortcutMessage },
): Promise<void> {
  const opened = await request.slack.views.open({ trigger_id: args.triggerId, view: loadingView() });
  const viewId = opened.view?.id;
  if (!viewId) throw new Error('views.open answered without a view id');
  const text = args.message.text ?? '';
  const quote = quoteMessage(text, await mentionedNames(request.slack, text));
  const show = (view: ModalView) =>
    request.slack.views.update({ view_id: viewId, view: view }).then(
      () => undefined,
      (error: unknown) =>
        context.logger.warn({ err: error, teamId: request.teamId }, 'could not update the comment window'),
    );
  let found: Awaited<ReturnType<typeof firstTender>>;
  try {
    const { client } = await context.clients.forTeam(request.teamId);
    const refs = noticeRefsInText(searchableText(args.message), serviceOrigins(context));
    found = refs.length > 0 ? await firstTender(client, refs) : null;
  } catch (error) {
    context.logger.warn(
      { err: error, teamId: request.teamId },
      'the message shortcut could not look up the tender',
    );
    await show({ ...loadingView(), blocks: [section(mrkdwn`:warning: ${describeFailure(error).sentence}`)] });
    return;
  }
  if (found) {
    await showCommentModal(
      context,
      request,
      { target: { entityType: 'tender', entityId: found.tender.id }, ...(quote ? { text: quote } : {}) },
      async (view) => {
        await request.slack.views.update({ view_id: viewId, view: view });
        return viewId;
      },
    );
    return;
  }
  const metadata = pickerMetadata({
    c: /^[CDG][A-Z0-9]{1,30}$/.test(request.channelId) ? request.channelId : null,
    q: quote,
  });
  await show(tenderPickerModal({ privateMetadata: metadata, quoted: quote || linksInText(text).join(' ') }));
}

export type PickerAnswer = FieldErrors | { response_action: 'update'; view: ModalView } | undefined;

const Chosen = z.looseObject({
  [TENDER_PICKER.block]: z.looseObject({
    [TENDER_PICKER.action]: z.looseObject({
      selected_option: z.looseObject({ value: z.string().min(1).max(150) }).nullish(),
    }),
  }),
});

/**
 * The picker's submission: the chosen tender's comment window replaces the picker (Slack keeps
 * the same window), with the quote in the box. A missing choice stays on its field.
 */
export async function submitTenderPicker(
  context: FeatureContext,
  slack: AppSlack,
  args: { teamId: string; userId: string; values: unknown; privateMetadata: string; viewId: string },
  ack: (answer?: PickerAnswer) => Promise<void>,
): Promise<void> {
  const parsed = Chosen.safeParse(args.values ?? {});
  const tenderId = parsed.success
    ? parsed.data[TENDER_PICKER.block][TENDER_PICKER.action].selected_option?.value
    : undefined;
  if (!tenderId) {
    await ack(
      fieldErrors({ [TENDER_PICKER.block]: plainSentence`Choose a tender first: type words of its title.` }),
    );
    return;
  }
  const state = readPickerMetadata(args.privateMetadata);
  if (!state) {
    await ack(
      fieldErrors({
        [TENDER_PICKER.block]: plainSentence`This window is out of date. Close it and use “Comment on a tender” on the message again.`,
      }),
    );
    return;
  }
  const request: SlackRequest = {
    teamId: args.teamId,
    userId: args.userId,
    channelId: state.c ?? '',
    slack,
    kind: 'click',
    // The comment window says everything itself; nothing is posted elsewhere.
    respond: (async () => undefined) as unknown as SlackRequest['respond'],
  };
  await showCommentModal(
    context,
    request,
    { target: { entityType: 'tender', entityId: tenderId }, ...(state.q ? { text: state.q } : {}) },
    async (view) => {
      await ack({ response_action: 'update', view });
      return args.viewId;
    },
  );
}

/** The action id of the picker's select, for the options listener. */
export const TENDER_SELECT_ACTION = ReachIds.tenderSelect;
