import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Comment } from '../../../src/contract/schemas.ts';
import { KEYS, TENDER_A, TENDER_B } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.stop());

const post = (key: string, body: Record<string, unknown>) =>
  sandbox.call('POST', '/v1/comments', { key, body });
const thread = (key: string, entityType: string, entityId: string) =>
  sandbox.call('GET', `/v1/comments?entityType=${entityType}&entityId=${encodeURIComponent(entityId)}`, {
    key,
  });

describe('posting comments', () => {
  it('creates with 201, returns the same comment with 200 on a retry, and 409 for other content', async () => {
    const idempotencyKey = randomUUID();
    const body = { entityType: 'tender', entityId: TENDER_B, body: 'Worth a look.', idempotencyKey };
    const created = await post(KEYS.carolMemberAcme, body);
    expect(created.status).toBe(201);
    expect(Comment.parse(created.body.data)).toEqual(created.body.data);
    expect(created.body.data).toMatchObject({
      entityType: 'tender',
      entityId: TENDER_B,
      parentId: null,
      body: 'Worth a look.',
      author: { id: 'usr-carol', name: 'Carol Member' },
      deletedAt: null,
    });
    const retried = await post(KEYS.carolMemberAcme, { ...body, parentId: null });
    expect(retried.status).toBe(200);
    expect(retried.body.data).toEqual(created.body.data);
    const conflict = await post(KEYS.carolMemberAcme, { ...body, body: 'Something else.' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('idempotency_conflict');
    expect((await thread(KEYS.carolMemberAcme, 'tender', TENDER_B)).body.data).toHaveLength(1);
  });

  it('takes a key retried in capitals as the same key (a UUID’s case says nothing)', async () => {
    const idempotencyKey = randomUUID();
    const body = { entityType: 'tender', entityId: TENDER_B, body: 'Retried in capitals.', idempotencyKey };
    const created = await post(KEYS.carolMemberAcme, body);
    expect(created.status).toBe(201);
    const retried = await post(KEYS.carolMemberAcme, {
      ...body,
      idempotencyKey: idempotencyKey.toUpperCase(),
    });
    expect(retried.status).toBe(200);
    expect(retried.body.data.id).toBe(created.body.data.id);
    const other = await post(KEYS.carolMemberAcme, {
      ...body,
      body: 'Other words.',
      idempotencyKey: idempotencyKey.toUpperCase(),
    });
    expect(other.status).toBe(409);
  });

  it('refuses a body that shows nothing (spaces, zero-width characters) as blank, naming body', async () => {
    for (const blank of ['   ', '\u200b\u200b', ' \ufeff\u2060\n']) {
      const answer = await post(KEYS.aliceAcme, {
        entityType: 'tender',
        entityId: TENDER_B,
        body: blank,
        idempotencyKey: randomUUID(),
      });
      expect(answer.status, JSON.stringify(blank)).toBe(400);
      expect(answer.body.errors).toEqual([{ field: 'body', message: 'must not be blank' }]);
    }
    // Spaces around words are the author's: kept as sent.
    const spaced = await post(KEYS.aliceAcme, {
      entityType: 'tender',
      entityId: TENDER_B,
      body: '  indented\n',
      idempotencyKey: randomUUID(),
    });
    expect(spaced.status).toBe(201);
    expect(spaced.body.data.body).toBe('  indented\n');
  });

  it('remembers keys per creator: the same key from another user is a new comment', async () => {
    const idempotencyKey = randomUUID();
    const body = {
      entityType: 'tender',
      entityId: TENDER_B,
      body: 'Same key, other person.',
      idempotencyKey,
    };
    expect((await post(KEYS.carolMemberAcme, body)).status).toBe(201);
    expect((await post(KEYS.bobAdminAcme, body)).status).toBe(201);
  });

  it('threads replies under a parent on the same record, and refuses a parent elsewhere', async () => {
    const root = await post(KEYS.aliceAcme, {
      entityType: 'tender',
      entityId: TENDER_A,
      body: 'Root',
      idempotencyKey: randomUUID(),
    });
    const reply = await post(KEYS.bobAdminAcme, {
      entityType: 'tender',
      entityId: TENDER_A,
      body: 'Reply',
      parentId: root.body.data.id,
      idempotencyKey: randomUUID(),
    });
    expect(reply.status).toBe(201);
    expect(reply.body.data.parentId).toBe(root.body.data.id);
    const misplaced = await post(KEYS.bobAdminAcme, {
      entityType: 'tender',
      entityId: TENDER_B,
      body: 'Wrong thread',
      parentId: root.body.data.id,
      idempotencyKey: randomUUID(),
    });
    expect(misplaced.status).toBe(400);
    expect(misplaced.body.errors).toEqual([{ field: 'parentId', message: expect.any(String) }]);
    const listed = await thread(KEYS.aliceAcme, 'tender', TENDER_A);
    expect(listed.body.data.map((comment: { body: string }) => comment.body)).toEqual(['Root', 'Reply']);
  });

  it('counts the 5,000-character limit in code points', async () => {
    const emoji = '😀'.repeat(5000);
    const atLimit = await post(KEYS.aliceAcme, {
      entityType: 'tender',
      entityId: TENDER_B,
      body: emoji,
      idempotencyKey: randomUUID(),
    });
    expect(atLimit.status).toBe(201);
    const over = await post(KEYS.aliceAcme, {
      entityType: 'tender',
      entityId: TENDER_B,
      body: `${emoji}x`,
      idempotencyKey: randomUUID(),
    });
    expect(over.status).toBe(400);
    expect(over.body.errors).toEqual([expect.objectContaining({ field: 'body' })]);
    const empty = await post(KEYS.aliceAcme, {
      entityType: 'tender',
      entityId: TENDER_B,
      body: '',
      idempotencyKey: randomUUID(),
    });
    expect(empty.status).toBe(400);
  });

  it('answers 404 for a comment on an unknown record of any type', async () => {
    for (const [entityType, entityId] of [
      ['tender', 'no-such'],
      ['buyer', '00000000-0000-4000-8000-000000000000'],
      ['supplier', 'no-such'],
      ['framework', 'no-such'],
    ]) {
      const answer = await post(KEYS.aliceAcme, {
        entityType,
        entityId,
        body: 'x',
        idempotencyKey: randomUUID(),
      });
      expect(answer.status, entityType).toBe(404);
      expect((await thread(KEYS.aliceAcme, entityType as string, entityId as string)).status).toBe(404);
    }
  });

  it('comments on buyers, suppliers and frameworks too', async () => {
    const buyer = (await sandbox.call('GET', '/v1/buyers?limit=1', { key: KEYS.aliceAcme })).body.data[0];
    const answer = await post(KEYS.aliceAcme, {
      entityType: 'buyer',
      entityId: buyer.id,
      body: 'Good payer',
      idempotencyKey: randomUUID(),
    });
    expect(answer.status).toBe(201);
    expect((await thread(KEYS.aliceAcme, 'buyer', buyer.id)).body.data).toHaveLength(1);
  });

  it('forbids viewers to post', async () => {
    const answer = await post(KEYS.victorViewerAcme, {
      entityType: 'tender',
      entityId: TENDER_B,
      body: 'I only watch',
      idempotencyKey: randomUUID(),
    });
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe('forbidden');
  });
});

describe('notifications', () => {
  it('records one for each other member of the organisation who bookmarked the tender', async () => {
    const answer = await post(KEYS.carolMemberAcme, {
      entityType: 'tender',
      entityId: TENDER_A,
      body: 'Deadline moved',
      idempotencyKey: randomUUID(),
    });
    const { comments } = sandbox.app.serviceContext;
    // Bob bookmarked TENDER_A and is in Acme; Carol is the author; Dave bookmarked it but is in Beta.
    expect(comments.notificationsFor('usr-bob')).toContainEqual({
      commentId: answer.body.data.id,
      tenderId: TENDER_A,
      organisationId: 'org-acme',
    });
    expect(comments.notificationsFor('usr-carol').map((n) => n.commentId)).not.toContain(answer.body.data.id);
    expect(comments.notificationsFor('usr-dave')).toEqual([]);
  });
});

describe('deleting comments', () => {
  const create = async (key: string) =>
    (
      await post(key, {
        entityType: 'tender',
        entityId: TENDER_B,
        body: 'to delete',
        idempotencyKey: randomUUID(),
      })
    ).body.data.id as string;

  it('lets the author delete softly: the entry stays with a null body, and again is 204', async () => {
    const id = await create(KEYS.carolMemberAcme);
    expect((await sandbox.call('DELETE', `/v1/comments/${id}`, { key: KEYS.carolMemberAcme })).status).toBe(
      204,
    );
    expect((await sandbox.call('DELETE', `/v1/comments/${id}`, { key: KEYS.carolMemberAcme })).status).toBe(
      204,
    );
    const entry = (await thread(KEYS.aliceAcme, 'tender', TENDER_B)).body.data.find(
      (c: { id: string }) => c.id === id,
    );
    expect(entry.body).toBeNull();
    expect(entry.deletedAt).toMatch(/Z$/);
  });

  it('lets an owner or admin delete another’s comment, but not a member or a viewer', async () => {
    const byAlice = await create(KEYS.aliceAcme);
    const carolTries = await sandbox.call('DELETE', `/v1/comments/${byAlice}`, { key: KEYS.carolMemberAcme });
    expect(carolTries.status).toBe(403);
    expect(carolTries.body.code).toBe('forbidden');
    expect(
      (await sandbox.call('DELETE', `/v1/comments/${byAlice}`, { key: KEYS.victorViewerAcme })).status,
    ).toBe(403);
    expect((await sandbox.call('DELETE', `/v1/comments/${byAlice}`, { key: KEYS.bobAdminAcme })).status).toBe(
      204,
    );
    const byCarol = await create(KEYS.carolMemberAcme);
    expect((await sandbox.call('DELETE', `/v1/comments/${byCarol}`, { key: KEYS.aliceAcme })).status).toBe(
      204,
    );
  });

  it('answers 404 for an unknown comment', async () => {
    expect(
      (await sandbox.call('DELETE', `/v1/comments/${randomUUID()}`, { key: KEYS.aliceAcme })).status,
    ).toBe(404);
  });
});
