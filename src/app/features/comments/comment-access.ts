import type { ProcurementClient } from '../../../client/procurement-client.ts';
import type { Comment } from '../../../contract/schemas.ts';
import { PersonalKeyRequiredError } from '../../shared/errors.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import type { CommentEntityType } from '../../shared/values/button-values.ts';
import type { KeySource } from '../../shared/views/key-identity.ts';

/** What "Comment" was clicked on. */
export interface CommentTarget {
  entityType: CommentEntityType;
  entityId: string;
}

/** The most comments read for one thread (the service pages by 100). */
const THREAD_MAX = 1000;

/**
 * The name of what a thread is about (a tender's or framework's title, a buyer's or supplier's
 * name), and its own id: the service also finds a tender by its printed reference, but keeps its
 * comments under its id.
 */
export async function entityName(
  client: ProcurementClient,
  target: CommentTarget,
): Promise<{ name: string; entityId: string }> {
  switch (target.entityType) {
    case 'tender': {
      const tender = await client.tenders.get(target.entityId);
      return { name: tender.title, entityId: tender.id };
    }
    case 'buyer': {
      const buyer = await client.buyers.get(target.entityId);
      return { name: buyer.name, entityId: buyer.id };
    }
    case 'supplier': {
      const supplier = await client.suppliers.get(target.entityId);
      return { name: supplier.name, entityId: supplier.id };
    }
    case 'framework': {
      const framework = await client.frameworks.get(target.entityId);
      return { name: framework.title, entityId: framework.id };
    }
  }
}

/** The comments on one entity, oldest first as the service pages them, at most THREAD_MAX. */
export async function threadOf(client: ProcurementClient, target: CommentTarget): Promise<Comment[]> {
  const comments: Comment[] = [];
  for await (const comment of client.comments.all({
    entityType: target.entityType,
    entityId: target.entityId,
    limit: 100,
  })) {
    comments.push(comment);
    if (comments.length >= THREAD_MAX) break;
  }
  return comments;
}

export interface LoadedThread {
  name: string;
  comments: Comment[];
  slackAuthors: Map<string, string>;
  /** Whose key the person's comment would be posted with (said in the window). */
  source: KeySource;
}

/** The thread as a person may read it, with who in Slack wrote each comment through Tenderbot. */
export async function loadThread(
  context: FeatureContext,
  teamId: string,
  userId: string,
  target: CommentTarget,
): Promise<LoadedThread> {
  const { client, source } = await context.clients.forPerson(teamId, userId);
  const [{ name }, comments] = await Promise.all([entityName(client, target), threadOf(client, target)]);
  const slackAuthors = await context.store.commentAuthors(
    teamId,
    comments.map((comment) => comment.id),
  );
  return { name, comments, slackAuthors, source };
}

/** False when the workspace requires a person's own key for changes and this person has none. */
export async function writesAllowed(
  context: FeatureContext,
  teamId: string,
  userId: string,
): Promise<boolean> {
  try {
    await context.clients.forWrite(teamId, userId);
    return true;
  } catch (error) {
    if (error instanceof PersonalKeyRequiredError) return false;
    throw error;
  }
}

/** Who may delete a comment through Tenderbot: whoever wrote it through Tenderbot, and workspace owners and admins. */
export async function mayDelete(
  context: FeatureContext,
  teamId: string,
  userId: string,
  commentIds: readonly string[],
): Promise<Set<string>> {
  const facts = await context.users.facts(userId, teamId);
  if (facts.isGuest) return new Set();
  if (facts.isAdmin) return new Set(commentIds);
  const authors = await context.store.commentAuthors(teamId, commentIds);
  return new Set(commentIds.filter((id) => authors.get(id) === userId));
}
