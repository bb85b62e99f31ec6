import type { Buyer, Tender } from '../../../../contract/schemas.ts';
import { TENDER_STATUSES, VALUE_CURRENCIES, type ValueCurrency } from '../../../../contract/schemas.ts';
import { ReachIds, SEARCH_BUILDER_FIELDS, TENDER_PICKER } from '../../../shared/ids.ts';
import { offerableRegions } from '../../../shared/regions.ts';
import { OPTIONS_MAX } from '../../../shared/views/block-kit-limits.ts';
import { clip, type Mrkdwn, mrkdwn, safeText } from '../../../shared/views/mrkdwn.ts';
import type { SafeModalView as ModalView } from '../../../shared/views/safe-blocks.ts';
import { type Block, contextLine, section } from '../../../shared/views/tender-card.ts';

/** What a person sees, for the tests and the notes. */
export const SEARCH_BUILDER_LABELS = {
  title: 'Search tenders',
  submit: 'Search',
  close: 'Cancel',
  words: 'Words',
  region: 'Region',
  status: 'Status',
  valueMin: 'Value at least',
  valueMax: 'Value at most',
  currency: 'Values in',
  closes: 'Closing within',
  cpv: 'CPV code starts with',
  buyer: 'Buyer',
  pickerTitle: 'Comment on a tender',
  pickerSubmit: 'Next',
  pickerLabel: 'Which tender is this about?',
} as const;

/**
 * "Values in": the currency the two amounts are in, as `currency:` is in a typed search. Pounds
 * first and chosen at first, as the service takes GBP when none is named.
 */
export const CURRENCY_LABELS: Record<ValueCurrency, string> = {
  GBP: 'Pounds (GBP)',
  EUR: 'Euros (EUR)',
  USD: 'US dollars (USD)',
  CAD: 'Canadian dollars (CAD)',
};

/** "Closing within" choices, in days. */
export const CLOSING_WITHIN_DAYS = [7, 14, 30, 60, 90] as const;

const STATUS_LABELS: Record<(typeof TENDER_STATUSES)[number], string> = {
  open: 'Open',
  planned: 'Planned',
  closed: 'Closed',
  awarded: 'Awarded',
  cancelled: 'Cancelled',
};

function plain(text: string) {
  return { type: 'plain_text' as const, text: clip(text, 75) };
}

function option(text: string, value: string) {
  return { text: plain(text), value };
}

function modalShell(args: {
  callbackId: string;
  privateMetadata: string;
  title: string;
  submit?: string;
  blocks: Block[];
}): ModalView {
  return {
    type: 'modal' as const,
    callback_id: args.callbackId,
    private_metadata: args.privateMetadata,
    title: { type: 'plain_text' as const, text: args.title },
    ...(args.submit ? { submit: { type: 'plain_text' as const, text: args.submit } } : {}),
    close: { type: 'plain_text' as const, text: args.submit ? SEARCH_BUILDER_LABELS.close : 'Close' },
    blocks: args.blocks,
  };
}

/** Opened at once (the trigger lasts 3 s) while the regions are read. */
export function searchBuilderLoadingView(privateMetadata: string): ModalView {
  return modalShell({
    callbackId: ReachIds.searchBuilderCallback,
    privateMetadata,
    title: SEARCH_BUILDER_LABELS.title,
    blocks: [section(mrkdwn`Loading the search form…`)],
  });
}

/** A sentence in place of the form (the service cannot be reached, no key connected). */
export function searchBuilderProblemView(privateMetadata: string, sentence: Mrkdwn): ModalView {
  return modalShell({
    callbackId: ReachIds.searchBuilderCallback,
    privateMetadata,
    title: SEARCH_BUILDER_LABELS.title,
    blocks: [section(mrkdwn`:warning: ${sentence}`)],
  });
}

function textInput(
  field: { block: string; action: string },
  label: string,
  args: { placeholder?: string; hint?: string; maxLength: number },
): Block {
  return {
    type: 'input',
    block_id: field.block,
    optional: true,
    label: plain(label),
    ...(args.hint ? { hint: { type: 'plain_text', text: args.hint } } : {}),
    element: {
      type: 'plain_text_input',
      action_id: field.action,
      max_length: args.maxLength,
      ...(args.placeholder ? { placeholder: plain(args.placeholder) } : {}),
    },
  } as Block;
}

/** The first choice of each select, chosen at first: a Slack select cannot be emptied once picked. */
export const ANY = 'any';

function staticSelect(
  field: { block: string; action: string },
  label: string,
  anyLabel: string,
  options: { text: { type: 'plain_text'; text: string }; value: string }[],
): Block {
  const any = option(anyLabel, ANY);
  return {
    type: 'input',
    block_id: field.block,
    optional: true,
    label: plain(label),
    element: {
      type: 'static_select',
      action_id: field.action,
      placeholder: plain(anyLabel),
      initial_option: any,
      options: [any, ...options].slice(0, OPTIONS_MAX),
    },
  } as Block;
}

