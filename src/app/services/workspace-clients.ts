import type { Dispatcher } from 'undici';
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

/**
 * The service client each workspace's commands use: its own key when it connected one, else the
 * app's `PROCUREMENT_API_KEY`. Clients share one connection pool and are made once per key.
 */
export class WorkspaceClients {
  private readonly clients = new Map<string, ProcurementClient>();
  /** Decrypted keys by their stored form: one command asks for its client several times. */
  private readonly decrypted = new Map<string, string>();

  constructor(
    private readonly store: BotStore,
    private readonly cipher: KeyCipher,
    private readonly defaults: { serviceUrl: string; apiKey: string | null; timeoutMs: number },
    private readonly dispatcher: Dispatcher,
  ) {}

  forTeam(teamId: string): WorkspaceClient {
    const connection = this.store.getConnection(teamId);
    if (connection) {
      let apiKey = this.decrypted.get(connection.encryptedApiKey);
      if (apiKey === undefined) {
        apiKey = this.cipher.decrypt(connection.encryptedApiKey);
        this.decrypted.set(connection.encryptedApiKey, apiKey);
      }
      return {
        client: this.clientFor(connection.serviceUrl ?? this.defaults.serviceUrl, apiKey),
        source: 'workspace',
      };
    }
    if (this.defaults.apiKey)
      return { client: this.clientFor(this.defaults.serviceUrl, this.defaults.apiKey), source: 'default' };
    throw new NotConnectedError();
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

  private clientFor(serviceUrl: string, apiKey: string): ProcurementClient {
    const cacheKey = `${serviceUrl}\u0000${apiKey}`;
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
