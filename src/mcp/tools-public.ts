import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import {
  Buyer,
  BuyerDetail,
  FRAMEWORK_STATUSES,
  FRAMEWORK_TYPES,
  Framework,
  FrameworkDetail,
  Supplier,
  SupplierDetail,
  TENDER_STATUSES,
  Tender,
  VALUE_CURRENCIES,
  type ValueRule,
} from '../contract/schemas.ts';
import {
  addTool,
  cursorInput,
  limitInput,
  listPage,
  pageOutput,
  READS,
  type ToolContext,
} from './tool-kit.ts';

const dateInput = (what: string) =>
  z.string().max(40).optional().describe(`${what}: a date (YYYY-MM-DD) or an ISO 8601 instant.`);
const wordsInput = (what: string) =>
  z
    .string()
    .max(500)
    .optional()
    .describe(`Words to find in ${what}; every word must match, each as the start of a word.`);

/** One line of a tender for the text beside the structured result. */
export function tenderLine(tender: Tender): string {
  const value = tender.value
    ? ` · ${tender.value.currency} ${tender.value.amount.toLocaleString('en-GB')}`
    : '';
  const deadline = tender.deadline ? ` · closes ${tender.deadline.slice(0, 10)}` : '';
  return `- ${tender.id}: ${tender.title} (${tender.buyer?.name ?? 'buyer not named'}; ${tender.status}${deadline}${value})`;
}

const organisationLine = (organisation: Buyer | Supplier) =>
  `- ${organisation.id}: ${organisation.name}${organisation.region ? ` (${organisation.region})` : ''}, ${organisation.noticeCount} notices`;