/**
 * The currency of the value amounts: a select whose first choice is pounds, so a form left alone
 * compares as `value>1m` does (in pounds, other currencies converted at the rates the answer names).
 */
function currencySelect(): Block {
  const { block, action } = SEARCH_BUILDER_FIELDS.currency;
  const [pounds, ...others] = VALUE_CURRENCIES.map((currency) => option(CURRENCY_LABELS[currency], currency));
  return {
    type: 'input',
    block_id: block,
    optional: true,
    label: plain(SEARCH_BUILDER_LABELS.currency),
    hint: {
      type: 'plain_text',
      text: 'The currency of the values above. Tenders valued in another currency are converted at the dated reference rates the answer names.',
    },
    element: {
      type: 'static_select',
      action_id: action,
      initial_option: pounds,
      options: [pounds, ...others],
    },
  } as Block;
}

/**
 * The search builder: words, region (from the data), status, value range and its currency, closing within, CPV
 * prefix and buyer (an external select that searches buyers as one types). Every field is
 * optional; an empty form searches everything, as `/tender search` does.
 */
export function searchBuilderModal(args: { privateMetadata: string; regions: readonly string[] }): ModalView {
  const F = SEARCH_BUILDER_FIELDS;
  const L = SEARCH_BUILDER_LABELS;
  const regions = offerableRegions(args.regions);
  const blocks: Block[] = [
    contextLine(
      mrkdwn`Every field is optional. The answer shows the same cards as \`/tender search\`, and the command that gives them.`,
    ),
    textInput(F.words, L.words, { placeholder: 'cleaning, school meals, software…', maxLength: 200 }),
  ];
  if (regions.length > 0)
    blocks.push(
      staticSelect(
        F.region,
        L.region,
        'Any region',
        regions.map((region) => option(region, region)),
      ),
    );
  blocks.push(
    staticSelect(
      F.status,
      L.status,
      'Any status',
      TENDER_STATUSES.map((status) => option(STATUS_LABELS[status], status)),
    ),
    textInput(F.valueMin, L.valueMin, {
      placeholder: '100k',
      hint: 'An amount such as 250000, 100k or 2.5m.',
      maxLength: 20,
    }),
    textInput(F.valueMax, L.valueMax, { placeholder: '2.5m', maxLength: 20 }),
    currencySelect(),
    staticSelect(
      F.closes,
      L.closes,
      'Any closing date',
      CLOSING_WITHIN_DAYS.map((days) => option(`${days} days`, String(days))),
    ),
    textInput(F.cpv, L.cpv, {
      placeholder: '72',
      hint: 'The first digits of a CPV code: 72 is IT services.',
      maxLength: 8,
    }),
    {
      type: 'input',
      block_id: F.buyer.block,
      optional: true,
      label: plain(L.buyer),
      element: {
        type: 'external_select',
        action_id: F.buyer.action,
        placeholder: plain('Type part of a buyer’s name'),
        min_query_length: 2,
      },
    } as Block,
  );
  return modalShell({
    callbackId: ReachIds.searchBuilderCallback,
    privateMetadata: args.privateMetadata,
    title: L.title,
    submit: L.submit,
    blocks,
  });
}

/** The external select's options: buyers matching what was typed (`{options: []}` when none). */
export function buyerOptions(buyers: readonly Buyer[]) {
  return {
    options: buyers.slice(0, OPTIONS_MAX).flatMap((buyer) => {
      const place = buyer.region ?? buyer.locality;
      return buyer.id.length <= 150
        ? [option(place ? `${buyer.name} (${place})` : buyer.name, buyer.id)]
        : [];
    }),
  };
}

/** The tender picker's options: tenders matching what was typed (ids over 150 characters cannot be offered). */
export function tenderOptions(tenders: readonly Tender[]) {
  return {
    options: tenders
      .slice(0, OPTIONS_MAX)
      .flatMap((tender) =>
        tender.id.length <= 150 ? [option(`${tender.title} · ${tender.id}`, tender.id)] : [],
      ),
  };
}

/**
 * "Which tender?": the message shortcut on a message that names no tender. The quoted message is
 * shown; choosing a tender and pressing Next opens the comment window with it.
 */
export function tenderPickerModal(args: { privateMetadata: string; quoted: string }): ModalView {
  return modalShell({
    callbackId: TENDER_PICKER.callback,
    privateMetadata: args.privateMetadata,
    title: SEARCH_BUILDER_LABELS.pickerTitle,
    submit: SEARCH_BUILDER_LABELS.pickerSubmit,
    blocks: [
      section(mrkdwn`This message names no tender that Tenderbot knows. Choose the tender to comment on:`),
      contextLine(safeText(args.quoted, 2900) || mrkdwn`(the message has no text)`),
      {
        type: 'input',
        block_id: TENDER_PICKER.block,
        label: plain(SEARCH_BUILDER_LABELS.pickerLabel),
        element: {
          type: 'external_select',
          action_id: TENDER_PICKER.action,
          placeholder: plain('Type words of its title, or its id'),
          min_query_length: 2,
        },
      } as Block,
    ],
  });
}
