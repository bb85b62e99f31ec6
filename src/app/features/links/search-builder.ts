import { z } from 'zod';
import type { Buyer } from '../../../contract/schemas.ts';
import { DEFAULT_VALUE_CURRENCY, TENDER_STATUSES, VALUE_CURRENCIES } from '../../../contract/schemas.ts';
import { cutText } from '../../../shared/cut-text.ts';
import type { AppSlack } from '../../adapters/app-slack.ts';
import { amountProblem, readMoney } from '../../shared/commands/amounts.ts';
import { parseSearch } from '../../shared/commands/parse-command.ts';
import { describeFailure } from '../../shared/failure-sentences.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { withFailures } from '../../shared/feature-context.ts';
import { SEARCH_BUILDER_FIELDS } from '../../shared/ids.ts';
import { offerableRegions, regionsFor } from '../../shared/regions.ts';
import { decodeText, encodeIfFits } from '../../shared/values/codec.ts';
import { type Message, sentenceMessage } from '../../shared/views/messages.ts';
import { code, type Mrkdwn, mrkdwn } from '../../shared/views/mrkdwn.ts';
import {
  type FieldErrors,
  fieldErrors,
  type PlainSentence,
  plainOf,
  plainSentence,
} from '../../shared/views/plain-sentence.ts';
import type { SafeModalView as ModalView } from '../../shared/views/safe-blocks.ts';
import { searchCommand } from '../tenders/index.ts';
import { directMessageRequest, leavePointerToDirectMessages, serviceOrigins } from './direct-messages.ts';
import { findTender } from './find-tender.ts';
import { noticeRefsInText } from './notice-links.ts';
import {
  ANY,
  buyerOptions,
  CLOSING_WITHIN_DAYS,
  searchBuilderLoadingView,
  searchBuilderModal,
  searchBuilderProblemView,
  tenderOptions,
} from './views/search-builder-modal.ts';

/** Slack waits 3 s for options; the service gets this long, leaving room for the rest of the trip. */
export const OPTIONS_BUDGET_MS = 1500;

// ------------------------------------------------------------------------------------------------
// The form's values → the command a person could have typed

const Picked = z.looseObject({ value: z.string().max(200) }).nullish();
const Element = z.looseObject({
  value: z.string().max(3000).nullish(),
  selected_option: Picked,
});
/** `view.state.values`: block id → action id → element state. Anything else is ignored. */
const StateValues = z.record(z.string(), z.record(z.string(), Element));

export type BuiltSearch = { ok: true; text: string } | { ok: false; errors: Record<string, PlainSentence> };

function field(values: z.infer<typeof StateValues>, which: keyof typeof SEARCH_BUILDER_FIELDS) {
  const { block, action } = SEARCH_BUILDER_FIELDS[which];
  const element = values[block]?.[action];
  const choice = element?.selected_option?.value ?? null;
  return { text: (element?.value ?? '').trim(), choice: choice === ANY ? null : choice };
}

