import { canonicalContent } from '../../store/idempotency-store.ts';
import type { KeyHolder } from '../../store/organisations-store.ts';
import { ProblemError } from '../problem.ts';
import type { ServiceContext } from '../service-context.ts';

/**
 * Runs a creation under the idempotency rules (spec §8, CONTRACT.md §6) in one transaction:
 * a new key creates (201); the same key with the same content returns the record it made (200);
 * with other content, 409. A creation that fails leaves neither record nor key behind.
 */
export function createIdempotently<T>(
  context: ServiceContext,
  caller: KeyHolder,
  endpoint: string,
  body: Record<string, unknown> & { idempotencyKey: string },
  create: (now: string) => string,
  read: (id: string) => T | null,
): { status: 200 | 201; record: T } {
  const scope = {
    organisationId: caller.organisationId,
    userId: caller.userId,
    endpoint,
    // A UUID's case says nothing (RFC 9562): a retry that sends the key in capitals is the same key.
    key: body.idempotencyKey.toLowerCase(),
  };
  const content = canonicalContent(body);
  return context.db.transaction(() => {
    const now = context.clock().toISOString();
    const existing = context.idempotency.find(scope);
    if (existing) {
      if (existing.content !== content) {
        throw new ProblemError(
          409,
          'idempotency_conflict',
          'This idempotencyKey was already used for a different request; make a new key for a new creation.',
        );
      }
      const record = read(existing.recordId);
      if (record === null) throw new Error(`record ${existing.recordId} of an idempotency key is missing`);
      return { status: 200 as const, record };
    }
    const id = create(now);
    context.idempotency.remember(scope, content, id, now);
    const record = read(id);
    if (record === null) throw new Error(`record ${id} just created is missing`);
    return { status: 201 as const, record };
  })();
}
