import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Scope } from '../../contract/schemas.ts';
import type { KeyHolder, OrganisationsStore } from '../store/organisations-store.ts';
import { ProblemError } from './problem.ts';
import type { RateLimiter } from './rate-limiter.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a route needs (CONTRACT.md §3); routes without one are public (docs, OpenAPI). */
    scope?: Scope;
  }
  interface FastifyRequest {
    caller: KeyHolder;
  }
}

const BEARER = /^Bearer(?: +(.*))?$/i;

/**
 * Checks, in order: a bearer key is present, known, unexpired and its creator still a member;
 * the request fits the key's rate; the organisation's plan has API access; the key has the
 * route's scope. Membership and role are read afresh on every request.
 */
export function authenticate(organisations: OrganisationsStore, limiter: RateLimiter, clock: () => Date) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const scope = request.routeOptions.config.scope;
    if (!scope) return;
    const header = request.headers.authorization;
    const clearKey = header ? BEARER.exec(header)?.[1]?.trim() : undefined;
    if (!clearKey) {
      throw new ProblemError(
        401,
        'missing_api_key',
        'Send the API key in the header "Authorization: Bearer <key>".',
      );
    }
    const holder = organisations.findKeyHolder(clearKey);
    if (!holder) throw new ProblemError(401, 'invalid_api_key', 'The API key is not recognised.');
    const now = clock();
    if (holder.expiresAt && Date.parse(holder.expiresAt) <= now.getTime()) {
      throw new ProblemError(
        401,
        'expired_api_key',
        `The API key expired at ${holder.expiresAt}; create a new one.`,
      );
    }
    if (holder.role === null) {
      throw new ProblemError(
        401,
        'disabled_api_key',
        "The API key is disabled because its creator is no longer a member of the key's organisation.",
      );
    }
    const decision = limiter.take(holder.keyId, holder.rateLimitPerSecond, now.getTime());
    reply.header('RateLimit-Limit', decision.limit);
    reply.header('RateLimit-Remaining', decision.remaining);
    reply.header('RateLimit-Reset', decision.resetSeconds);
    if (!decision.allowed) {
      throw new ProblemError(
        429,
        'rate_limited',
        `This key may make ${decision.limit} requests a second; retry after ${decision.resetSeconds} s.`,
        { headers: { 'Retry-After': String(decision.resetSeconds) } },
      );
    }
    if (holder.plan === 'essentials') {
      throw new ProblemError(
        403,
        'plan_without_api_access',
        "The organisation's plan (essentials) has no API access; upgrade to professional or enterprise.",
      );
    }
    if (!holder.scopes.has(scope)) {
      throw new ProblemError(403, 'missing_scope', `The API key lacks the scope ${scope}.`, {
        requiredScope: scope,
      });
    }
    request.caller = holder;
  };
}
