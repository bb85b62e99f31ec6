/**
 * (Over 500 lines by design: one schema of the whole API, the contract every part reads.)
 * The Procurement Intelligence Service API as zod schemas: the single source of truth for
 * request validation and response shaping in the local service, the OpenAPI document, and
 * (through the client) every caller. Names follow ../shared/CONTRACT.md.
 */
import { z } from 'zod';
import { SHOWS } from './visible-text.ts';

// ---------------------------------------------------------------------------------------------
// Scalars

const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar date, `YYYY-MM-DD`, that exists (2026-02-30 is refused). */
export const CalendarDate = z
  .string()
  // Not of that form: said alone, not also "not a real date".
  .regex(DATE_PATTERN, { message: 'must be a date in YYYY-MM-DD form', abort: true })
  .refine((value) => isRealCalendarDate(value), { message: 'must be a real calendar date', abort: true })
  .meta({ format: 'date', example: '2026-12-01' });

/** An instant in ISO 8601 UTC, as every timestamp in a response is written. */
export const Instant = z.string().meta({ format: 'date-time', example: '2026-11-21T09:30:00Z' });

/**
 * An instant as the tender search's filters accept it: RFC 3339 with seconds, `T` and `Z` (or an
 * offset) in capitals. The pattern says the ranges of every part but the day; the day is
 * checked by `format: date-time` in the document and by the refinement here, so the document
 * states exactly what the service takes (a leap second, 23:59:60, is not taken).
 */
const INSTANT_PATTERN =
  /^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
const InstantFilter = z
  .string()
  .regex(INSTANT_PATTERN, 'must be an instant such as 2026-11-01T09:30:00Z')
  .refine((value) => isRealCalendarDate(value.slice(0, 10)), 'must be on a real calendar date')
  .meta({ format: 'date-time', example: '2026-11-01T09:30:00Z' });

/** A date or an instant, as the tender search's date filters accept: one of two exact forms. */
export const DateOrInstant = z
  .union([CalendarDate, InstantFilter], {
    error: 'must be a date (YYYY-MM-DD) or an instant with seconds (2026-11-01T09:30:00Z)',
  })
  .meta({ example: '2026-11-01' });

export const Uuid = z.uuid();
export const IdempotencyKey = z.uuid().meta({ description: 'A UUID made once per logical creation.' });

export const Money = z
  .object({ amount: z.number(), currency: z.string().meta({ example: 'GBP' }) })
  .nullable()
  .meta({ id: 'Money' });

export const EntityRef = z.object({ id: z.string(), name: z.string() }).meta({ id: 'EntityRef' });

function isRealCalendarDate(value: string): boolean {
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value);
}

/**
 * An object that refuses unknown keys, as every request body, query and path of the API does.
 * Its issue for unknown keys has a short message instead of zod's, which quotes every unknown
 * key: a body of 100,000 of them would build a megabyte of text that no one reads (the service
 * names the fields itself, the first 100 of them).
 */
function strictInput<T extends z.ZodRawShape>(shape: T) {
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? 'has unknown keys' : undefined),
  });
}

// ---------------------------------------------------------------------------------------------
// Query parameters shared by lists

export const MAX_PAGE_LIMIT = 100;
export const DEFAULT_PAGE_LIMIT = 20;

/**
 * A query parameter that must be a whole number written in decimal digits (CONTRACT.md §1):
 * `0x10`, `1e1`, `+5`, ` 5`, `1.0`, an empty or a blank value are refused, where `Number()`
 * would have taken them. A number (a saved search's stored query) is checked as it is.
 */
function wholeNumberParam(message: string, range: { min: number; max?: number }) {
  const number = z.number({ error: message }).int({ error: message }).min(range.min, { error: message });
  return z.preprocess(
    (value) => (typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value),
    range.max === undefined ? number : number.max(range.max, { error: message }),
  );
}

/**
 * An amount in a query parameter: decimal digits with an optional fraction (`100.5`), never
 * hex, an exponent, a sign, spaces, or an empty value. Amounts are never negative. The pattern
 * is the document's too: it is checked on the text, before the text becomes a number.
 */
