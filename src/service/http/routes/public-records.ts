import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  BuyerDetail,
  BuyerList,
  DirectoryQuery,
  FrameworkDetail,
  FrameworkList,
  FrameworkQuery,
  IdParams,
  RELATED_RECORD_LIMIT,
  SupplierDetail,
  SupplierList,
  TENDER_PREVIEW_LIMIT,
  TenderDetail,
  TenderList,
  TenderSearchQuery,
  UuidParams,
} from '../../../contract/schemas.ts';
import { DEFAULT_VALUE_CURRENCY, valueRuleFor } from '../../money/reference-rates.ts';
import { notFound, ProblemError, shorten } from '../problem.ts';
import type { ServiceContext } from '../service-context.ts';
import { listEnvelope, responses } from './responses.ts';

/**
 * The tender answers as JSON without encoding them through their response schemas first. They are
 * built only by the reader's row mappers (tenderFromRow), field for field in the schemas' order,
 * so the encoding changed nothing and cost a fifth of a tender read's CPU; a test holds the two
 * serializations byte for byte equal over random searches and reads
 * (test/service/http/tender-answers-serialized.test.ts). Every other route keeps its schema's.
 */
export const tenderAnswerJson = () => (answer: unknown) => JSON.stringify(answer);

/** Tenders, buyers, suppliers and frameworks: read-only public records. */
export function publicRecordRoutes(context: ServiceContext): FastifyPluginAsyncZod {
  const { publicRecords } = context;
  // Statuses depend on the time of the question: every read is asked at the service clock's now.
  const now = () => context.clock();
  const today = () => now().toISOString().slice(0, 10);

  return async (app) => {
    app.get(
      '/v1/tenders',
      {
        config: { scope: 'tenders:read' },
        serializerCompiler: tenderAnswerJson,
        schema: {
          summary: 'Search tenders, newest publication first',
          tags: ['tenders'],
          querystring: TenderSearchQuery,
          response: responses({ 200: TenderList }),
        },
      },
      async (request) => {
        const { query } = request;
        const valueBounded = query.valueMin !== undefined || query.valueMax !== undefined;
        const page = await publicRecords.searchTendersAsync(query, now());
        const envelope = listEnvelope(page, query.limit, query.offset);
        // A search that found nothing says which words the data may have meant instead.
        const suggestions = page.total === 0 ? publicRecords.suggestWords(query.q) : [];
        return {
          ...envelope,
          // In the schema's order (the answer is serialized as built, see tenderAnswerJson).
          ...(suggestions.length > 0 ? { suggestions } : {}),
          // The heading of a value search says how amounts in other currencies were compared.
          ...(valueBounded ? { valueRule: valueRuleFor(query.currency ?? DEFAULT_VALUE_CURRENCY) } : {}),
        };
      },
    );

    app.get(
      '/v1/tenders/:id',
      {
        // The handler reads before any await: the key check and the read share one transaction.
        config: { scope: 'tenders:read', readsInOneTransaction: true },
        serializerCompiler: tenderAnswerJson,
        schema: {
          summary: 'One tender in full, by its id or by the one reference its source prints',
          tags: ['tenders'],
          params: IdParams,
          response: responses({ 200: TenderDetail }),
        },
      },
      async (request) => {
        const tender = publicRecords.getTender(request.params.id, now());
        if (tender) return { data: tender };
        // A reference as its source prints it finds its tender when it names exactly one.
        const byReference = publicRecords.tenderByReference(request.params.id, now());
        if (byReference.tender) return { data: byReference.tender };
        if (byReference.count > 1)
          throw new ProblemError(
            404,
            'not_found',
            `${byReference.count} tenders have the reference ${shorten(request.params.id)}: list them with GET /v1/tenders?reference=.`,
          );
        throw notFound(`Tender ${request.params.id}`);
      },
    );

    app.get(
      '/v1/buyers',
      {
        config: { scope: 'buyers:read' },
        schema: {
          summary: 'Search buyers by name and region',
          tags: ['directories'],
          querystring: DirectoryQuery,
          response: responses({ 200: BuyerList }),
        },
      },
      async (request) =>
        listEnvelope(
          publicRecords.listBuyers(request.query, now()),
          request.query.limit,
          request.query.offset,
        ),
    );

    app.get(
      '/v1/buyers/:id',
      {
        config: { scope: 'buyers:read' },
        schema: {
          summary: `A buyer with its latest notices (at most ${TENDER_PREVIEW_LIMIT})`,
          tags: ['directories'],
          params: UuidParams,
          response: responses({ 200: BuyerDetail }),
        },
      },
      async (request) => {
        const buyer = publicRecords.getBuyer(request.params.id, now());
        if (!buyer) throw notFound(`Buyer ${request.params.id}`);
        return { data: { ...buyer, tenderPreviewLimit: TENDER_PREVIEW_LIMIT } };
      },
    );

    app.get(
      '/v1/suppliers',
      {
        config: { scope: 'suppliers:read' },
        schema: {
          summary: 'Search suppliers by name and region',
          tags: ['directories'],
          querystring: DirectoryQuery,
          response: responses({ 200: SupplierList }),
        },
      },
      async (request) =>
        listEnvelope(
          publicRecords.listSuppliers(request.query, now()),
          request.query.limit,
          request.query.offset,
        ),
    );

    app.get(
      '/v1/suppliers/:id',
      {
        config: { scope: 'suppliers:read' },
        schema: {
          summary: `A supplier with its latest notices (at most ${TENDER_PREVIEW_LIMIT})`,
          tags: ['directories'],
          params: UuidParams,
          response: responses({ 200: SupplierDetail }),
        },
      },
      async (request) => {
        const supplier = publicRecords.getSupplier(request.params.id, now());
        if (!supplier) throw notFound(`Supplier ${request.params.id}`);
        return { data: { ...supplier, tenderPreviewLimit: TENDER_PREVIEW_LIMIT } };
      },
    );

    app.get(
      '/v1/frameworks',
      {
        config: { scope: 'frameworks:read' },
        schema: {
          summary: 'Search framework agreements',
          tags: ['directories'],
          querystring: FrameworkQuery,
          response: responses({ 200: FrameworkList }),
        },
      },
      async (request) =>
        listEnvelope(
          publicRecords.listFrameworks(request.query, today(), now()),
          request.query.limit,
          request.query.offset,
        ),
    );

    app.get(
      '/v1/frameworks/:id',
      {
        config: { scope: 'frameworks:read' },
        schema: {
          summary: `A framework with its buyers, suppliers and call-offs (at most ${RELATED_RECORD_LIMIT} each)`,
          tags: ['directories'],
          params: IdParams,
          response: responses({ 200: FrameworkDetail }),
        },
      },
      async (request) => {
        const framework = publicRecords.getFramework(request.params.id, today(), now());
        if (!framework) throw notFound(`Framework ${request.params.id}`);
        return { data: { ...framework, relatedRecordLimit: RELATED_RECORD_LIMIT } };
      },
    );
  };
}