/** Tenders, buyers, suppliers and frameworks: the public records, read only. */
export function addPublicRecordTools(server: McpServer, context: ToolContext): void {
  addTool(
    server,
    context,
    'search_tenders',
    {
      title: 'Search tenders',
      description:
        'Search public procurement tenders (contract notices) by words and filters: status, buyer, region, CPV code, value range, publication and deadline dates, or the exact web address of a notice. Newest published first, paged. Use this to find opportunities ("NHS cleaning tenders closing this month"); read one in full with get_tender.',
      input: {
        q: wordsInput('the title and description'),
        status: z
          .enum(TENDER_STATUSES)
          .optional()
          .describe('Only tenders in this state; "open" for ones taking bids.'),
        buyerId: z.uuid().optional().describe('Only tenders of this buyer (an id from list_buyers).'),
        region: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe('Only tenders in this region, as named by the records (e.g. "North West").'),
        cpv: z
          .string()
          .regex(/^\d{1,8}$/)
          .optional()
          .describe(
            'Only tenders with a CPV code starting with these digits (e.g. 909 for cleaning services).',
          ),
        valueMin: z
          .number()
          .min(0)
          .optional()
          .describe(
            'Smallest estimated value, in `currency` (GBP when absent); tenders valued in other currencies are compared after conversion at dated ECB reference rates, named in the answer.',
          ),
        valueMax: z
          .number()
          .min(0)
          .optional()
          .describe('Largest estimated value, in `currency` (GBP when absent), compared as valueMin is.'),
        currency: z
          .enum(VALUE_CURRENCIES)
          .optional()
          .describe('The currency valueMin and valueMax are in; GBP when absent.'),
        publishedFrom: dateInput('Published on or after'),
        publishedTo: dateInput('Published on or before'),
        deadlineFrom: dateInput('Closing on or after'),
        deadlineTo: dateInput('Closing on or before'),
        url: z
          .string()
          .max(2000)
          .optional()
          .describe(
            'Only tenders that name this exact web address (a notice, document or link), starting http:// or https://.',
          ),
        limit: limitInput,
        cursor: cursorInput,
      },
      output: pageOutput(Tender),
      annotations: READS,
    },
    async (args, { client }) => {
      // The rule the service compared values by, said beside the list as a Slack heading says it.
      let rule: ValueRule | undefined;
      const answer = await listPage(
        'tenders',
        args,
        async (query) => {
          const page = await client.tenders.search(query);
          rule = page.valueRule;
          return page;
        },
        tenderLine,
      );
      return rule ? { ...answer, text: `${answer.text}\nValue bounds: ${rule.summary}` } : answer;
    },
  );

  addTool(
    server,
    context,
    'get_tender',
    {
      title: 'Read a tender',
      description:
        'Read one tender in full by its id (from search_tenders, a bookmark or a bid): description, buyer, value, dates, CPV codes, region, suppliers awarded, its source and the original notice address.',
      input: { id: z.string().min(1).max(300).describe('The tender’s id, e.g. ocds-tbdemo-0000201.') },
      output: { tender: Tender },
      annotations: READS,
    },
    async ({ id }, { client }) => {
      const tender = await client.tenders.get(id);
      return { text: `${tenderLine(tender).slice(2)}\n${tender.url ?? ''}`.trim(), data: { tender } };
    },
  );

  for (const kind of ['buyers', 'suppliers'] as const) {
    const singular = kind === 'buyers' ? 'buyer' : 'supplier';
    const item = kind === 'buyers' ? Buyer : Supplier;
    const detail = kind === 'buyers' ? BuyerDetail.shape.data : SupplierDetail.shape.data;
    addTool(
      server,
      context,
      `list_${kind}`,
      {
        title: `List ${kind}`,
        description:
          kind === 'buyers'
            ? 'Search the directory of public buyers (contracting authorities: councils, NHS trusts, departments) by name words and region, paged. Gives ids for get_buyer and for search_tenders’ buyerId.'
            : 'Search the directory of suppliers (companies that won public contracts) by name words and region, paged. Gives ids for get_supplier.',
        input: {
          q: wordsInput('the name'),
          region: z.string().min(1).max(200).optional().describe('Only those in this region.'),
          limit: limitInput,
          cursor: cursorInput,
        },
        output: pageOutput(item),
        annotations: READS,
      },
      async (args, { client }) => {
        return listPage(kind, args, (query) => client[kind].list(query), organisationLine);
      },
    );
    addTool(
      server,
      context,
      `get_${singular}`,
      {
        title: `Read a ${singular}`,
        description:
          kind === 'buyers'
            ? 'Read one buyer by its id (a UUID from list_buyers or a tender’s buyer): identity, region, identifiers, and up to 100 of its most recent notices.'
            : 'Read one supplier by its id (a UUID from list_suppliers or a tender’s suppliers): identity, region, identifiers, and up to 100 of the notices it is linked to.',
        input: { id: z.string().min(1).max(300).describe(`The ${singular}’s id (a UUID).`) },
        output: { [singular]: detail } as { buyer: typeof detail } | { supplier: typeof detail },
        annotations: READS,
      },
      async ({ id }, { client }) => {
        const record = await client[kind].get(id);
        const shown = record.notices.slice(0, 10).map(tenderLine);
        return {
          text: [
            `${organisationLine(record).slice(2)}. Up to ${record.tenderPreviewLimit} notices are in the structured result; the first ${shown.length}:`,
            ...shown,
          ].join('\n'),
          data: { [singular]: record } as never,
        };
      },
    );
  }

  addTool(
    server,
    context,
    'list_frameworks',
    {
      title: 'List frameworks',
      description:
        'Search framework agreements and dynamic purchasing systems (routes to market that buyers call off from) by words, status and type, paged. Read one with get_framework.',
      input: {
        q: wordsInput('the title and description'),
        status: z.enum(FRAMEWORK_STATUSES).optional().describe('upcoming, live or expired.'),
        type: z.enum(FRAMEWORK_TYPES).optional().describe('A framework or a dynamic purchasing system.'),
        limit: limitInput,
        cursor: cursorInput,
      },
      output: pageOutput(Framework),
      annotations: READS,
    },
    async (args, { client }) => {
      return listPage(
        'frameworks',
        args,
        (query) => client.frameworks.list(query),
        (framework) => `- ${framework.id}: ${framework.title} (${framework.status})`,
      );
    },
  );

  addTool(
    server,
    context,
    'get_framework',
    {
      title: 'Read a framework',
      description:
        'Read one framework agreement by its id: its lots, dates and value, and up to 100 each of its buyers, suppliers and call-off tenders.',
      input: {
        id: z
          .string()
          .min(1)
          .max(300)
          .describe('The framework’s id, from list_frameworks or a tender’s frameworkId.'),
      },
      output: { framework: FrameworkDetail.shape.data },
      annotations: READS,
    },
    async ({ id }, { client }) => {
      const framework = await client.frameworks.get(id);
      return {
        text: `${framework.id}: ${framework.title} (${framework.status}); ${framework.suppliers.length} suppliers, ${framework.buyers.length} buyers and ${framework.callOffs.length} call-offs listed (at most ${framework.relatedRecordLimit} each).`,
        data: { framework },
      };
    },
  );
}
