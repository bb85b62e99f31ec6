import type { StoredInstallation } from '../../../src/app/storage/installation-store.ts';
import type { Subscription } from '../../../src/app/storage/subscription-store.ts';

/** What the store contracts keep and compare, shared by the contract of each aggregate store. */
export const at = new Date('2026-11-22T12:00:00Z');

export const connection = {
  teamId: 'T1',
  encryptedApiKey: 'v1:abc',
  serviceUrl: null,
  connectedBy: 'U1',
  connectedAt: '2026-11-21T00:00:00Z',
};

export const subscription = (id: string, channelId = 'C1', nextRunAt = at): Subscription => ({
  id,
  teamId: 'T1',
  channelId,
  kind: 'pipeline',
  target: '{"p":"pl-1"}',
  cadence: 'daily',
  localTime: '09:00',
  timeZone: 'Europe/London',
  createdBy: 'U1',
  createdAt: at,
  pausedReason: null,
  nextRunAt,
  cursor: null,
  skippedCount: 0,
});

export const later = (ms: number) => new Date(at.getTime() + ms);

/** A subscription as its table's row, for the tests that insert thousands at once. */
export const subscriptionRow = (id: string, channelId: string, nextRunAt: number) => ({
  id,
  team_id: 'T1',
  channel_id: channelId,
  kind: 'pipeline',
  target: 'p1',
  cadence: 'daily',
  local_time: '09:00',
  time_zone: 'Europe/London',
  created_by: 'U1',
  created_at: 0,
  paused_reason: null,
  next_run_at: nextRunAt,
  cursor: null,
  cursor_at: null,
});

export const installation = (
  teamId: string | null,
  enterpriseId: string | null,
  isEnterpriseInstall: boolean,
  secret: string,
): StoredInstallation => ({
  teamId,
  enterpriseId,
  isEnterpriseInstall,
  encryptedInstallation: secret,
  installedAt: at,
});

export const workspace = (teamId: string) => ({ teamId, enterpriseId: null, isEnterpriseInstall: false });
