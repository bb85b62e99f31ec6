import { SCOPES, type Scope } from '../../contract/schemas.ts';
import type { ServiceContext } from '../http/service-context.ts';

export const DEMO_ORGANISATION_ID = 'org-demo';

export interface DemoKey {
  label: string;
  userId: string;
  scopes: Scope[];
  key: string;
}

const READ_SCOPES = SCOPES.filter((scope) => scope.endsWith(':read'));

/**
 * The demo organisation a newcomer can use at once: an owner, an admin, a member and a viewer,
 * a key for each (the owner's with every scope), a few saved searches and a shared pipeline.
 * Keys are random and printed once; only their hashes are stored.
 */
export function createDemoOrganisation(context: ServiceContext): DemoKey[] {
  const { organisations, savedSearches, pipelines } = context;
  const now = context.clock().toISOString();
  return organisations.transaction(() => {
    organisations.upsertOrganisation({ id: DEMO_ORGANISATION_ID, name: 'Demo Bids Ltd', plan: 'enterprise' });
    const people = [
      { id: 'usr-demo-owner', name: 'Olivia Owner', role: 'owner' as const, scopes: [...SCOPES] },
      // Named as the workbench's own admin and member (Ada, Max), whose keys its workspace uses:
      // a bid's owner in the service is then someone the workspace knows.
      { id: 'usr-demo-admin', name: 'Ada Admin', role: 'admin' as const, scopes: [...SCOPES] },
      { id: 'usr-demo-member', name: 'Max Member', role: 'member' as const, scopes: [...SCOPES] },
      { id: 'usr-demo-viewer', name: 'Victor Viewer', role: 'viewer' as const, scopes: [...READ_SCOPES] },
    ];
    const keys: DemoKey[] = [];
    for (const person of people) {
      organisations.upsertUser({
        id: person.id,
        name: person.name,
        email: `${person.id.slice(9)}@demo.example`,
      });
      organisations.upsertMembership({
        organisationId: DEMO_ORGANISATION_ID,
        userId: person.id,
        role: person.role,
      });
      const { key } = organisations.createKey({
        name: `demo ${person.role}`,
        organisationId: DEMO_ORGANISATION_ID,
        userId: person.id,
        scopes: person.scopes,
        expiresAt: null,
        rateLimitPerSecond: 100,
      });
      keys.push({ label: `${person.name} (${person.role})`, userId: person.id, scopes: person.scopes, key });
    }
    const searches = [
      { name: 'Cleaning, North West', query: { q: 'cleaning', region: 'North West' } },
      { name: 'Digital work over £100k', query: { q: 'software', valueMin: 100000 } },
      { name: 'Open care contracts', query: { cpv: '85', status: 'open' } },
    ];
    for (const search of searches)
      savedSearches.insert({ organisationId: DEMO_ORGANISATION_ID, ...search }, now);
    pipelines.create(
      {
        organisationId: DEMO_ORGANISATION_ID,
        ownerId: 'usr-demo-owner',
        name: 'Example bid: facilities cleaning',
        summary: 'A pipeline shared with the team, to try stages and comments.',
        targetSubmissionDate: null,
        tenderId: null,
        stages: [
          { name: 'Qualify', expectedDurationDays: 3 },
          { name: 'Write the bid', expectedDurationDays: 10 },
          { name: 'Review and sign-off', expectedDurationDays: 2 },
        ],
        members: [
          { userId: 'usr-demo-admin', permission: 'view' },
          { userId: 'usr-demo-member', permission: 'edit' },
          { userId: 'usr-demo-viewer', permission: 'view' },
        ],
      },
      now,
    );
    return keys;
  });
}

/** A second organisation of the demo service: the workbench's second workspace connects its key. */
export const SECOND_DEMO_ORGANISATION = {
  id: 'org-demo-second',
  name: 'Second Bids Ltd',
  ownerId: 'usr-second-owner',
} as const;

/**
 * Adds the second demo organisation and its owner, if the service has not got them (a data folder
 * made before it existed gets them too). Keys are made by whoever needs one, each start.
 */
export function ensureSecondDemoOrganisation(context: ServiceContext): void {
  const { organisations } = context;
  if (organisations.isMember(SECOND_DEMO_ORGANISATION.id, SECOND_DEMO_ORGANISATION.ownerId)) return;
  organisations.transaction(() => {
    organisations.upsertOrganisation({
      id: SECOND_DEMO_ORGANISATION.id,
      name: SECOND_DEMO_ORGANISATION.name,
      plan: 'enterprise',
    });
    organisations.upsertUser({
      id: SECOND_DEMO_ORGANISATION.ownerId,
      name: 'Sam Second',
      email: 'second-owner@demo.example',
    });
    organisations.upsertMembership({
      organisationId: SECOND_DEMO_ORGANISATION.id,
      userId: SECOND_DEMO_ORGANISATION.ownerId,
      role: 'owner',
    });
  });
}
