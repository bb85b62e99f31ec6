import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { Agent, type Dispatcher } from 'undici';
import { ProcurementClient } from '../../client/procurement-client.ts';
import type { KeyCipher } from '../security/key-cipher.ts';
import {
  KeyUnreadableError,
  markOwnKey,
  NotConnectedError,
  PersonalKeyRequiredError,
  ServiceUrlRefusedError,
} from '../shared/errors.ts';
import type { BotStore } from '../storage/bot-store.ts';

/** Whose key a command uses: the person's own, the workspace's, or the app's default one. */
export type KeySource = 'personal' | 'workspace' | 'default';

export interface WorkspaceClient {
  client: ProcurementClient;
  /** Whether the person linked their own key, the workspace connected its own, or the app's default one is used. */
  source: KeySource;
}

/** PROCUREMENT_API_URLS_ALLOWED (comma-separated) as a list; empty entries dropped. */
export function parseAllowedServiceUrls(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** A service address compared as the client uses it: its origin and path, without a trailing slash. */
function normalisedServiceUrl(url: string): string | null {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
    if (parsed.username || parsed.password || parsed.search || parsed.hash) return null;
    return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
  } catch {
    return null;
  }
}

/** Whether `url` is the operator's service or one of the other addresses it allows. */
export function isAllowedServiceUrl(
  url: string,
  operatorUrl: string,
  others: readonly string[] = [],
): boolean {
  const wanted = normalisedServiceUrl(url);
  if (wanted === null) return false;
  return [operatorUrl, ...others].some((allowed) => normalisedServiceUrl(allowed) === wanted);
}

/** Cache bounds: decrypted keys are plaintext secrets, so few and briefly; clients a little longer. */
export const CACHE_LIMITS = {
  decryptedKeys: { max: 20, ttlMs: 60_000 },
  clients: { max: 50, ttlMs: 10 * 60_000 },
} as const;

/**
 * The service client each command uses: the person's own key when they linked one, else their
 * workspace's key when it connected one, else the app's `PROCUREMENT_API_KEY`. The store is read
 * on every call, so a key removed by any copy of the app is never used again by another. Clients
 * share one connection pool and are made once per key.
 */
export class WorkspaceClients {
  private readonly clients: LRUCache<string, ProcurementClient>;
  /**
   * Decrypted keys by (a digest of) their stored ciphertext: a new key is a new ciphertext, so a
   * miss, and a removed key is never asked for, since the store no longer gives its ciphertext.
   */
  private readonly decrypted: LRUCache<string, string>;

