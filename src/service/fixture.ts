import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import {
  CalendarDate,
  PIPELINE_STATUSES,
  PLANS,
  ROLES,
  SCOPES,
  STAGE_STATUSES,
} from '../contract/schemas.ts';
import type { ServiceContext } from './http/service-context.ts';
import { DEFAULT_RATE_LIMIT_PER_SECOND } from './store/organisations-store.ts';

/** The fixture file of CONTRACT.md §7: everything the API cannot create. Every section is optional. */
export const Fixture = z.strictObject({
  organisations: z
    .array(z.strictObject({ id: z.string().min(1), name: z.string().min(1), plan: z.enum(PLANS) }))
    .default([]),
  users: z
    .array(
      z.strictObject({
        id: z.string().min(1),
        name: z.string().min(1),
        email: z.string().nullable().optional(),
      }),
    )
    .default([]),
  memberships: z
    .array(z.strictObject({ organisationId: z.string(), userId: z.string(), role: z.enum(ROLES) }))
    .default([]),
  apiKeys: z
    .array(
      z.strictObject({
        key: z.string().min(8),
        name: z.string().default('fixture'),
        organisationId: z.string(),
        userId: z.string(),
        scopes: z.array(z.enum(SCOPES)),
        expiresAt: z.string().nullable().optional(),
        rateLimitPerSecond: z.number().int().positive().default(DEFAULT_RATE_LIMIT_PER_SECOND),
      }),
    )
    .default([]),
  savedSearches: z
    .array(
      z.strictObject({
        id: z.string().min(1).optional(),
        organisationId: z.string(),
        name: z.string().min(1),
        query: z.record(z.string(), z.unknown()),
      }),
    )
    .default([]),
  pipelines: z
    .array(
      z.strictObject({
        id: z.string().min(1).optional(),
        organisationId: z.string(),
        ownerId: z.string(),
        name: z.string().min(1),
        summary: z.string().nullable().optional(),
        status: z.enum(PIPELINE_STATUSES).optional(),
        targetSubmissionDate: CalendarDate.nullable().optional(),
        tenderId: z.string().nullable().optional(),
        archived: z.boolean().optional(),
        members: z
          .array(z.strictObject({ userId: z.string(), permission: z.enum(['view', 'edit']) }))
          .default([]),
        stages: z
          .array(
            z.strictObject({
              name: z.string().min(1),
              description: z.string().nullable().optional(),
              expectedDurationDays: z.number().nullable().optional(),
              status: z.enum(STAGE_STATUSES).optional(),
              notes: z.string().nullable().optional(),
              dueDate: CalendarDate.nullable().optional(),
            }),
          )
          .default([]),
      }),
    )
    .default([]),
  bookmarks: z.array(z.strictObject({ userId: z.string(), tenderId: z.string() })).default([]),
});
export type Fixture = z.infer<typeof Fixture>;

/** Reads and validates a fixture file; a malformed one is refused with every problem named. */
export async function readFixture(path: string): Promise<Fixture> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new Error(`fixture ${path} is not readable JSON: ${(error as Error).message}`);
  }
  const parsed = Fixture.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new Error(`fixture ${path} is not valid:\n  ${problems.join('\n  ')}`);
  }
  return parsed.data;
}

/**
 * Loads a fixture in one transaction, in the order its records are listed. Records already in
 * the database (from an earlier start with the same fixture) are kept as they are, so a restart
 * loses nothing that was changed through the API.
 */
export function applyFixture(context: ServiceContext, fixture: Fixture): void {
  const { organisations, savedSearches, pipelines, bookmarks } = context;
  const now = context.clock().toISOString();
  organisations.transaction(() => {
    for (const organisation of fixture.organisations) organisations.upsertOrganisation(organisation);
    for (const user of fixture.users) organisations.upsertUser(user);
    for (const membership of fixture.memberships) organisations.upsertMembership(membership);
    for (const key of fixture.apiKeys) {
      organisations.createKey(
        {
          name: key.name,
          organisationId: key.organisationId,
          userId: key.userId,
          scopes: key.scopes,
          expiresAt: key.expiresAt ?? null,
          rateLimitPerSecond: key.rateLimitPerSecond,
        },
        key.key,
      );
    }
    for (const search of fixture.savedSearches) savedSearches.insert(search, now);
    for (const pipeline of fixture.pipelines) {
      if (pipeline.id && pipelines.exists(pipeline.id)) continue;
      pipelines.create(
        {
          ...pipeline,
          summary: pipeline.summary ?? null,
          targetSubmissionDate: pipeline.targetSubmissionDate ?? null,
          tenderId: pipeline.tenderId ?? null,
        },
        now,
      );
    }
    for (const bookmark of fixture.bookmarks) {
      if (!context.publicRecords.tenderExists(bookmark.tenderId)) {
        throw new Error(`fixture bookmark names tender ${bookmark.tenderId}, which is not in the database`);
      }
      bookmarks.add(bookmark.userId, bookmark.tenderId, now);
    }
  });
}