const AMOUNT_PATTERN = /^\d{1,16}(\.\d{1,6})?$/;
function amountParam() {
  return z
    .string()
    .regex(AMOUNT_PATTERN, 'must be an amount in decimal digits, such as 100000 or 99.5')
    .transform(Number);
}

const limitParam = wholeNumberParam(`must be a whole number from 1 to ${MAX_PAGE_LIMIT}, in decimal digits`, {
  min: 1,
  max: MAX_PAGE_LIMIT,
})
  .default(DEFAULT_PAGE_LIMIT)
  // Said in words: the OpenAPI document drops a default in front of a preprocess step.
  .meta({ description: `Items per page, 1 to ${MAX_PAGE_LIMIT}; ${DEFAULT_PAGE_LIMIT} when absent.` });
const offsetParam = wholeNumberParam('must be a whole number of 0 or more, in decimal digits', { min: 0 })
  .default(0)
  .meta({ description: 'Items to skip; 0 when absent.' });

/** Words to match: every word must match, each as a prefix. */
const wordsParam = z
  .string()
  .max(500)
  .optional()
  .meta({ description: 'Words; all must match, each as a prefix.' });

export const PageQuery = strictInput({ limit: limitParam, offset: offsetParam });

export const Pagination = z
  .object({
    limit: z.number().int(),
    offset: z.number().int(),
    total: z.number().int(),
    hasMore: z.boolean(),
  })
  .meta({ id: 'Pagination' });

function listOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), pagination: Pagination });
}

function detailOf<T extends z.ZodType>(item: T) {
  return z.object({ data: item });
}

// ---------------------------------------------------------------------------------------------
// Tenders

export const TENDER_STATUSES = ['planned', 'open', 'closed', 'awarded', 'cancelled'] as const;
export const TenderStatus = z.enum(TENDER_STATUSES);

export const CpvCode = z
  .object({ code: z.string(), description: z.string().nullable() })
  .meta({ id: 'CpvCode' });

export const Tender = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    status: TenderStatus,
    buyer: EntityRef.nullable(),
    value: Money,
    publishedAt: Instant,
    deadline: Instant.nullable(),
    awardedAt: Instant.nullable(),
    region: z.string().nullable(),
    cpvCodes: z.array(CpvCode),
    source: z.object({ name: z.string(), id: z.string() }),
    url: z.string().nullable(),
    frameworkId: z.string().nullable(),
    suppliers: z.array(EntityRef),
  })
  .meta({ id: 'Tender' });
export type Tender = z.infer<typeof Tender>;

/**
 * Currencies a value bound may be given in: those the service holds reference rates for
 * (src/service/money/reference-rates.ts). GBP when a search names none.
 */
export const VALUE_CURRENCIES = ['GBP', 'EUR', 'USD', 'CAD'] as const;
export type ValueCurrency = (typeof VALUE_CURRENCIES)[number];
export const DEFAULT_VALUE_CURRENCY: ValueCurrency = 'GBP';

/** How a tender list compared values with `valueMin`/`valueMax`, for a heading to say. */
export const ValueRule = z
  .object({
    currency: z.enum(VALUE_CURRENCIES).meta({ description: 'The currency the bounds are in.' }),
    ratesDate: CalendarDate.meta({ description: 'The date of the reference rates used to convert.' }),
    ratesSource: z.string(),
    rates: z
      .record(z.string(), z.number())
      .meta({ description: 'Units of each currency for one euro, on ratesDate.' }),
    summary: z.string().meta({
      example:
        'Amounts in GBP; tenders in EUR, USD, CAD converted at the ECB reference rates of 2024-12-31; tenders in any other currency are not compared.',
    }),
  })
  .meta({ id: 'ValueRule' });
export type ValueRule = z.infer<typeof ValueRule>;

const VALUE_RULE_TEXT =
  'Amounts are in `currency` (GBP when absent). A tender valued in another currency is compared after converting its amount at the ECB euro reference rates of one stated date (the answer names them in `valueRule`); a tender in a currency without a rate is not listed under a value bound.';

/** A tender search's words: matched by stem, and quoted phrases exactly. */
const tenderWordsParam = z.string().max(500).optional().meta({
  description:
    'Words; all must match. A word matches the forms of itself (Porter stems: "library" finds "libraries", "clean" finds "cleaning", "cleaned"), as a prefix of the stem. A part in double quotes ("school meals") is a phrase matched exactly: those words, as written, in that order.',
});

