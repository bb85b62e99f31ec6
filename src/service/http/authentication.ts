import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Scope } from '../../contract/schemas.ts';
import type { KeyHolder, OrganisationsStore } from '../store/organisations-store.ts';
import { FieldErrorList, ProblemError } from './problem.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { keyParametersIn } from './url-secrets.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a route needs (CONTRACT.md §3). Every /v1 route names one or is marked `public`. */
    scope?: Scope;
    /** Served without a key (the OpenAPI document); the only way for a /v1 route to skip the key check. */
    public?: true;
    /**
     * A read whose handler reads before its first await: the key check and the handler's reads
     * share one SQLite read transaction (see app.ts), one snapshot and one lock instead of one each.
     */
    readsInOneTransaction?: true;
  }
  interface FastifyRequest {
    caller: KeyHolder;
  }
}

const BEARER = /^Bearer(?: +(.*))?$/i;

/** Paths whose every answer, a 404 included, comes only after the key is checked. */
export function isApiPath(url: string): boolean {
  return url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?');
}

/**
 * Refuses a URL that carries an API key in its query string: keys go in the Authorization header,
 * since a URL is copied into logs and histories. The answer names the parameter, never its value.
 */
export function refuseKeyInQuery(url: string): void {
  // Most requests have no query string at all: nothing to split.
  if (!url.includes('?')) return;
  const names = keyParametersIn(url);
  if (names.length === 0) return;
  const errors = new FieldErrorList();
  for (const name of names) {
    errors.add(
      name,
      'must not carry an API key: send the key in the header "Authorization: Bearer <key>", and make a new key if this one was shared',
    );
  }
  throw errors.toProblem();
}

/**
 * Identifies the caller. Checks, in order: a bearer key is present, known, unexpired and its
 * creator still a member; the request fits the key's rate; the organisation's plan has API
 * access. Membership and role are read afresh on every request, never remembered.
 */
export function identifyCaller(
  organisations: OrganisationsStore,
  limiter: RateLimiter,
  clock: () => Date,
  request: FastifyRequest,
  reply: FastifyReply,
): KeyHolder {
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
  if (holder.expiresAt && Date.parse(holder.expiresAt) <= clock().getTime()) {
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
  // Rates are about real elapsed time, not the service's clock (which a test may set or freeze).
  const decision = limiter.take(holder.keyId, holder.rateLimitPerSecond, Date.now());
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
  return holder;
}

/**
 * The onRequest check of every request: no key in the URL; then, for a route with a scope, the
 * caller and the scope; for an unknown path under /v1, the caller before the 404, so that without
 * a key nothing is learnt about which paths exist. `scope` is the route's config.scope (the hook
 * reads the route's config once). Synchronous: it throws its refusal, and the app's one onRequest
 * hook passes it on (a hook per check, each a promise, cost more than the checks).
 */
export function authenticate(organisations: OrganisationsStore, limiter: RateLimiter, clock: () => Date) {
  return (request: FastifyRequest, reply: FastifyReply, scope: Scope | undefined): void => {
    refuseKeyInQuery(request.url);
    if (!scope) {
      if (request.is404 && isApiPath(request.url))
        identifyCaller(organisations, limiter, clock, request, reply);
      return;
    }
    const holder = identifyCaller(organisations, limiter, clock, request, reply);
    if (!holder.scopes.has(scope)) {
      throw new ProblemError(403, 'missing_scope', `The API key lacks the scope ${scope}.`, {
        requiredScope: scope,
      });
    }
    request.caller = holder;
  };
}
