import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { Agent, type Dispatcher } from 'undici';
import { ProcurementClient } from '../../client/procurement-client.ts';
import type { KeyCipher } from '../security/key-cipher.ts';
import type { BotStore } from '../storage/bot-store.ts';

export interface WorkspaceClient {
  client: ProcurementClient;
  /** Whether the workspace connected its own key or uses the app's default one. */
  source: 'workspace' | 'default';
}

/** No key for this workspace: neither its own nor a default. */
export class NotConnectedError extends Error {
  constructor() {
    super('This workspace has no API key yet.');
  }
}

/** The stored key cannot be decrypted: ENCRYPTION_KEY changed (or the row was altered) since it was saved. */
export class KeyUnreadableError extends Error {
  constructor(readonly teamId: string) {
    super(`the stored API key of workspace ${teamId} cannot be decrypted with this ENCRYPTION_KEY`);
  }
}

/** Cache bounds: decrypted keys are plaintext secrets, so few and briefly; clients a little longer. */
export const CACHE_LIMITS = {
  decryptedKeys: { max: 20, ttlMs: 60_000 },
  clients: { max: 50, ttlMs: 10 * 60_000 },
} as const;

/**
 * The service client each workspace's commands use: its own key when it connected one, else the
 * app's `PROCUREMENT_API_KEY`. Clients share one connection pool and are made once per key.
 */
export class WorkspaceClients {
  private readonly clients: LRUCache<string, ProcurementClient>;
  /** Decrypted keys by workspace, with the stored form they came from (a new key is a miss). */
  private readonly decrypted: LRUCache<string, { encrypted: string; apiKey: string }>;

  constructor(
    private readonly store: BotStore,
    private readonly cipher: KeyCipher,
    private readonly defaults: { serviceUrl: string; apiKey: string | null; timeoutMs: number },
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

  async forTeam(teamId: string): Promise<WorkspaceClient> {
    const connection = await this.store.getConnection(teamId);
    if (connection) {
      const apiKey = this.apiKeyOf(teamId, connection.encryptedApiKey);
      return {
        client: this.clientFor(connection.serviceUrl ?? this.defaults.serviceUrl, apiKey),
        source: 'workspace',
      };
    }
    if (this.defaults.apiKey)
      return { client: this.clientFor(this.defaults.serviceUrl, this.defaults.apiKey), source: 'default' };
    throw new NotConnectedError();
  }

  /** Drops the workspace's decrypted key and its client (on disconnect, and before a new key). */
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

  async forget(teamId: string): Promise<void> {
    const cached = this.decrypted.get(teamId);
    this.decrypted.delete(teamId);
    const connection = await this.store.getConnection(teamId);
    if (!cached || !connection) return;
    this.clients.delete(clientKey(connection.serviceUrl ?? this.defaults.serviceUrl, cached.apiKey));
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

  /** Logs, once at start, each workspace whose key must be reconnected. */
  async reportUnreadableKeys(logger: Logger): Promise<void> {
    for (const teamId of await this.unreadableKeys()) {
      logger.error(
        { teamId },
        'the stored API key of this workspace cannot be decrypted (ENCRYPTION_KEY changed?): a workspace admin must reconnect with /tender connect',
      );
    }
  }

  /** A client for a key being tried (connect), not kept. */
  trial(serviceUrl: string | null, apiKey: string): ProcurementClient {
    return new ProcurementClient({
      baseUrl: serviceUrl ?? this.defaults.serviceUrl,
      apiKey,
      dispatcher: this.dispatcher,
      timeoutMs: 2000,
      maxRetries: 0,
    });
  }

  private apiKeyOf(teamId: string, encrypted: string): string {
    const cached = this.decrypted.get(teamId);
    if (cached?.encrypted === encrypted) return cached.apiKey;
    let apiKey: string;
    try {
      apiKey = this.cipher.decrypt(encrypted);
    } catch {
      throw new KeyUnreadableError(teamId);
    }
    this.decrypted.set(teamId, { encrypted, apiKey });
    return apiKey;
  }

  private clientFor(serviceUrl: string, apiKey: string): ProcurementClient {
    const cacheKey = clientKey(serviceUrl, apiKey);
    let client = this.clients.get(cacheKey);
    if (!client) {
      client = new ProcurementClient({
        baseUrl: serviceUrl,
        apiKey,
        dispatcher: this.dispatcher,
        timeoutMs: this.defaults.timeoutMs,
      });
      this.clients.set(cacheKey, client);
    }
    return client;
  }
}

/** A digest, so that the cache's keys are not plaintext API keys. */
function clientKey(serviceUrl: string, apiKey: string): string {
  return createHash('sha256').update(`${serviceUrl}\u0000${apiKey}`).digest('base64url');
}
