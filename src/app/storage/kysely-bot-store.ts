import type { BidReferenceStore } from './bid-reference-store.ts';
import type { BidStarterStore } from './bid-starter-store.ts';
import type { BotDatabase } from './bot-database.ts';
import type { CommandQueueStore } from './command-queue-store.ts';
import type { DeliveryStore } from './delivery-store.ts';
import type { InstallationStore } from './installation-store.ts';
import type { KeptValueStore } from './kept-value-store.ts';
import { KyselyBidReferenceStore } from './kysely-bid-reference-store.ts';
import { KyselyBidStarterStore } from './kysely-bid-starter-store.ts';
import { KyselyCommandQueueStore } from './kysely-command-queue-store.ts';
import { KyselyDeliveryStore } from './kysely-delivery-store.ts';
import { KyselyInstallationStore } from './kysely-installation-store.ts';
import { KyselyKeptValueStore } from './kysely-kept-value-store.ts';
import { KyselyMessageStore } from './kysely-message-store.ts';
import { KyselySecretStore } from './kysely-secret-store.ts';
import { KyselyStoreLifecycle, SharedDatabase } from './kysely-store-base.ts';
import { KyselySubscriptionStore } from './kysely-subscription-store.ts';
import { KyselyWorkspaceStore } from './kysely-workspace-store.ts';
import type { MessageStore } from './message-store.ts';
import type { SecretStore } from './secret-store.ts';
import { SeenRequests } from './seen-requests.ts';
import type { StoreLifecycle } from './store-lifecycle.ts';
import type { SubscriptionStore } from './subscription-store.ts';
import type { WorkspaceStore } from './workspace-store.ts';

/** One Kysely store per aggregate, all on one database (the same code on SQLite and PostgreSQL). */
export interface KyselyStores {
  workspaces: WorkspaceStore;
  secrets: SecretStore;
  installations: InstallationStore;
  subscriptions: SubscriptionStore;
  deliveries: DeliveryStore;
  commands: CommandQueueStore;
  keptValues: KeptValueStore;
  messages: MessageStore;
  bidStarters: BidStarterStore;
  bidReferences: BidReferenceStore;
  lifecycle: StoreLifecycle;
}

export function openKyselyStores(database: BotDatabase): KyselyStores {
  const shared = new SharedDatabase(database);
  // Written by the kept values (a request alone) and the command queue (a request with its command).
  const seenRequests = new SeenRequests(shared);
  return {
    workspaces: new KyselyWorkspaceStore(shared),
    secrets: new KyselySecretStore(shared),
    installations: new KyselyInstallationStore(shared),
    subscriptions: new KyselySubscriptionStore(shared),
    deliveries: new KyselyDeliveryStore(shared),
    commands: new KyselyCommandQueueStore(shared, seenRequests),
    keptValues: new KyselyKeptValueStore(shared, seenRequests),
    messages: new KyselyMessageStore(shared),
    bidStarters: new KyselyBidStarterStore(shared),
    bidReferences: new KyselyBidReferenceStore(shared),
    lifecycle: new KyselyStoreLifecycle(shared),
  };
}

/** Every aggregate's methods on one object (what the app receives as its BotStore). */
export type ComposedBotStore = WorkspaceStore &
  SecretStore &
  InstallationStore &
  SubscriptionStore &
  DeliveryStore &
  CommandQueueStore &
  KeptValueStore &
  MessageStore &
  BidStarterStore &
  BidReferenceStore &
  StoreLifecycle;

/**
 * The aggregate stores as one object, so the app's ~100 callers of one BotStore keep working while
 * each method's code lives in its aggregate's file: every public method of each store, bound to it.
 * No two aggregates share a method name (checked here, so one never hides another).
 */
export function composeBotStore(stores: KyselyStores): ComposedBotStore {
  const composed: Record<string, unknown> = {};
  for (const store of Object.values(stores) as object[]) {
    for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(store))) {
      const method = (store as Record<string, unknown>)[name];
      if (name === 'constructor' || typeof method !== 'function') continue;
      if (name in composed) throw new Error(`two stores answer ${name}`);
      composed[name] = method.bind(store);
    }
  }
  return composed as unknown as ComposedBotStore;
}
