import type { BidReferenceStore } from './bid-reference-store.ts';
import type { BidStarterStore } from './bid-starter-store.ts';
import type { CommandQueueStore } from './command-queue-store.ts';
import type { DeliveryStore } from './delivery-store.ts';
import type { InstallationStore } from './installation-store.ts';
import type { KeptValueStore } from './kept-value-store.ts';
import type { MessageStore } from './message-store.ts';
import type { SecretStore } from './secret-store.ts';
import type { StoreLifecycle } from './store-lifecycle.ts';
import type { SubscriptionStore } from './subscription-store.ts';
import type { WorkspaceStore } from './workspace-store.ts';

// The shapes callers still import from this module; new code imports them from their store's file.
export type { InstallationQuery } from './installation-store.ts';
export type { PipelineMessage } from './message-store.ts';
export type { StoredSecret } from './secret-store.ts';
export type { Cadence, Subscription, SubscriptionKind } from './subscription-store.ts';

/**
 * The bot's own storage: one store per aggregate (each its interface in `*-store.ts` and its Kysely
 * implementation in `kysely-*-store.ts`, on SQLite or PostgreSQL through one BotDatabase), and
 * this, every one of them as one object, for the callers that still take the whole store (new code
 * asks for the aggregate it uses). Every implementation must pass test/app/storage/*-contract.ts.
 */
export type BotStore = WorkspaceStore &
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
