import { expect } from 'vitest';
import type { ApiAnswer } from '../support/sandbox.ts';

// What ../shared/CONTRACT.md says, written out by hand from its text. Nothing here is derived
// from the code's schemas or route list: these tests hold the code to the contract, so a
// change to a schema that the contract does not also say makes them fail.

/** §3: the scopes, named by the specification or decided by the contract. */
export const CONTRACT_SCOPES = [
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
export type ContractScope = (typeof CONTRACT_SCOPES)[number];

export interface RouteRow {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The route as the contract writes it, `{id}` for a path parameter. */
  route: string;
  /** A concrete path to call (ids need not exist: the key checks come first). */
  path: string;
  /** null: served without a key (§1: the OpenAPI document). */
  scope: ContractScope | null;
}

/** §3's table, one row per method and path, with §1's public OpenAPI document. */
export const ROUTE_TABLE: readonly RouteRow[] = [
  { method: 'GET', route: '/v1/openapi.json', path: '/v1/openapi.json', scope: null },
  { method: 'GET', route: '/v1/tenders', path: '/v1/tenders', scope: 'tenders:read' },
  { method: 'GET', route: '/v1/tenders/{id}', path: '/v1/tenders/t-1', scope: 'tenders:read' },
  { method: 'GET', route: '/v1/buyers', path: '/v1/buyers', scope: 'buyers:read' },
  {
    method: 'GET',
    route: '/v1/buyers/{id}',
    path: '/v1/buyers/00000000-0000-4000-8000-000000000000',
    scope: 'buyers:read',
  },
  { method: 'GET', route: '/v1/suppliers', path: '/v1/suppliers', scope: 'suppliers:read' },
  {
    method: 'GET',
    route: '/v1/suppliers/{id}',
    path: '/v1/suppliers/00000000-0000-4000-8000-000000000000',
    scope: 'suppliers:read',
  },
  { method: 'GET', route: '/v1/frameworks', path: '/v1/frameworks', scope: 'frameworks:read' },
  { method: 'GET', route: '/v1/frameworks/{id}', path: '/v1/frameworks/fw-1', scope: 'frameworks:read' },
  { method: 'GET', route: '/v1/bookmarks', path: '/v1/bookmarks', scope: 'bookmarks:read' },
  { method: 'POST', route: '/v1/bookmarks/{id}', path: '/v1/bookmarks/t-1', scope: 'bookmarks:write' },
  { method: 'DELETE', route: '/v1/bookmarks/{id}', path: '/v1/bookmarks/t-1', scope: 'bookmarks:write' },
  { method: 'GET', route: '/v1/saved-searches', path: '/v1/saved-searches', scope: 'saved-searches:read' },
  {
    method: 'GET',
    route: '/v1/saved-searches/{id}',
    path: '/v1/saved-searches/ss-1',
    scope: 'saved-searches:read',
  },
  { method: 'GET', route: '/v1/comments', path: '/v1/comments', scope: 'comments:read' },
  { method: 'POST', route: '/v1/comments', path: '/v1/comments', scope: 'comments:write' },
  { method: 'DELETE', route: '/v1/comments/{id}', path: '/v1/comments/c-1', scope: 'comments:write' },
  { method: 'GET', route: '/v1/pipelines', path: '/v1/pipelines', scope: 'pipeline:read' },
  { method: 'GET', route: '/v1/pipelines/{id}', path: '/v1/pipelines/p-1', scope: 'pipeline:read' },
  { method: 'POST', route: '/v1/pipelines', path: '/v1/pipelines', scope: 'pipeline:write' },
  { method: 'PATCH', route: '/v1/pipelines/{id}', path: '/v1/pipelines/p-1', scope: 'pipeline:write' },
  {
    method: 'PATCH',
    route: '/v1/pipelines/{id}/stages/{stageId}',
    path: '/v1/pipelines/p-1/stages/s-1',
    scope: 'pipeline:write',
  },
  {
    method: 'POST',
    route: '/v1/pipelines/{id}/archive',
    path: '/v1/pipelines/p-1/archive',
    scope: 'pipeline:write',
  },
];

// §1, §2 and §5: the exact keys of each record and envelope.

export const PAGINATION_FIELDS = ['limit', 'offset', 'total', 'hasMore'];
export const LIST_FIELDS = ['data', 'pagination'];
export const SAVED_SEARCH_LIST_FIELDS = ['data', 'pagination', 'nextOffset'];
export const DETAIL_FIELDS = ['data'];

export const TENDER_FIELDS = [
  'id',
  'title',
  'description',
  'status',
  'buyer',
  'value',
  'publishedAt',
  'deadline',
  'awardedAt',
  'region',
  'cpvCodes',
  'source',
  'url',
  'frameworkId',
  'suppliers',
];
export const REF_FIELDS = ['id', 'name'];
export const MONEY_FIELDS = ['amount', 'currency'];
export const CPV_FIELDS = ['code', 'description'];
export const SOURCE_FIELDS = ['name', 'id'];

export const SUPPLIER_FIELDS = [
  'id',
  'name',
  'region',
  'locality',
  'postalCode',
  'countryCode',
  'identifiers',
  'website',
  'noticeCount',
];
export const BUYER_FIELDS = [...SUPPLIER_FIELDS, 'type'];
export const IDENTIFIER_FIELDS = ['scheme', 'id'];
export const DIRECTORY_DETAIL_EXTRA_FIELDS = ['notices', 'tenderPreviewLimit'];

export const FRAMEWORK_FIELDS = [
  'id',
  'title',
  'description',
  'status',
  'type',
  'owner',
  'startDate',
  'endDate',
  'value',
  'url',
  'lots',
  'supplierCount',
  'callOffCount',
];
export const LOT_FIELDS = ['id', 'title'];
export const FRAMEWORK_DETAIL_EXTRA_FIELDS = ['buyers', 'suppliers', 'callOffs', 'relatedRecordLimit'];

export const BOOKMARK_FIELDS = ['tenderId', 'createdAt', 'tender'];
export const SAVED_SEARCH_FIELDS = ['id', 'name', 'query', 'createdAt', 'updatedAt'];
export const COMMENT_FIELDS = [
  'id',
  'entityType',
  'entityId',
  'parentId',
  'body',
  'author',
  'createdAt',
  'updatedAt',
  'deletedAt',
];

const PIPELINE_COMMON_FIELDS = [
  'id',
  'name',
  'summary',
  'status',
  'targetSubmissionDate',
  'tenderId',
  'owner',
  'archived',
  'createdAt',
  'updatedAt',
];
export const PIPELINE_DETAIL_FIELDS = [...PIPELINE_COMMON_FIELDS, 'stages'];
export const PIPELINE_LIST_ITEM_FIELDS = [...PIPELINE_COMMON_FIELDS, 'stageCounts'];
export const STAGE_COUNTS_FIELDS = ['pending', 'in_progress', 'blocked', 'completed'];
export const STAGE_FIELDS = [
  'id',
  'position',
  'name',
  'description',
  'expectedDurationDays',
  'status',
  'notes',
  'dueDate',
];

export const PROBLEM_FIELDS = ['type', 'title', 'status', 'code', 'detail', 'requestId'];
export const FIELD_ERROR_FIELDS = ['field', 'message'];

/** The object's own keys are exactly `fields`, in any order. */
export function expectKeys(value: unknown, fields: readonly string[], what: string): void {
  expect(value, what).toBeTypeOf('object');
  expect(value, what).not.toBeNull();
  expect(Object.keys(value as object).sort(), what).toEqual([...fields].sort());
}

/**
 * A problem answer as §2 says: problem+json, exactly the problem fields (with `errors` when
 * fields are named, `requiredScope` for missing_scope), and the request id of its header.
 */
export function expectProblem(answer: ApiAnswer, status: number, code: string): void {
  expect(answer.status, answer.text.slice(0, 300)).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  const requestId = answer.headers['x-request-id'];
  expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
  const extra = [
    ...(answer.body.errors !== undefined ? ['errors'] : []),
    ...(code === 'missing_scope' ? ['requiredScope'] : []),
  ];
  expectKeys(answer.body, [...PROBLEM_FIELDS, ...extra], `problem ${status} ${code}`);
  expect(answer.body).toMatchObject({ status, code, requestId });
  for (const name of ['type', 'title', 'detail']) expect(answer.body[name]).toEqual(expect.any(String));
  if (answer.body.errors !== undefined) {
    expect(answer.body.errors.length).toBeGreaterThan(0);
    for (const error of answer.body.errors) expectKeys(error, FIELD_ERROR_FIELDS, 'field error');
  }
}

/** A 400 invalid_request naming exactly `fields`. */
export function expectInvalid(answer: ApiAnswer, fields: readonly string[]): void {
  expectProblem(answer, 400, 'invalid_request');
  expect(fields.length).toBeGreaterThan(0);
  expect(answer.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(
    [...fields].sort(),
  );
}

/** `items`, after asserting it is not empty: an assertion over every item of nothing proves nothing. */
export function nonEmpty<List extends readonly unknown[]>(items: List, what = 'list'): List {
  expect(items.length, `${what} must not be empty`).toBeGreaterThan(0);
  return items;
}
