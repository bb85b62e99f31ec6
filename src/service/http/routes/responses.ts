import type { z } from 'zod';
import { Problem } from '../../../contract/schemas.ts';
import type { Page } from '../../store/public-records-reader.ts';

/** The problem-details answers every authenticated route may give, for the OpenAPI document. */
export const PROBLEM_RESPONSES = {
  '4XX': {
    description:
      'A problem (RFC 9457): invalid input, authentication, permission, not found, conflict or rate limit.',
    content: { 'application/problem+json': { schema: Problem } },
  },
  '5XX': {
    description: 'The service failed; the request id identifies the failure in its log.',
    content: { 'application/problem+json': { schema: Problem } },
  },
} as const;

/** A route's responses: its success shape by status, plus the problem answers. */
export function responses<T extends Record<number, z.ZodType>>(success: T) {
  return { ...success, ...PROBLEM_RESPONSES };
}

/** The list envelope of CONTRACT.md §1. */
export function listEnvelope<T>(page: Page<T>, limit: number, offset: number) {
  return {
    data: page.items,
    pagination: { limit, offset, total: page.total, hasMore: offset + page.items.length < page.total },
  };
}
