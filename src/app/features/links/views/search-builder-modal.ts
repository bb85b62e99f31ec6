import type { Buyer, Tender } from '../../../../contract/schemas.ts';
import { TENDER_STATUSES } from '../../../../contract/schemas.ts';
import { ReachIds } from '../../../shared/ids.ts';
import { clip, type Mrkdwn, mrkdwn, safeText } from '../../../shared/views/mrkdwn.ts';
import type { SafeModalView as ModalView } from '../../../shared/views/safe-blocks.ts';
import { type Block, contextLine, section } from '../../../shared/views/tender-card.ts';

/** The search builder's inputs: each block id and its element's action id. */
export const SEARCH_BUILDER_FIELDS = {
  words: { block: 'reach/sb_words_block', action: 'reach/sb_words' },
  region: { block: 'reach/sb_region_block', action: 'reach/sb_region' },
  status: { block: 'reach/sb_status_block', action: 'reach/sb_status' },
  valueMin: { block: 'reach/sb_value_min_block', action: 'reach/sb_value_min' },
  valueMax: { block: 'reach/sb_value_max_block', action: 'reach/sb_value_max' },
  closes: { block: 'reach/sb_closes_block', action: 'reach/sb_closes' },
  cpv: { block: 'reach/sb_cpv_block', action: 'reach/sb_cpv' },
  buyer: { block: 'reach/sb_buyer_block', action: ReachIds.buyerSelect },
} as const;

/** "Which tender?" after the message shortcut on a message that names none. */
export const TENDER_PICKER = {
  callback: 'reach/tender_picker',
  block: 'reach/tp_tender_block',
  action: ReachIds.tenderSelect,
} as const;

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
  closes: 'Closing within',
  cpv: 'CPV code starts with',
  buyer: 'Buyer',
  pickerTitle: 'Comment on a tender',
  pickerSubmit: 'Next',
  pickerLabel: 'Which tender is this about?',
} as const;

/** "Closing within" choices, in days. */
export const CLOSING_WITHIN_DAYS = [7, 14, 30, 60, 90] as const;

const STATUS_LABELS: Record<(typeof TENDER_STATUSES)[number], string> = {
  open: 'Open',
  planned: 'Planned',
  closed: 'Closed',
  awarded: 'Awarded',
  cancelled: 'Cancelled',
};

/** Slack's room: 100 options in a select, 75 characters of option text, 150 of value. */
const OPTIONS_MAX = 100;

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

/** Region names that can be offered: fit an option and can be written in `region:"…"`. */
export function offerableRegions(regions: readonly string[]): string[] {
  const seen = new Set<string>();
  const offered: string[] = [];
  for (const region of regions) {
    const name = region.trim();
    const key = name.toLowerCase();
    if (!name || name.length > 75 || name.includes('"') || seen.has(key)) continue;
    seen.add(key);
    offered.push(name);
  }
  // One place of the select's 100 is its "Any region".
  return offered.sort((a, b) => a.localeCompare(b, 'en-GB')).slice(0, OPTIONS_MAX - 1);
}

/**
 * The search builder: words, region (from the data), status, value range, closing within, CPV
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