export const TenderSearchQuery = strictInput({
  q: tenderWordsParam,
  status: TenderStatus.optional(),
  buyerId: Uuid.optional(),
  region: z.string().min(1).max(200).optional(),
  cpv: z
    .string()
    .regex(/^\d{1,8}$/, 'must be 1 to 8 digits of a CPV code')
    .optional(),
  valueMin: amountParam()
    .optional()
    .meta({ description: `Smallest value amount, e.g. 100000 or 99.5. ${VALUE_RULE_TEXT}` }),
  valueMax: amountParam()
    .optional()
    .meta({ description: `Largest value amount, e.g. 250000. ${VALUE_RULE_TEXT}` }),
  currency: z
    .enum(VALUE_CURRENCIES, { error: `must be one of ${VALUE_CURRENCIES.join(', ')}` })
    .optional()
    .meta({ description: 'The currency of valueMin and valueMax; GBP when absent.' }),
  publishedFrom: DateOrInstant.optional(),
  publishedTo: DateOrInstant.optional(),
  deadlineFrom: DateOrInstant.optional(),
  deadlineTo: DateOrInstant.optional(),
  reference: z.string().trim().min(1, 'must not be blank').max(300).optional().meta({
    description:
      "Tenders known by this reference as their source prints it (letter case ignored): the source's own notice reference (`source.id`, e.g. a Buyandsell solicitation number), the tender's id (its ocid), or the ocid without its publisher's prefix (a Contracts Finder notice id, `PW-14-00627094` of Buyandsell). `GET /v1/tenders/{id}` takes the same references when one tender has it.",
  }),
  url: z
    .string()
    .min(8)
    .max(2000)
    .regex(/^https?:\/\//i, 'must be a web address starting with http:// or https://')
    .optional()
    .meta({
      description:
        'Tenders one of whose releases names this exact address (its notice, a document or a link), as pasted; letter case is ignored.',
    }),
  limit: limitParam,
  offset: offsetParam,
});
export type TenderSearchQuery = z.infer<typeof TenderSearchQuery>;

export const TenderList = listOf(Tender).extend({
  suggestions: z
    .array(
      z.object({ word: z.string(), correction: z.string() }).meta({
        id: 'WordSuggestion',
        description: 'A word that found nothing, and the word of the data it most likely meant.',
      }),
    )
    .optional()
    .meta({
      description:
        'Present only when the search found nothing: each word of `q` (outside quotes) that alone finds no tender, with the nearest word the tenders hold (by edit distance, then by how many tenders hold it).',
    }),
  valueRule: ValueRule.optional().meta({
    description:
      'The rule the value bounds were applied by; present only when the search gave valueMin or valueMax.',
  }),
});
export const TenderDetail = detailOf(Tender);

// ---------------------------------------------------------------------------------------------
// Buyers and suppliers

export const BUYER_TYPES = ['central', 'local', 'health', 'education', 'other'] as const;

const organisationFields = {
  id: Uuid,
  name: z.string(),
  region: z.string().nullable(),
  locality: z.string().nullable(),
  postalCode: z.string().nullable(),
  countryCode: z.string().nullable(),
  identifiers: z.array(z.object({ scheme: z.string(), id: z.string() })),
  website: z.string().nullable(),
  noticeCount: z.number().int(),
};

export const Supplier = z.object(organisationFields).meta({ id: 'Supplier' });
export const Buyer = z
  .object({ ...organisationFields, type: z.enum(BUYER_TYPES).nullable() })
  .meta({ id: 'Buyer' });
export type Supplier = z.infer<typeof Supplier>;
export type Buyer = z.infer<typeof Buyer>;

/** The number of linked notices a buyer or supplier detail carries at most. */
export const TENDER_PREVIEW_LIMIT = 100 as const;

const withNotices = {
  notices: z.array(Tender),
  tenderPreviewLimit: z.literal(TENDER_PREVIEW_LIMIT),
};
export const BuyerDetail = detailOf(Buyer.extend(withNotices).meta({ id: 'BuyerDetail' }));
export const SupplierDetail = detailOf(Supplier.extend(withNotices).meta({ id: 'SupplierDetail' }));

export const DirectoryQuery = strictInput({
  q: wordsParam,
  region: z.string().min(1).max(200).optional(),
  limit: limitParam,
  offset: offsetParam,
});
export type DirectoryQuery = z.infer<typeof DirectoryQuery>;

export const BuyerList = listOf(Buyer);
export const SupplierList = listOf(Supplier);

// ---------------------------------------------------------------------------------------------
// Frameworks

export const FRAMEWORK_STATUSES = ['upcoming', 'live', 'expired'] as const;
export const FRAMEWORK_TYPES = ['framework', 'dynamic_purchasing_system'] as const;

export const Framework = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    status: z.enum(FRAMEWORK_STATUSES),
    type: z.enum(FRAMEWORK_TYPES),
    owner: EntityRef.nullable(),
    startDate: CalendarDate.nullable(),
    endDate: CalendarDate.nullable(),
    value: Money,
    url: z.string().nullable(),
    lots: z.array(z.object({ id: z.string(), title: z.string() })),
    supplierCount: z.number().int().nullable(),
    callOffCount: z.number().int().nullable(),
  })
  .meta({ id: 'Framework' });