  constructor(
    private readonly store: BotStore,
    private readonly cipher: KeyCipher,
    private readonly defaults: {
      serviceUrl: string;
      apiKey: string | null;
      timeoutMs: number;
      /** Other service addresses a workspace's key may be connected to (PROCUREMENT_API_URLS_ALLOWED). */
      allowedServiceUrls?: readonly string[];
      /** Told of every service call (`tenders.list`...), how long it took and whether it failed. */
      observeCall?: CallObserver;
    },
    /** The keep-alive connections every workspace's client shares (closed by `close()`). */
    private readonly dispatcher: Dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 32 }),
    /** Milliseconds, for the caches' time limits; a test passes a fake clock. */
    now: () => number = () => performance.now(),
  ) {
    const perf = { now };
    this.decrypted = new LRUCache({
      max: CACHE_LIMITS.decryptedKeys.max,
      ttl: CACHE_LIMITS.decryptedKeys.ttlMs,
      ttlResolution: 0,
      perf,
    });
    this.clients = new LRUCache({
      max: CACHE_LIMITS.clients.max,
      ttl: CACHE_LIMITS.clients.ttlMs,
      ttlResolution: 0,
      perf,
    });
  }

  /** The workspace's own key, else the default one: what the workspace as a whole uses (channel posts). */
  async forTeam(teamId: string): Promise<WorkspaceClient> {
    const connection = await this.store.getConnection(teamId);
    if (connection) {
      // Checked again at each use: a row written before the address was refused (or by another
      // configuration) never sends the workspace's key to a server the operator did not allow.
      if (
        connection.serviceUrl !== null &&
        !isAllowedServiceUrl(
          connection.serviceUrl,
          this.defaults.serviceUrl,
          this.defaults.allowedServiceUrls,
        )
      )
        throw new ServiceUrlRefusedError(teamId);
      const apiKey = this.apiKeyOf(connection.encryptedApiKey, () => new KeyUnreadableError(teamId));
      return {
        client: this.clientFor(connection.serviceUrl ?? this.defaults.serviceUrl, apiKey),
        source: 'workspace',
      };
    }
    if (this.defaults.apiKey)
      return { client: this.clientFor(this.defaults.serviceUrl, this.defaults.apiKey), source: 'default' };
    throw new NotConnectedError();
  }

  /** What one person's commands use: their own key where linked, else what the workspace uses. */
  async forPerson(teamId: string, userId: string): Promise<WorkspaceClient> {
    const personal = await this.store.getPersonalKey(teamId, userId);
    if (!personal) return this.forTeam(teamId);
    const apiKey = this.apiKeyOf(personal.encryptedApiKey, () => new KeyUnreadableError(teamId, userId));
    // Only ever the operator's service: never the address a workspace admin chose for the workspace's
    // key (whoever controlled that server would receive every member's own key).
    return { client: this.clientFor(this.defaults.serviceUrl, apiKey, true), source: 'personal' };
  }

  /**
   * What a person's change (a bookmark, comment or bid) is made with: as forPerson, but when the
   * workspace asks for personal keys to change anything, a person without one gets
   * PersonalKeyRequiredError and nothing is written.
   */
  async forWrite(teamId: string, userId: string): Promise<WorkspaceClient> {
    const chosen = await this.forPerson(teamId, userId);
    if (chosen.source === 'personal') return chosen;
    if ((await this.store.getWorkspaceSettings(teamId)).personalKeysForWrites)
      throw new PersonalKeyRequiredError(teamId, userId);
    return chosen;
  }

  /** The operator's service (PROCUREMENT_API_URL): the only one a person's own key is ever sent to. */
  get operatorServiceUrl(): string {
    return this.defaults.serviceUrl;
  }

  /** Whether the operator allows any service but its own for a workspace's key (the connect window asks only then). */
  get allowsOtherServiceUrls(): boolean {
    return (this.defaults.allowedServiceUrls ?? []).length > 0;
  }

  /** Whether a workspace's key may be connected to `url`: the operator's service, or one it allows. */
  allowsServiceUrl(url: string): boolean {
    return isAllowedServiceUrl(url, this.defaults.serviceUrl, this.defaults.allowedServiceUrls);
  }

  /** Closes the shared connections: in-flight calls get `graceMs`, so a hung service cannot hold a stop up. */
  async close(graceMs = 2000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      this.dispatcher.close().then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (!closed) await this.dispatcher.destroy();
  }

  /**
   * Drops the workspace's decrypted key and its client from this copy's memory (on disconnect, and
   * before a new key). Other copies never use a removed key either: they read the store each time.
   */
  async forget(teamId: string): Promise<void> {
    const connection = await this.store.getConnection(teamId);
    if (connection) this.drop(connection.encryptedApiKey, connection.serviceUrl ?? this.defaults.serviceUrl);
  }

  /** forget for a person's own key. */
  async forgetPerson(teamId: string, userId: string): Promise<void> {
    const personal = await this.store.getPersonalKey(teamId, userId);
    if (personal) this.drop(personal.encryptedApiKey, this.defaults.serviceUrl);
  }

  /** How many entries each cache holds now (tests of the bounds). */
  get sizes(): { decryptedKeys: number; clients: number } {
    this.decrypted.purgeStale();
    this.clients.purgeStale();
    return { decryptedKeys: this.decrypted.size, clients: this.clients.size };
  }

  /** Workspaces whose stored key cannot be decrypted (checked once at start, and said in the log). */
  async unreadableKeys(): Promise<string[]> {
    const unreadable: string[] = [];
    for (const connection of await this.store.listConnections()) {
      try {
        this.cipher.decrypt(connection.encryptedApiKey);
      } catch {
        unreadable.push(connection.teamId);
      }
    }
    return unreadable;
  }

  /** How many people's own keys cannot be decrypted (each hears so when they next use it). */
  async unreadablePersonalKeys(): Promise<number> {
    let unreadable = 0;
    for (const secret of await this.store.listSecrets()) {
      if (secret.kind !== 'personal-key') continue;
      try {
        this.cipher.decrypt(secret.encrypted);
      } catch {
        unreadable++;
      }
    }
    return unreadable;
  }

  /** Logs, once at start, each workspace whose key must be reconnected, and how many people's own keys. */
  async reportUnreadableKeys(logger: Logger): Promise<void> {
    for (const teamId of await this.unreadableKeys()) {
      logger.error(
        { teamId },
        'the stored API key of this workspace cannot be decrypted (ENCRYPTION_KEY changed?): a workspace admin must reconnect with /tender connect',
      );
    }
    const personal = await this.unreadablePersonalKeys();
    if (personal > 0)
      logger.error(
        { count: personal },
        'some people’s own API keys cannot be decrypted (ENCRYPTION_KEY changed?): each must link theirs again with /tender connect me',
      );
  }

  /** A client for a key being tried (connect), not kept. */
  trial(serviceUrl: string | null, apiKey: string): ProcurementClient {
    return this.timed(
      new ProcurementClient({
        baseUrl: serviceUrl ?? this.defaults.serviceUrl,
        apiKey,
        dispatcher: this.dispatcher,
        timeoutMs: 2000,
        maxRetries: 0,
      }),
    );
  }

  private timed(client: ProcurementClient): ProcurementClient {
    const observe = this.defaults.observeCall;
    return observe ? timingCalls(client, observe) : client;
  }

  private apiKeyOf(encrypted: string, unreadable: () => KeyUnreadableError): string {
    const cacheKey = digest(encrypted);
    const cached = this.decrypted.get(cacheKey);
    if (cached !== undefined) return cached;
    let apiKey: string;
    try {
      apiKey = this.cipher.decrypt(encrypted);
    } catch {
      throw unreadable();
    }
    this.decrypted.set(cacheKey, apiKey);
    return apiKey;
  }

  private drop(encrypted: string, serviceUrl: string): void {
    const cacheKey = digest(encrypted);
    const apiKey = this.decrypted.get(cacheKey);
    this.decrypted.delete(cacheKey);
    if (apiKey === undefined) return;
    for (const own of [false, true]) this.clients.delete(clientKey(serviceUrl, apiKey, own));
  }

  /** `own`: a person's own key, whose failures are marked so (madeWithOwnKey). */
  private clientFor(serviceUrl: string, apiKey: string, own = false): ProcurementClient {
    const cacheKey = clientKey(serviceUrl, apiKey, own);
    let client = this.clients.get(cacheKey);
    if (!client) {
      client = new ProcurementClient({
        baseUrl: serviceUrl,
        apiKey,
        dispatcher: this.dispatcher,
        timeoutMs: this.defaults.timeoutMs,
      });
      if (own) client = markingFailures(client);
      client = this.timed(client);
      this.clients.set(cacheKey, client);
    }
    return client;
  }
}

