import { expect, it } from 'vitest';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { bidReferenceStoreContract } from './bid-reference-store-contract.ts';
import { bidStarterStoreContract } from './bid-starter-store-contract.ts';
import { commandQueueStoreContract } from './command-queue-store-contract.ts';
import { deliveryStoreContract } from './delivery-store-contract.ts';
import { installationStoreContract } from './installation-store-contract.ts';
import { keptValueStoreContract } from './kept-value-store-contract.ts';
import { messageStoreContract } from './message-store-contract.ts';
import { secretStoreContract } from './secret-store-contract.ts';
import { subscriptionStoreContract } from './subscription-store-contract.ts';
import { workspaceStoreContract } from './workspace-store-contract.ts';

/**
 * What every BotStore must do, whatever database is behind it: the contract of each aggregate
 * store (one file each, as in src/app/storage), and the database's own answer. `open(name)` opens a
 * store on the database called `name`: two calls with one name are two stores (two copies of the
 * app) on the same data; a new name is an empty database. Run for SQLite in bot-store.test.ts and
 * for PostgreSQL in bot-store-postgres.test.ts.
 */
export function botStoreContract(open: (name: string) => BotStore | Promise<BotStore>): void {
  workspaceStoreContract(open);
  keptValueStoreContract(open);
  messageStoreContract(open);
  bidStarterStoreContract(open);
  bidReferenceStoreContract(open);
  subscriptionStoreContract(open);
  deliveryStoreContract(open);
  installationStoreContract(open);
  secretStoreContract(open);
  commandQueueStoreContract(open);

  it('answers a ping', async () => {
    const store = await open('ping');
    await expect(store.ping()).resolves.toBeUndefined();
    await store.close();
  });
}
