import { describe, expect, it } from 'vitest';
import { unfurlBlocks } from '../../../../../src/app/features/links/unfurls.ts';
import {
  ANY,
  buyerOptions,
  searchBuilderModal,
  tenderOptions,
  tenderPickerModal,
} from '../../../../../src/app/features/links/views/search-builder-modal.ts';
import {
  SEARCH_BUILDER_FIELDS,
  TENDER_PICKER,
  TenderIds,
  UNFURL_IDS,
} from '../../../../../src/app/shared/ids.ts';
import { offerableRegions } from '../../../../../src/app/shared/regions.ts';
import { blockKitProblems } from '../../../../../src/app/shared/views/block-kit-limits.ts';
import { type Buyer, Tender, VALUE_CURRENCIES } from '../../../../../src/contract/schemas.ts';
import { buyerRecord } from '../../../../support/buyer-record.ts';

const tender = Tender.parse({
  id: 'ocds-b5fd17-2c0cffc3-8ce5-4dcf-b9ee-478aa5a4572c',
  title: 'Pressure Area Care <!channel> and Patient Handling',
  description: null,
  status: 'open',
  buyer: { id: '9711454a-f86c-5415-9d6b-f37e32a7b68e', name: 'NHS Supply Chain' },
  value: { amount: 100000, currency: 'GBP' },
  publishedAt: '2026-11-01T00:00:00Z',
  deadline: '2026-12-01T00:00:00Z',
  awardedAt: null,
  region: 'North West',
  cpvCodes: [],
  source: { name: 'Contracts Finder', id: 'tender_360842/1451168' },
  url: 'https://www.contractsfinder.service.gov.uk/Notice/5a115892-5c5e-4646-8a8f-150c9708a9dc',
  frameworkId: null,
  suppliers: [],
});

function buyer(name: string, id = '9711454a-f86c-5415-9d6b-f37e32a7b68e'): Buyer {
  return buyerRecord(name, id);
}

/** The checks of block-kit-limits.ts, but for the external selects it does not know yet (R5 in the notes). */
function problems(blocks: unknown[]): string[] {
  return blockKitProblems(blocks as never[], 'modal').filter(
    (problem) => !problem.includes('external_select'),
  );
}

describe('the search builder modal', () => {
  it('offers every field, optional, with the regions of the data sorted and each once', () => {
    const view = searchBuilderModal({
      privateMetadata: '',
      regions: ['Wales', 'north west', 'North West', 'London'],
    });
    const ids = view.blocks.flatMap((block) =>
      'block_id' in block && block.block_id ? [block.block_id] : [],
    );
    expect(ids).toEqual(Object.values(SEARCH_BUILDER_FIELDS).map((field) => field.block));
    expect(JSON.stringify(view.blocks)).toContain('"text":"London"');
    const region = view.blocks.find(
      (block) => 'block_id' in block && block.block_id === SEARCH_BUILDER_FIELDS.region.block,
    );
    const options = (region as { element: { options: { value: string }[] } }).element.options.map(
      (option) => option.value,
    );
    expect(options).toEqual([ANY, 'London', 'north west', 'Wales']);
    // Chosen at first, so an unwanted choice can be undone (a Slack select cannot be emptied).
    expect((region as { element: { initial_option: { value: string } } }).element.initial_option.value).toBe(
      ANY,
    );
    // The value bounds' currency: every one the service compares in, pounds chosen at first.
    const currency = view.blocks.find(
      (block) => 'block_id' in block && block.block_id === SEARCH_BUILDER_FIELDS.currency.block,
    ) as { element: { initial_option: { value: string }; options: { value: string }[] } };
    expect(currency.element.options.map((option) => option.value)).toEqual([...VALUE_CURRENCIES]);
    expect(currency.element.initial_option.value).toBe('GBP');
    expect(view.title.text.length).toBeLessThanOrEqual(24);
    expect(problems(view.blocks)).toEqual([]);
  });

  it('keeps the region list within Slack’s 100 options and leaves out names it cannot carry', () => {
    const regions = [
      ...Array.from({ length: 300 }, (_, index) => `Region ${index}`),
      'x'.repeat(76),
      'The "Quoted"',
      '',
    ];
    const offered = offerableRegions(regions);
    expect(offered).toHaveLength(99);
    expect(offered.every((name) => name.length <= 75 && !name.includes('"') && name.length > 0)).toBe(true);
    expect(problems(searchBuilderModal({ privateMetadata: '', regions }).blocks)).toEqual([]);
    // For reading what people type, every name that can be written, not only the select's.
    expect(offerableRegions(regions, Number.POSITIVE_INFINITY)).toHaveLength(300);
  });

  it('has no region field when the data names none', () => {
    const view = searchBuilderModal({ privateMetadata: '', regions: [] });
    expect(JSON.stringify(view.blocks)).not.toContain(SEARCH_BUILDER_FIELDS.region.block);
  });
});