function clientKey(serviceUrl: string, apiKey: string, own: boolean): string {
  return digest(`${own ? 'own' : 'shared'}\u0000${serviceUrl}\u0000${apiKey}`);
}

/** The resources of ProcurementClient whose calls are marked. */
const RESOURCES = new Set<PropertyKey>([
  'tenders',
  'buyers',
  'suppliers',
  'frameworks',
  'bookmarks',
  'savedSearches',
  'comments',
  'pipelines',
]);

/**
 * The same client, whose calls' failures carry the own-key mark (markOwnKey): each resource method's promise,
 * and each step of the lists it walks (`all`), rethrow the same error with the mark added.
 */
function markingFailures(client: ProcurementClient): ProcurementClient {
  const mark = (error: unknown): unknown => {
    markOwnKey(error);
    return error;
  };
  const rethrowMarked = (error: unknown): never => {
    throw mark(error);
  };
  const marked = (value: unknown): unknown => {
    if (value instanceof Promise) return value.catch(rethrowMarked);
    if (typeof value === 'object' && value !== null && Symbol.asyncIterator in value) {
      const iterable = value as AsyncIterable<unknown>;
      return {
        [Symbol.asyncIterator]() {
          const iterator = iterable[Symbol.asyncIterator]();
          return {
            next: (...args: [] | [unknown]) => iterator.next(...args).catch(rethrowMarked),
            return: (result?: unknown) =>
              (iterator.return?.(result) ?? Promise.resolve({ done: true as const, value: result })).catch(
                rethrowMarked,
              ),
          };
        },
      };
    }
    return value;
  };
  const resource = (target: object) =>
    new Proxy(target, {
      get(inner, property, receiver) {
        const value = Reflect.get(inner, property, receiver);
        return typeof value === 'function'
          ? (...args: unknown[]) => marked((value as (...a: unknown[]) => unknown).apply(inner, args))
          : value;
      },
    });
  const resources = new Map<PropertyKey, object>();
  return new Proxy(client, {
    get(inner, property, receiver) {
      const value = Reflect.get(inner, property, receiver);
      if (!RESOURCES.has(property) || typeof value !== 'object' || value === null) return value;
      let wrapped = resources.get(property);
      if (!wrapped) {
        wrapped = resource(value);
        resources.set(property, wrapped);
      }
      return wrapped;
    },
  });
}