export type Framework = z.infer<typeof Framework>;

/** The number of items each collection of a framework detail carries at most. */
export const RELATED_RECORD_LIMIT = 100 as const;

export const FrameworkDetail = detailOf(
  Framework.extend({
    buyers: z.array(EntityRef),
    suppliers: z.array(EntityRef),
    callOffs: z.array(Tender),
    relatedRecordLimit: z.literal(RELATED_RECORD_LIMIT),
  }).meta({ id: 'FrameworkDetail' }),
);

export const FrameworkQuery = strictInput({
  q: wordsParam,
  status: z.enum(FRAMEWORK_STATUSES).optional(),
  type: z.enum(FRAMEWORK_TYPES).optional(),
  limit: limitParam,
  offset: offsetParam,
});
export type FrameworkQuery = z.infer<typeof FrameworkQuery>;
export const FrameworkList = listOf(Framework);

// ---------------------------------------------------------------------------------------------
// Bookmarks

export const Bookmark = z
  .object({ tenderId: z.string(), createdAt: Instant, tender: Tender })
  .meta({ id: 'Bookmark' });
export type Bookmark = z.infer<typeof Bookmark>;
export const BookmarkList = listOf(Bookmark);
export const BookmarkDetail = detailOf(Bookmark);

// ---------------------------------------------------------------------------------------------
// Saved searches

/** Saved searches hold tender-search parameters by their API names, so they can be run as-is. */
export const SavedSearchQueryObject = z.record(z.string(), z.unknown());

export const SavedSearch = z
  .object({
    id: z.string(),
    name: z.string(),
    query: SavedSearchQueryObject,
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: 'SavedSearch' });
export type SavedSearch = z.infer<typeof SavedSearch>;

/** Only the first 100 saved searches of an organisation are listed; offsets stop at 99. */
export const SAVED_SEARCH_LIST_CAP = 100;
export const SAVED_SEARCH_MAX_OFFSET = SAVED_SEARCH_LIST_CAP - 1;

export const SavedSearchList = listOf(SavedSearch).extend({ nextOffset: z.number().int().nullable() });
export const SavedSearchDetail = detailOf(SavedSearch);

// ---------------------------------------------------------------------------------------------
// Comments

export const ENTITY_TYPES = ['tender', 'buyer', 'supplier', 'framework'] as const;
export const EntityType = z.enum(ENTITY_TYPES);
export type EntityType = z.infer<typeof EntityType>;

export const COMMENT_MAX_CODE_POINTS = 5000;

export const Comment = z
  .object({
    id: z.string(),
    entityType: EntityType,
    entityId: z.string(),
    parentId: z.string().nullable(),
    body: z.string().nullable(),
    author: EntityRef,
    createdAt: Instant,
    updatedAt: Instant,
    deletedAt: Instant.nullable(),
  })
  .meta({ id: 'Comment' });
export type Comment = z.infer<typeof Comment>;