describe('options as one types', () => {
  it('names each buyer with its place, within 75 characters, valued by its id', () => {
    const { options } = buyerOptions([buyer('NHS Supply Chain'), buyer('A'.repeat(200))]);
    expect(options[0]).toEqual({
      text: { type: 'plain_text', text: 'NHS Supply Chain (Scotland)' },
      value: buyer('x').id,
    });
    expect(options[1]?.text.text.length).toBeLessThanOrEqual(75);
  });

  it('names tenders by title and id, and leaves out an id too long to be a value', () => {
    const long = { ...tender, id: `ocds-x-${'1'.repeat(200)}` };
    const { options } = tenderOptions([tender, long]);
    expect(options).toHaveLength(1);
    expect(options[0]?.value).toBe(tender.id);
    expect(options[0]?.text.text.length).toBeLessThanOrEqual(75);
    expect(tenderOptions([]).options).toEqual([]);
  });
});

describe('the tender picker', () => {
  it('quotes the message (escaped) above a required tender choice', () => {
    const view = tenderPickerModal({ privateMetadata: '{}', quoted: '> <!channel> call the buyer' });
    const text = JSON.stringify(view.blocks);
    expect(text).toContain('&gt; &lt;!channel&gt; call the buyer');
    const input = view.blocks.find((block) => 'block_id' in block && block.block_id === TENDER_PICKER.block);
    expect(input).toMatchObject({ element: { type: 'external_select', action_id: TENDER_PICKER.action } });
    expect((input as { optional?: boolean }).optional).toBeUndefined();
    expect(problems(view.blocks)).toEqual([]);
  });
});

describe('a tender as a link preview', () => {
  it('is the card with its own Bookmark (which redraws the preview, not the message) and no Share, its title escaped', () => {
    const blocks = unfurlBlocks(tender, new Date('2026-11-22T00:00:00Z'));
    const text = JSON.stringify(blocks);
    expect(text).toContain('&lt;!channel&gt;');
    expect(text).not.toContain(`"${TenderIds.bookmark}"`);
    expect(text).toContain(`"action_id":"${UNFURL_IDS.bookmark}","value":"${tender.id}"`);
    expect(text).not.toContain(TenderIds.share);
    const bookmarked = JSON.stringify(unfurlBlocks(tender, new Date('2026-11-22T00:00:00Z'), true));
    expect(bookmarked).toContain(UNFURL_IDS.removeBookmark);
    // Removing from the workspace's list is asked first, as on a card shared in a channel.
    expect(bookmarked).toContain('"confirm"');
    expect(text).toContain('Start a bid');
    expect(text).toContain('Open original');
    // Compact: who, how much, when and whether open; not the region and CPV codes of the full card.
    expect(text).toContain('*Deadline*');
    expect(text).not.toContain('*Region*');
    expect(text).not.toContain('*CPV*');
    expect(blockKitProblems(blocks, 'message')).toEqual([]);
  });
});