/** Told of a service call: `endpoint` is the client's resource and method (`tenders.list`). */
export type CallObserver = (endpoint: string, seconds: number, failed: boolean) => void;

/**
 * The client with each resource method timed: a promise until it settles, a page of an iteration
 * (each `next()`) as one call. Everything else passes through untouched.
 */
function timingCalls(client: ProcurementClient, observe: CallObserver): ProcurementClient {
  const timed = (endpoint: string, call: () => unknown): unknown => {
    const started = performance.now();
    const value = call();
    if (value instanceof Promise) {
      return value.then(
        (result: unknown) => {
          observe(endpoint, (performance.now() - started) / 1000, false);
          return result;
        },
        (error: unknown) => {
          observe(endpoint, (performance.now() - started) / 1000, true);
          throw error;
        },
      );
    }
    if (typeof value === 'object' && value !== null && Symbol.asyncIterator in value) {
      const iterable = value as AsyncIterable<unknown>;
      return {
        [Symbol.asyncIterator]() {
          const iterator = iterable[Symbol.asyncIterator]();
          return {
            next: (...args: [] | [unknown]) => timed(endpoint, () => iterator.next(...args)),
            return: (result?: unknown) =>
              iterator.return?.(result) ?? Promise.resolve({ done: true as const, value: result }),
          };
        },
      };
    }
    return value;
  };
  const resources = new Map<PropertyKey, object>();
  return new Proxy(client, {
    get(inner, property, receiver) {
      const value = Reflect.get(inner, property, receiver);
      if (!RESOURCES.has(property) || typeof value !== 'object' || value === null) return value;
      let wrapped = resources.get(property);
      if (!wrapped) {
        const name = String(property);
        const timedResource: object = new Proxy(value, {
          get(target, method, methodReceiver) {
            const member = Reflect.get(target, method, methodReceiver);
            if (typeof member !== 'function') return member;
            const endpoint = `${name}.${String(method)}`;
            return (...args: unknown[]) =>
              timed(endpoint, () => (member as (...a: unknown[]) => unknown).apply(target, args));
          },
        });
        resources.set(property, timedResource);
        wrapped = timedResource;
      }
      return wrapped;
    },
  });
}

/** A digest, so that the caches' keys are neither plaintext API keys nor long ciphertexts. */
function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}