export const CommentQuery = strictInput({
  entityType: EntityType,
  entityId: z.string().min(1).max(200),
  limit: limitParam,
  offset: offsetParam,
});

/**
 * Text whose length is counted in Unicode code points (CONTRACT.md §9), as JSON Schema's
 * minLength and maxLength count it; zod's own min/max count UTF-16 units. The same two numbers
 * make the check and the document's bounds, so the two cannot differ.
 */
function codePointText(min: number, max: number) {
  const tooLong = `must be at most ${max} characters`;
  return (
    z
      .string()
      // Two UTF-16 units per code point at most: a longer string fails here, before it is spread.
      .max(2 * max, { error: tooLong, abort: true })
      .refine(
        (text) => [...text].length >= min,
        min === 1 ? 'must not be empty' : `must be at least ${min} characters`,
      )
      .refine((text) => [...text].length <= max, tooLong)
      // Spaces and zero-width characters alone would be a comment that shows nothing.
      .refine((text) => text.length === 0 || SHOWS.test(text), 'must not be blank')
      .meta({ minLength: min, maxLength: max })
  );
}

const commentBody = codePointText(1, COMMENT_MAX_CODE_POINTS);

export const CreateCommentBody = strictInput({
  entityType: EntityType,
  entityId: z.string().min(1).max(200),
  body: commentBody,
  parentId: z.string().min(1).max(200).nullable().optional(),
  idempotencyKey: IdempotencyKey,
});
export type CreateCommentBody = z.infer<typeof CreateCommentBody>;
export const CommentList = listOf(Comment);
export const CommentDetail = detailOf(Comment);

// ---------------------------------------------------------------------------------------------
// Pipelines

export const PIPELINE_STATUSES = [
  'draft',
  'qualifying',
  'bidding',
  'on_hold',
  'submitted',
  'won',
  'lost',
  'no_bid',
] as const;
export const PipelineStatus = z.enum(PIPELINE_STATUSES);
export const STAGE_STATUSES = ['pending', 'in_progress', 'blocked', 'completed'] as const;
export const StageStatus = z.enum(STAGE_STATUSES);

export const Stage = z
  .object({
    id: z.string(),
    position: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    expectedDurationDays: z.number().nullable(),
    status: StageStatus,
    notes: z.string().nullable(),
    dueDate: CalendarDate.nullable(),
  })
  .meta({ id: 'Stage' });
export type Stage = z.infer<typeof Stage>;

const pipelineFields = {
  id: z.string(),
  name: z.string(),
  summary: z.string().nullable(),
  status: PipelineStatus,
  targetSubmissionDate: CalendarDate.nullable(),
  tenderId: z.string().nullable(),
  owner: EntityRef,
  archived: z.boolean(),
  createdAt: Instant,
  updatedAt: Instant,
};

export const StageCounts = z
  .object({
    pending: z.number().int(),
    in_progress: z.number().int(),
    blocked: z.number().int(),
    completed: z.number().int(),
  })
  .meta({ id: 'StageCounts' });

export const Pipeline = z.object({ ...pipelineFields, stages: z.array(Stage) }).meta({ id: 'Pipeline' });
export const PipelineListItem = z
  .object({ ...pipelineFields, stageCounts: StageCounts })
  .meta({ id: 'PipelineListItem' });
export type Pipeline = z.infer<typeof Pipeline>;
export type PipelineListItem = z.infer<typeof PipelineListItem>;

export const PIPELINE_ARCHIVE_FILTERS = ['active', 'archived', 'all'] as const;
export const PipelineQuery = strictInput({
  q: wordsParam,
  status: PipelineStatus.optional(),
  archived: z.enum(PIPELINE_ARCHIVE_FILTERS).default('active'),
  limit: limitParam,
  offset: offsetParam,
});
export type PipelineQuery = z.infer<typeof PipelineQuery>;

/**
 * A name that shows something: at most `max` characters as sent, at least one of them not
 * white space (the pattern, in the document too), stored without the spaces around it.
 */
function visibleName(max: number) {
  return z
    .string()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .regex(SHOWS, 'must not be blank')
    .trim();
}

/** Marks the issue of a PATCH body with no field, which the service answers as `empty_update`. */
export const EMPTY_UPDATE_ISSUE = 'empty_update';