/** An amount as a person would type it: 100000 → `100k`, 2500000 → `2.5m`. */
export function amountWord(amount: number): string {
  for (const [unit, suffix] of [
    [1e9, 'b'],
    [1e6, 'm'],
    [1e3, 'k'],
  ] as const) {
    if (amount < unit) continue;
    const scaled = amount / unit;
    const rounded = Math.round(scaled * 100) / 100;
    if (Math.abs(rounded - scaled) < 1e-9) return `${rounded}${suffix}`;
  }
  return String(amount);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The `/tender search` text equivalent to the form, or a sentence per field that cannot be used.
 * The answer is then exactly the typed command's: the text runs through the same parser and code.
 */
export function searchTextFromForm(raw: unknown): BuiltSearch {
  const parsed = StateValues.safeParse(raw ?? {});
  const values = parsed.success ? parsed.data : {};
  const F = SEARCH_BUILDER_FIELDS;
  const errors: Record<string, PlainSentence> = {};
  const parts: string[] = [];

  const words = field(values, 'words').text.replace(/\s+/g, ' ');
  if (words) parts.push(words);

  const region = field(values, 'region').choice;
  if (region) {
    if (region.includes('"') || offerableRegions([region]).length === 0)
      errors[F.region.block] = plainSentence`Choose a region from the list again.`;
    else parts.push(`region:"${region}"`);
  }

  const status = field(values, 'status').choice;
  if (status) {
    if ((TENDER_STATUSES as readonly string[]).includes(status)) parts.push(`status:${status}`);
    else errors[F.status.block] = plainSentence`Choose a status from the list again.`;
  }

  const currency = field(values, 'currency').choice ?? DEFAULT_VALUE_CURRENCY;
  const amounts: Partial<Record<'valueMin' | 'valueMax', number>> = {};
  for (const which of ['valueMin', 'valueMax'] as const) {
    const typed = field(values, which).text;
    if (!typed) continue;
    const money = readMoney(typed.replace(/\s+/g, ''));
    const problem = money === null ? null : amountProblem(money.amount);
    if (money === null)
      errors[F[which].block] = plainSentence`Write an amount such as 250000, 100k or 2.5m (no words).`;
    else if (problem) errors[F[which].block] = plainSentence`That amount ${problem}.`;
    // A sign names a currency: it must be the one chosen, or `€1m` would be searched as £1m.
    else if (money.currency === 'dollars')
      errors[F[which].block] =
        plainSentence`Write the amount without $ and choose US or Canadian dollars under “Values in”.`;
    else if (money.currency && money.currency !== currency)
      errors[F[which].block] =
        plainSentence`This amount is in ${money.currency} but “Values in” says ${currency}: choose ${money.currency} there, or write the amount without its sign.`;
    else amounts[which] = money.amount;
  }
  if (amounts.valueMin !== undefined && amounts.valueMax !== undefined && amounts.valueMin > amounts.valueMax)
    errors[F.valueMax.block] =
      plainSentence`The largest value is smaller than the smallest: swap them or change one.`;
  if (amounts.valueMin !== undefined) parts.push(`value>=${amountWord(amounts.valueMin)}`);
  if (amounts.valueMax !== undefined) parts.push(`value<=${amountWord(amounts.valueMax)}`);
  // The amounts' currency, as a typed search names it: pounds (the service's default) are not
  // written, any other is, and only with an amount (a currency alone changes nothing).
  if (!(VALUE_CURRENCIES as readonly string[]).includes(currency))
    errors[F.currency.block] = plainSentence`Choose the currency from the list again.`;
  else if (currency !== DEFAULT_VALUE_CURRENCY && Object.keys(amounts).length > 0)
    parts.push(`currency:${currency.toLowerCase()}`);

  const closes = field(values, 'closes').choice;
  if (closes) {
    if ((CLOSING_WITHIN_DAYS as readonly number[]).includes(Number(closes)))
      parts.push(`closes<${Number(closes)}d`);
    else errors[F.closes.block] = plainSentence`Choose how soon it closes from the list again.`;
  }

  const cpv = field(values, 'cpv').text.replace(/\s+/g, '');
  if (cpv) {
    if (/^\d{1,8}$/.test(cpv)) parts.push(`cpv:${cpv}`);
    else
      errors[F.cpv.block] =
        plainSentence`Give the first digits of a CPV code, such as 72 or 90910000 (digits only).`;
  }

  const buyer = field(values, 'buyer').choice;
  if (buyer) {
    if (UUID.test(buyer)) parts.push(`buyer:${buyer}`);
    else errors[F.buyer.block] = plainSentence`Choose the buyer from the list again.`;
  }

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const text = parts.join(' ');
  // The fields are checked above; what the typed words bring (an unclosed quote, a filter given
  // twice, nothing searchable) is found by the same parser the search will run, and shown on the
  // Words field while the form is still open, not afterwards in a direct message. (Only whether it
  // reads is asked here: the date that closes<…d counts from does not change that.)
  const read = parseSearch(text, new Date());
  if (!read.ok) return { ok: false, errors: { [F.words.block]: wordsProblem(read.problem) } };
  return { ok: true, text };
}

/** A parser's sentence for the Words field: plain text (no code marks), and about the words. */
function wordsProblem(problem: Mrkdwn): PlainSentence {
  const sentence = plainOf(problem);
  if (sentence.startsWith('A quote is not closed'))
    return plainSentence`A quote in the words is not closed: close it, or take it out.`;
  const twice = /^(\S+) is given twice/.exec(sentence);
  if (twice)
    return plainSentence`The words give ${twice[1] ?? ''} as well as the form: take it out of the words, or clear its field.`;
  return sentence;
}

// ------------------------------------------------------------------------------------------------
// Opening the form

/**
 * "Search tenders" (global shortcut, or the button on the help card and the Home tab): a loading
 * window at once (the trigger lasts 3 s), then the form with the regions of the data.
 */
export async function openSearchBuilder(
  context: FeatureContext,
  slack: AppSlack,
  args: { teamId: string; userId: string; triggerId: string; channelId?: string },
): Promise<void> {
  // Opened from a channel: its answer, which comes in direct messages, leaves a pointer there.
  const metadata = (args.channelId && encodeIfFits('searchBuilder', { c: args.channelId }, 'metadata')) || '';
  const opened = await slack.views.open({
    trigger_id: args.triggerId,
    view: searchBuilderLoadingView(metadata),
  });
  const viewId = opened.view?.id;
  if (!viewId) throw new Error('views.open answered without a view id');
  let view: ModalView;
  try {
    view = searchBuilderModal({ privateMetadata: metadata, regions: await regionsFor(context, args.teamId) });
  } catch (error) {
    context.logger.warn(
      { err: error, teamId: args.teamId },
      'could not read the regions for the search form',
    );
    view = searchBuilderProblemView(metadata, describeFailure(error).sentence);
  }
  await slack.views
    .update({ view_id: viewId, view: view })
    .catch((error) =>
      context.logger.warn({ err: error, teamId: args.teamId }, 'could not draw the search form'),
    );
}

// ------------------------------------------------------------------------------------------------
// Submitting

export type SearchBuilderAnswer = FieldErrors | undefined;

/** A sentence before the results: the command that gives them, so it can be typed next time. */
export function commandHint(text: string): Message {
  const command = `/tender search ${text}`.trim();
  // The words are the person's own: a code span shows and copies them as typed (`value>=1k`).
  const sentence = mrkdwn`Your search, as a command you can type anywhere: ${code(command.replace(/`/g, "'"))}`;
  return sentenceMessage(sentence);
}

/**
 * The form's submission: problems stay on their fields; otherwise the window closes and the
 * answer comes in the person's direct messages with Tenderbot: the command, then the cards of
 * `/tender search` with that command (the same code path, so the same answer).
 */
export async function submitSearchBuilder(
  context: FeatureContext,
  slack: AppSlack,
  args: { teamId: string; userId: string; values: unknown; privateMetadata?: string },
  ack: (answer?: SearchBuilderAnswer) => Promise<void>,
): Promise<void> {
  const built = searchTextFromForm(args.values);
  if (!built.ok) {
    await ack(fieldErrors(built.errors));
    return;
  }
  await ack();
  await pointToDirectMessages(context, slack, args.userId, args.privateMetadata);
  const request = directMessageRequest(slack, { teamId: args.teamId, userId: args.userId });
  const text = await withBuyerName(context, args.teamId, built.text);
  await withFailures(context, request, 'search builder', `search ${text}`, async (guarded) => {
    const hint = commandHint(text);
    await guarded.respond({ response_type: 'ephemeral', replace_original: false, ...hint });
    await searchCommand(context, guarded, text);
  });
}

/** The one line left where the form was opened from (only to them): the answer is in direct messages. */
async function pointToDirectMessages(
  context: FeatureContext,
  slack: AppSlack,
  userId: string,
  metadata: string | undefined,
): Promise<void> {
  let channel: string;
  try {
    channel = decodeText('searchBuilder', metadata).c;
  } catch {
    return; // Opened where there is no channel (a shortcut, the Home tab), or by an older version.
  }
  await leavePointerToDirectMessages(context, slack, { channelId: channel, userId });
}

/**
 * `buyer:<id>` as `buyer:"Name"` when the name finds that buyer and no other, so the command shown
 * is one a person can read and type, and answers the same; otherwise the id stays.
 */
export async function withBuyerName(context: FeatureContext, teamId: string, text: string): Promise<string> {
  const id = /(?:^| )buyer:([0-9a-f-]{36})(?= |$)/i.exec(text)?.[1];
  if (!id) return text;
  try {
    const { client } = await context.clients.forTeam(teamId);
    const { name } = await client.buyers.get(id);
    if (!name.trim() || /["\u201C\u201D]/.test(name)) return text;
    // Only a name no other buyer matches: the command then adds no "several buyers match" note.
    const found = await client.buyers.list({ q: name, limit: 2 });
    const alone = found.pagination.total === 1 && found.data[0]?.id === id;
    return alone ? text.replace(`buyer:${id}`, `buyer:"${name.trim()}"`) : text;
  } catch (error) {
    context.logger.warn({ err: error, teamId }, 'the buyer’s name could not be read for the command');
    return text;
  }
}

// ------------------------------------------------------------------------------------------------
// Options as one types (Slack waits 3 s)

type Options = { options: { text: { type: 'plain_text'; text: string }; value: string }[] };

/** Buyers whose name matches what was typed, within Slack's time; none when the service is slow or fails. */
export async function buyerSuggestions(
  context: FeatureContext,
  teamId: string,
  typed: string,
): Promise<Options> {
  const words = cutText(typed.trim(), 100);
  if (words.length < 1) return { options: [] };
  try {
    const { client } = await context.clients.forTeam(teamId);
    const page = await client.buyers.list(
      { q: words, limit: 20 },
      { timeoutMs: OPTIONS_BUDGET_MS, maxRetries: 0 },
    );
    return buyerOptions(page.data as Buyer[]);
  } catch (error) {
    context.logger.warn({ err: error, teamId }, 'buyer options could not be read');
    return { options: [] };
  }
}

/** Tenders matching what was typed (words, an id, or a notice link), for "Which tender?". */
export async function tenderSuggestions(
  context: FeatureContext,
  teamId: string,
  typed: string,
): Promise<Options> {
  const words = cutText(typed.trim(), 300);
  if (!words) return { options: [] };
  const call = { timeoutMs: OPTIONS_BUDGET_MS, maxRetries: 0 };
  try {
    const { client } = await context.clients.forTeam(teamId);
    const [ref] = noticeRefsInText(words, serviceOrigins(context));
    if (ref) {
      const tender = await findTender(client, ref, { timeoutMs: OPTIONS_BUDGET_MS });
      return tenderOptions(tender ? [tender] : []);
    }
    const page = await client.tenders.search({ q: cutText(words, 200), limit: 20 }, call);
    return tenderOptions(page.data);
  } catch (error) {
    context.logger.warn({ err: error, teamId }, 'tender options could not be read');
    return { options: [] };
  }
}
