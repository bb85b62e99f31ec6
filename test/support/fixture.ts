import { SCOPES } from '../../src/contract/schemas.ts';

/** Tender ids of the demo data set (seeded, so stable): the first few and the framework call-offs. */
export const TENDER_A = 'ocds-tbdemo-0000201';
export const TENDER_B = 'ocds-tbdemo-0000202';
export const LARGE_FRAMEWORK_ID = 'ocds-tbdemo-fw-0001';

const ALL = [...SCOPES];

/** Clear keys of the test fixture, by who holds them. */
export const KEYS = {
  aliceAcme: 'pis_test_alice_acme_0123456789abcdefghijklmnop',
  aliceBeta: 'pis_test_alice_beta_0123456789abcdefghijklmnop',
  aliceTendersOnly: 'pis_test_alice_tenders_only_0123456789abcdefgh',
  aliceExpired: 'pis_test_alice_expired_0123456789abcdefghijklm',
  bobAdminAcme: 'pis_test_bob_admin_acme_0123456789abcdefghijkl',
  carolMemberAcme: 'pis_test_carol_member_acme_0123456789abcdefgh',
  victorViewerAcme: 'pis_test_victor_viewer_acme_0123456789abcdefg',
  daveBeta: 'pis_test_dave_beta_0123456789abcdefghijklmnopq',
  erinFormerMember: 'pis_test_erin_former_0123456789abcdefghijklmno',
  basicPlan: 'pis_test_basic_plan_0123456789abcdefghijklmnop',
  slowLane: 'pis_test_slow_lane_0123456789abcdefghijklmnopq',
} as const;

/**
 * Two organisations that see nothing of each other, one on a plan without API access, and a key
 * for every state a key can be in. Alice belongs to both Acme and Beta.
 */
export function testFixture() {
  return {
    organisations: [
      { id: 'org-acme', name: 'Acme Bids Ltd', plan: 'enterprise' },
      { id: 'org-beta', name: 'Beta Tenders plc', plan: 'professional' },
      { id: 'org-basic', name: 'Basic Co', plan: 'essentials' },
    ],
    users: [
      { id: 'usr-alice', name: 'Alice Example', email: 'alice@acme.example' },
      { id: 'usr-bob', name: 'Bob Admin' },
      { id: 'usr-carol', name: 'Carol Member' },
      { id: 'usr-victor', name: 'Victor Viewer' },
      { id: 'usr-dave', name: 'Dave Beta' },
      { id: 'usr-erin', name: 'Erin Former' },
      { id: 'usr-basil', name: 'Basil Basic' },
    ],
    memberships: [
      { organisationId: 'org-acme', userId: 'usr-alice', role: 'owner' },
      { organisationId: 'org-acme', userId: 'usr-bob', role: 'admin' },
      { organisationId: 'org-acme', userId: 'usr-carol', role: 'member' },
      { organisationId: 'org-acme', userId: 'usr-victor', role: 'viewer' },
      { organisationId: 'org-beta', userId: 'usr-alice', role: 'member' },
      { organisationId: 'org-beta', userId: 'usr-dave', role: 'owner' },
      { organisationId: 'org-basic', userId: 'usr-basil', role: 'owner' },
    ],
    apiKeys: [
      {
        key: KEYS.aliceAcme,
        organisationId: 'org-acme',
        userId: 'usr-alice',
        scopes: ALL,
        rateLimitPerSecond: 1000,
      },
      {
        key: KEYS.aliceBeta,
        organisationId: 'org-beta',
        userId: 'usr-alice',
        scopes: ALL,
        rateLimitPerSecond: 1000,
      },
      {
        key: KEYS.aliceTendersOnly,
        organisationId: 'org-acme',
        userId: 'usr-alice',
        scopes: ['tenders:read'],
      },
      {
        key: KEYS.aliceExpired,
        organisationId: 'org-acme',
        userId: 'usr-alice',
        scopes: ALL,
        expiresAt: '2020-01-01T00:00:00Z',
      },
      {
        key: KEYS.bobAdminAcme,
        organisationId: 'org-acme',
        userId: 'usr-bob',
        scopes: ALL,
        rateLimitPerSecond: 1000,
      },
      {
        key: KEYS.carolMemberAcme,
        organisationId: 'org-acme',
        userId: 'usr-carol',
        scopes: ALL,
        rateLimitPerSecond: 1000,
      },
      {
        key: KEYS.victorViewerAcme,
        organisationId: 'org-acme',
        userId: 'usr-victor',
        scopes: ALL,
        rateLimitPerSecond: 1000,
      },
      {
        key: KEYS.daveBeta,
        organisationId: 'org-beta',
        userId: 'usr-dave',
        scopes: ALL,
        rateLimitPerSecond: 1000,
      },
      { key: KEYS.erinFormerMember, organisationId: 'org-acme', userId: 'usr-erin', scopes: ALL },
      { key: KEYS.basicPlan, organisationId: 'org-basic', userId: 'usr-basil', scopes: ALL },
      {
        key: KEYS.slowLane,
        organisationId: 'org-acme',
        userId: 'usr-alice',
        scopes: ALL,
        rateLimitPerSecond: 3,
      },
    ],
    savedSearches: [
      ...Array.from({ length: 150 }, (_, index) => ({
        id: `ss-acme-${String(index + 1).padStart(3, '0')}`,
        organisationId: 'org-acme',
        name: `Acme search ${index + 1}`,
        query: { q: 'cleaning', region: 'North West', limit: 5 },
      })),
      { id: 'ss-beta-1', organisationId: 'org-beta', name: 'Beta: software', query: { q: 'software' } },
    ],
    pipelines: [
      {
        id: 'pl-bob',
        organisationId: 'org-acme',
        ownerId: 'usr-bob',
        name: 'Bob’s hospital cleaning bid',
        summary: 'Shared: Alice may view, Carol may edit.',
        members: [
          { userId: 'usr-alice', permission: 'view' },
          { userId: 'usr-carol', permission: 'edit' },
          { userId: 'usr-victor', permission: 'edit' },
        ],
        stages: [{ name: 'Qualify' }, { name: 'Write' }],
      },
      {
        id: 'pl-carol-private',
        organisationId: 'org-acme',
        ownerId: 'usr-carol',
        name: 'Carol’s private bid',
        stages: [{ name: 'Qualify' }],
      },
      { id: 'pl-beta', organisationId: 'org-beta', ownerId: 'usr-dave', name: 'Beta bid', stages: [] },
    ],
    bookmarks: [
      { userId: 'usr-bob', tenderId: TENDER_A },
      { userId: 'usr-carol', tenderId: TENDER_A },
      { userId: 'usr-dave', tenderId: TENDER_A },
    ],
  };
}