/**
 * A PATCH body: at least one of its fields (`minProperties: 1` in the document, the
 * refinement here). Checked only when the fields themselves are valid, so an unknown field is
 * reported alone.
 */
function patchBody<T extends z.ZodRawShape>(shape: T) {
  const names = Object.keys(shape).join(', ');
  return strictInput(shape)
    .refine((body) => Object.values(body).some((value) => value !== undefined), {
      message: `must have at least one of ${names}`,
      params: { [EMPTY_UPDATE_ISSUE]: names },
      when: (payload) => payload.issues.length === 0,
    })
    .meta({ minProperties: 1 });
}

const pipelineName = visibleName(200);
const pipelineSummary = z.string().max(5000);
const stageName = visibleName(200);

export const CreatePipelineBody = strictInput({
  name: pipelineName,
  idempotencyKey: IdempotencyKey,
  tenderId: z.string().min(1).max(200).nullable().optional(),
  summary: pipelineSummary.nullable().optional(),
  targetSubmissionDate: CalendarDate.nullable().optional(),
  stages: z
    .array(
      strictInput({
        name: stageName,
        description: z.string().max(2000).nullable().optional(),
        expectedDurationDays: z.number().int().min(0).max(3650).nullable().optional(),
      }),
    )
    .max(50)
    .optional(),
});
export type CreatePipelineBody = z.infer<typeof CreatePipelineBody>;

export const UpdatePipelineBody = patchBody({
  name: pipelineName.optional(),
  summary: pipelineSummary.nullable().optional(),
  status: PipelineStatus.optional(),
  targetSubmissionDate: CalendarDate.nullable().optional(),
});
export type UpdatePipelineBody = z.infer<typeof UpdatePipelineBody>;

export const UpdateStageBody = patchBody({
  status: StageStatus.optional(),
  name: stageName.optional(),
  notes: z.string().max(5000).nullable().optional(),
  dueDate: CalendarDate.nullable().optional(),
});
export type UpdateStageBody = z.infer<typeof UpdateStageBody>;

export const ArchivePipelineBody = strictInput({ archived: z.boolean() });

export const PipelineList = listOf(PipelineListItem);
export const PipelineDetail = detailOf(Pipeline);
export const StageDetail = detailOf(Stage);

// ---------------------------------------------------------------------------------------------
// Path parameters

/** The longest id a path takes: a longer word cannot be an id. */
export const ID_MAX = 300;
export const IdParams = strictInput({ id: z.string().min(1).max(ID_MAX) });
export const UuidParams = strictInput({ id: Uuid });
export const StageParams = strictInput({
  id: z.string().min(1).max(ID_MAX),
  stageId: z.string().min(1).max(ID_MAX),
});

// ---------------------------------------------------------------------------------------------
// Errors (RFC 9457 problem details, CONTRACT.md §2)

export const ERROR_CODES = [
  'invalid_request',
  'empty_update',
  'missing_api_key',
  'invalid_api_key',
  'expired_api_key',
  'disabled_api_key',
  'plan_without_api_access',
  'missing_scope',
  'forbidden',
  'not_found',
  'idempotency_conflict',
  'pipeline_submission_not_allowed',
  'rate_limited',
  'internal_error',
] as const;
export const ErrorCode = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const FieldError = z.object({ field: z.string(), message: z.string() });
export type FieldError = z.infer<typeof FieldError>;

export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: ErrorCode,
    detail: z.string(),
    requestId: z.string(),
    errors: z.array(FieldError).optional(),
    requiredScope: z.string().optional(),
  })
  .meta({ id: 'Problem' });
export type Problem = z.infer<typeof Problem>;

// ---------------------------------------------------------------------------------------------
// Scopes (CONTRACT.md §3)

export const SCOPES = [
  'tenders:read',
  'buyers:read',
  'suppliers:read',
  'frameworks:read',
  'bookmarks:read',
  'bookmarks:write',
  'saved-searches:read',
  'comments:read',
  'comments:write',
  'pipeline:read',
  'pipeline:write',
] as const;
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

export const PLANS = ['essentials', 'professional', 'enterprise'] as const;
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Plan = (typeof PLANS)[number];
export type Role = (typeof ROLES)[number];
