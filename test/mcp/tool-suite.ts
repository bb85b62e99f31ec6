import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { KEYS, LARGE_FRAMEWORK_ID, TENDER_A, TENDER_B } from '../support/fixture.ts';
import type { TestSandbox } from '../support/sandbox.ts';

/** Every tool the server offers: one per capability of the service's specification. */
export const TOOL_NAMES = [
  'search_tenders',
  'get_tender',
  'list_buyers',
  'get_buyer',
  'list_suppliers',
  'get_supplier',
  'list_frameworks',
  'get_framework',
  'list_bookmarks',
  'add_bookmark',
  'remove_bookmark',
  'list_saved_searches',
  'get_saved_search',
  'run_saved_search',
  'list_comments',
  'post_comment',
  'delete_comment',
  'list_bids',
  'get_bid',
  'create_bid',
  'update_bid',
  'update_bid_stage',
  'archive_bid',
  'restore_bid',
].sort();

// biome-ignore lint/suspicious/noExplicitAny: structured results are asserted field by field.
export type Structured = any;

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  return { isError: result.isError === true, text, data: result.structuredContent as Structured };
}

/** The text of a resource read. */
function textOf(read: { contents: ({ text: string } | { blob: string })[] }): string {
  const first = read.contents[0];
  return first && 'text' in first ? first.text : '';
}

/** Calls a tool that must succeed; its text on failure says why it did not. */
async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Structured> {
  const result = await callTool(client, name, args);
  expect(result.isError, `${name} failed: ${result.text}`).toBe(false);
  expect(result.text.length).toBeGreaterThan(0);
  return result.data;
}

/** Pages a list tool to its end, following nextCursor. */
async function everyItem(client: Client, name: string, args: Record<string, unknown>) {
  const items: Structured[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await ok(client, name, { ...args, ...(cursor ? { cursor } : {}) });
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
    pages++;
  } while (cursor && pages < 50);
  return { items, pages };
}

/**
 * The tools' behaviour, the same over every transport: `connect` gives an SDK Client speaking to
 * the server with a key (the stdio server spawned with it, or the HTTP endpoint with it as bearer).
 */
export function describeTools(
  context: () => { sandbox: TestSandbox; connect: (key: string) => Promise<Client> },
): void {
  const service = (method: string, path: string, key: string = KEYS.aliceAcme, body?: unknown) =>
    context().sandbox.call(method, path, { key, body });

  describe('every tool listed with its schemas', () => {
    it('lists one tool per capability, each with a title, a description, schemas and the four hints', async () => {
      const client = await context().connect(KEYS.aliceAcme);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(TOOL_NAMES);
      for (const tool of tools) {
        expect(tool.title, tool.name).toMatch(/\w/);
        expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(60);
        expect(tool.inputSchema.type, tool.name).toBe('object');
        expect(tool.outputSchema?.type, tool.name).toBe('object');
        const hints = tool.annotations ?? {};
        for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const)
          expect(typeof hints[hint], `${tool.name} ${hint}`).toBe('boolean');
        expect(hints.readOnlyHint, tool.name).toBe(/^(search|get|list|run)_/.test(tool.name));
      }
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      const searchInputs = Object.keys(byName.get('search_tenders')?.inputSchema.properties ?? {}).sort();
      expect(searchInputs).toEqual(
        [
          'q',
          'status',
          'buyerId',
          'region',
          'cpv',
          'valueMin',
          'valueMax',
          'currency',
          'publishedFrom',
          'publishedTo',
          'deadlineFrom',
          'deadlineTo',
          'url',
          'limit',
          'cursor',
        ].sort(),
      );
      expect(byName.get('delete_comment')?.annotations?.destructiveHint).toBe(true);
      expect(byName.get('post_comment')?.inputSchema.properties).toHaveProperty('idempotencyKey');
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((template) => template.uriTemplate).sort()).toEqual([
        'bid://{id}',
        'buyer://{id}',
        'tender://{id}',
      ]);
    });
  });

  describe('each tool on its main path', () => {
    it('searches tenders with each filter, as the service finds them', async () => {
      const client = await context().connect(KEYS.aliceAcme);
      const tender = (await service('GET', `/v1/tenders/${TENDER_A}`)).body.data;
      const filters: Record<string, unknown>[] = [
        { q: tender.title.split(' ')[0] },
        { status: tender.status },
        { buyerId: tender.buyer.id },
        { region: tender.region },
        { cpv: tender.cpvCodes[0].code.slice(0, 3) },
        { valueMin: 100000 },
        { valueMax: 100000 },
        // Bounds in euros: the service converts the other currencies, as it says in valueRule.
        { valueMin: 100000, currency: 'EUR' },
        { publishedFrom: tender.publishedAt.slice(0, 10) },
        { publishedTo: tender.publishedAt.slice(0, 10) },
        { deadlineFrom: '2026-01-01' },
        { deadlineTo: '2026-01-01' },
        ...(tender.url ? [{ url: tender.url }] : []),
      ];
      const unfiltered = (await service('GET', '/v1/tenders?limit=1')).body.pagination.total;
      for (const filter of filters) {
        const query = new URLSearchParams(
          Object.entries({ ...filter, limit: 5 }).map(([name, value]): [string, string] => [
            name,
            String(value),
          ]),
        );
        const expected = (await service('GET', `/v1/tenders?${query}`)).body;
        const found = await ok(client, 'search_tenders', { ...filter, limit: 5 });
        expect(found.total, JSON.stringify(filter)).toBe(expected.pagination.total);
        expect(found.total, JSON.stringify(filter)).toBeLessThan(unfiltered);
        expect(found.items.map((item: { id: string }) => item.id)).toEqual(
          expected.data.map((item: { id: string }) => item.id),
        );
      }
      // The rule the service compared values by is said beside the list, and only with a bound.
      const bounded = await callTool(client, 'search_tenders', {
        valueMin: 100000,
        currency: 'EUR',
        limit: 1,
      });
      const rule = (await service('GET', '/v1/tenders?valueMin=100000&currency=EUR&limit=1')).body.valueRule;
      expect(bounded.text).toContain(`Value bounds: ${rule.summary}`);
      expect((await callTool(client, 'search_tenders', { limit: 1 })).text).not.toContain('Value bounds');
      // An argument by another name is refused, naming it, rather than ignored (a search of everything).
      const misnamed = await callTool(client, 'search_tenders', { query: 'cleaning' });
      expect(misnamed.isError).toBe(true);
      expect(misnamed.text).toContain('query');
      const read = await ok(client, 'get_tender', { id: TENDER_A });
      expect(read.tender).toEqual(tender);
    });

    it('lists and reads buyers, suppliers and frameworks', async () => {
      const client = await context().connect(KEYS.aliceAcme);
      for (const [list, get, path, field] of [
        ['list_buyers', 'get_buyer', '/v1/buyers', 'buyer'],
        ['list_suppliers', 'get_supplier', '/v1/suppliers', 'supplier'],
      ] as const) {
        const expected = (await service('GET', `${path}?limit=3`)).body;
        const listed = await ok(client, list, { limit: 3 });
        expect(listed.total).toBe(expected.pagination.total);
        expect(listed.items.map((item: { id: string }) => item.id)).toEqual(
          expected.data.map((item: { id: string }) => item.id),
        );
        const read = await ok(client, get, { id: listed.items[0].id });
        expect(read[field].id).toBe(listed.items[0].id);
        expect(read[field].notices.length).toBe(Math.min(100, listed.items[0].noticeCount));
      }
      const frameworks = await ok(client, 'list_frameworks', { status: 'live', limit: 2 });
      const expected = (await service('GET', '/v1/frameworks?status=live&limit=2')).body;
      expect(frameworks.total).toBe(expected.pagination.total);
      const framework = await ok(client, 'get_framework', { id: LARGE_FRAMEWORK_ID });
      expect(framework.framework.id).toBe(LARGE_FRAMEWORK_ID);
      expect(framework.framework.callOffs).toHaveLength(100);
    });

    it('adds, lists and removes a bookmark', async () => {
      const client = await context().connect(KEYS.aliceAcme);
      const added = await ok(client, 'add_bookmark', { tenderId: TENDER_B });
      expect(added.bookmark.tenderId).toBe(TENDER_B);
      const listed = await everyItem(client, 'list_bookmarks', { limit: 100 });
      expect(listed.items.map((item: { tenderId: string }) => item.tenderId)).toContain(TENDER_B);
      await ok(client, 'remove_bookmark', { tenderId: TENDER_B });
      const after = (await service('GET', '/v1/bookmarks?limit=100')).body.data;
      expect(after.map((item: { tenderId: string }) => item.tenderId)).not.toContain(TENDER_B);
    });

    it('reads saved searches and runs one as the service searches its filters', async () => {
      const client = await context().connect(KEYS.aliceAcme);
      const listed = await ok(client, 'list_saved_searches', { limit: 2 });
      expect(listed.items.map((item: { id: string }) => item.id)).toEqual(['ss-acme-001', 'ss-acme-002']);
      const read = await ok(client, 'get_saved_search', { id: 'ss-acme-001' });
      expect(read.savedSearch.query).toEqual({ q: 'cleaning', region: 'North West', limit: 5 });
      const run = await ok(client, 'run_saved_search', { id: 'ss-acme-001' });
      const expected = (await service('GET', '/v1/tenders?q=cleaning&region=North%20West&limit=5')).body;
      expect(run.savedSearch.id).toBe('ss-acme-001');
      expect(run.total).toBe(expected.pagination.total);
      expect(run.items.map((item: { id: string }) => item.id)).toEqual(
        expected.data.map((item: { id: string }) => item.id),
      );
    });

    it('posts, lists and deletes a comment', async () => {
      const client = await context().connect(KEYS.aliceAcme);
      const entityId = TENDER_B;
      const body = `What did we say about this one? ${randomUUID()}`;
      const posted = await ok(client, 'post_comment', { entityType: 'tender', entityId, body });
      expect(posted.comment.body).toBe(body);
      const listed = await everyItem(client, 'list_comments', { entityType: 'tender', entityId, limit: 100 });
      expect(listed.items.map((item: { id: string }) => item.id)).toContain(posted.comment.id);
      await ok(client, 'delete_comment', { id: posted.comment.id });
      const after = (await service('GET', `/v1/comments?entityType=tender&entityId=${entityId}&limit=100`))
        .body.data;
      expect(after.find((item: { id: string }) => item.id === posted.comment.id)?.body).toBeNull();
    });

    it('starts a bid, changes it and a stage, archives and restores it; lists and reads bids', async () => {
      const client = await context().connect(KEYS.aliceAcme);
      const created = await ok(client, 'create_bid', {
        name: `NHS cleaning ${randomUUID().slice(0, 8)}`,
        tenderId: TENDER_A,
        targetSubmissionDate: '2027-01-15',
        stages: [{ name: 'Qualify' }, { name: 'Write', expectedDurationDays: 10 }],
      });
      const id = created.bid.id;
      expect(created.bid.status).toBe('draft');
      expect(created.bid.stages.map((stage: { name: string }) => stage.name)).toEqual(['Qualify', 'Write']);
      const changed = await ok(client, 'update_bid', { id, status: 'bidding', summary: 'Going for it' });
      expect(changed.bid.status).toBe('bidding');
      // A day that does not exist is refused by name before the call; one in the past is taken and said.
      const unreal = await callTool(client, 'update_bid', { id, targetSubmissionDate: '2027-02-30' });
      expect(unreal.isError).toBe(true);
      expect(unreal.text).toContain('must be a real calendar date at targetSubmissionDate');
      // One reason at a time: a day not written as YYYY-MM-DD is said so, and only so.
      const misshapen = await callTool(client, 'update_bid', { id, targetSubmissionDate: '2027-1-5' });
      expect(misshapen.text).toContain('must be a date in YYYY-MM-DD form at targetSubmissionDate');
      expect(misshapen.text).not.toContain('real calendar date');
      expect(misshapen.text).not.toContain('from 2000 to 2099');
      for (const outOfReach of ['0000-01-01', '9999-12-31']) {
        const refused = await callTool(client, 'update_bid', { id, targetSubmissionDate: outOfReach });
        expect(refused.isError, outOfReach).toBe(true);
        expect(refused.text).toContain('must be a day from 2000 to 2099 at targetSubmissionDate');
      }
      const past = await callTool(client, 'update_bid', { id, targetSubmissionDate: '2001-05-01' });
      expect(past.isError).toBe(false);
      expect(past.text).toContain('Note: the target submission date 2001-05-01 is in the past');
      expect(past.text).toContain('change it with update_bid');
      // A year from today, whenever the suite runs.
      const nextYear = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);
      const again = await callTool(client, 'update_bid', { id, targetSubmissionDate: nextYear });
      expect(again.text).not.toContain('in the past');
      const stage = await ok(client, 'update_bid_stage', {
        bidId: id,
        stageId: created.bid.stages[0].id,
        status: 'completed',
        dueDate: '2026-12-20',
      });
      expect(stage.stage).toMatchObject({ status: 'completed', dueDate: '2026-12-20' });
      const pastStage = await callTool(client, 'update_bid_stage', {
        bidId: id,
        stageId: created.bid.stages[1].id,
        dueDate: '2001-02-03',
      });
      expect(pastStage.text).toContain('Note: the due date 2001-02-03 is in the past');
      expect(pastStage.text).toContain('change it with update_bid_stage');
      expect((await ok(client, 'archive_bid', { id })).bid.archived).toBe(true);
      expect((await service('GET', `/v1/pipelines/${id}`)).body.data.archived).toBe(true);
      expect((await ok(client, 'restore_bid', { id })).bid.archived).toBe(false);
      const read = await ok(client, 'get_bid', { id });
      expect(read.bid).toMatchObject({ id, status: 'bidding', summary: 'Going for it', archived: false });
      const listed = await everyItem(client, 'list_bids', { archived: 'all', limit: 100 });
      const ids = listed.items.map((item: { id: string }) => item.id);
      expect(ids).toContain(id);
      expect(ids).toContain('pl-bob');
      expect(ids).not.toContain('pl-carol-private');
    });

    it('reads tenders, buyers and bids as resources', async () => {
      const client = await context().connect(KEYS.aliceAcme);
      const tender = await client.readResource({ uri: `tender://${TENDER_A}` });
      expect(JSON.parse(textOf(tender)).id).toBe(TENDER_A);
      const buyerId = (await service('GET', `/v1/tenders/${TENDER_A}`)).body.data.buyer.id;
      const buyer = await client.readResource({ uri: `buyer://${buyerId}` });
      expect(JSON.parse(textOf(buyer)).id).toBe(buyerId);
      const bid = await client.readResource({ uri: 'bid://pl-bob' });
      expect(JSON.parse(textOf(bid)).name).toBe('Bob’s hospital cleaning bid');
      await expect(client.readResource({ uri: 'tender://ocds-no-such-tender' })).rejects.toThrow(/Not found/);
      // A broken %-escape or an id longer than the service takes is refused here, with a sentence.
      await expect(client.readResource({ uri: 'tender://%E0%A4%A' })).rejects.toThrow(/broken %-escape/);
      await expect(client.readResource({ uri: `tender://${'a'.repeat(200_000)}` })).rejects.toThrow(
        /tender:\/\/\{id\} may be at most 300 characters/,
      );
      await expect(client.readResource({ uri: `bid://${'a'.repeat(301)}` })).rejects.toThrow(
        /bid:\/\/\{id\} may be at most 300 characters; this one has 301/,
      );
      const { resources } = await client.listResources();
      const listed = resources.map((resource) => resource.uri);
      expect(listed).toContain('bid://pl-bob');
      expect(listed).not.toContain('bid://pl-carol-private');
      const tendersOnly = await context().connect(KEYS.aliceTendersOnly);
      expect((await tendersOnly.listResources()).resources).toEqual([]);
    });
  });

  describe('refusals', () => {
    it('refuses submitted with the service’s explanation, as Slack does, and leaves the bid as it was', async () => {
      const client = await context().connect(KEYS.bobAdminAcme);
      // A bid's Slack reference is not an id: said so, with where the id comes from.
      const byReference = await callTool(client, 'update_bid', { id: 'BID-3', name: 'Renamed' });
      expect(byReference.isError).toBe(true);
      expect(byReference.text).toContain('give the bid’s id, as list_bids answers it');
      const refused = await callTool(client, 'update_bid', { id: 'pl-bob', status: 'submitted' });
      expect(refused.isError).toBe(true);
      expect(refused.text).toContain(
        'only be marked submitted through the Procurement Intelligence Service’s own submission workflow',
      );
      expect(refused.text).toContain('not through the API');
      expect(refused.text).not.toMatch(/\n\s+at /);
      expect((await service('GET', '/v1/pipelines/pl-bob', KEYS.bobAdminAcme)).body.data.status).not.toBe(
        'submitted',
      );
    });

    it('a viewer’s key writing gets the service’s refusal, and nothing is written', async () => {
      const client = await context().connect(KEYS.victorViewerAcme);
      const before = (await service('GET', `/v1/comments?entityType=tender&entityId=${TENDER_A}&limit=100`))
        .body.pagination.total;
      const comment = await callTool(client, 'post_comment', {
        entityType: 'tender',
        entityId: TENDER_A,
        body: 'hi',
      });
      expect(comment.isError).toBe(true);
      expect(comment.text).toMatch(/^The service refused: .+ Nothing was changed/);
      const bid = await callTool(client, 'create_bid', { name: 'Viewer’s bid' });
      expect(bid.isError).toBe(true);
      const update = await callTool(client, 'update_bid', { id: 'pl-bob', name: 'Renamed by a viewer' });
      expect(update.isError).toBe(true);
      expect(
        (await service('GET', `/v1/comments?entityType=tender&entityId=${TENDER_A}&limit=100`)).body
          .pagination.total,
      ).toBe(before);
      expect((await service('GET', '/v1/pipelines/pl-bob')).body.data.name).toBe(
        'Bob’s hospital cleaning bid',
      );
      const bids = (await service('GET', '/v1/pipelines?q=Viewer&archived=all', KEYS.victorViewerAcme)).body
        .data;
      expect(bids).toEqual([]);
    });

    it('a key with only tenders:read reaches nothing else: every other tool gets the service’s missing-scope refusal', async () => {
      const client = await context().connect(KEYS.aliceTendersOnly);
      const buyerId = (await service('GET', `/v1/tenders/${TENDER_A}`)).body.data.buyer.id;
      const supplierId = (await service('GET', '/v1/suppliers?limit=1')).body.data[0].id;
      const comment = (
        await service('POST', '/v1/comments', KEYS.aliceAcme, {
          entityType: 'tender',
          entityId: TENDER_A,
          body: 'kept',
          idempotencyKey: randomUUID(),
        })
      ).body.data;
      const valid: Record<string, Record<string, unknown>> = {
        search_tenders: { q: 'cleaning' },
        get_tender: { id: TENDER_A },
        list_buyers: {},
        get_buyer: { id: buyerId },
        list_suppliers: {},
        get_supplier: { id: supplierId },
        list_frameworks: {},
        get_framework: { id: LARGE_FRAMEWORK_ID },
        list_bookmarks: {},
        add_bookmark: { tenderId: TENDER_B },
        remove_bookmark: { tenderId: TENDER_A },
        list_saved_searches: {},
        get_saved_search: { id: 'ss-acme-001' },
        run_saved_search: { id: 'ss-acme-001' },
        list_comments: { entityType: 'tender', entityId: TENDER_A },
        post_comment: { entityType: 'tender', entityId: TENDER_A, body: 'not allowed' },
        delete_comment: { id: comment.id },
        list_bids: {},
        get_bid: { id: 'pl-bob' },
        create_bid: { name: 'not allowed' },
        update_bid: { id: 'pl-bob', name: 'not allowed' },
        update_bid_stage: { bidId: 'pl-bob', stageId: 'any', status: 'blocked' },
        archive_bid: { id: 'pl-bob' },
        restore_bid: { id: 'pl-bob' },
      };
      expect(Object.keys(valid).sort()).toEqual(TOOL_NAMES);
      for (const [name, args] of Object.entries(valid)) {
        const result = await callTool(client, name, args);
        if (name === 'search_tenders' || name === 'get_tender') {
          expect(result.isError, `${name}: ${result.text}`).toBe(false);
          continue;
        }
        expect(result.isError, name).toBe(true);
        expect(result.text, name).toMatch(
          /^The service refused: The API key lacks the scope [a-z-]+:(read|write)\./,
        );
      }
      const comments = (await service('GET', `/v1/comments?entityType=tender&entityId=${TENDER_A}&limit=100`))
        .body.data;
      expect(comments.find((item: { id: string }) => item.id === comment.id)?.body).toBe('kept');
      expect(comments.some((item: { body: string | null }) => item.body === 'not allowed')).toBe(false);
      expect((await service('GET', '/v1/pipelines/pl-bob', KEYS.bobAdminAcme)).body.data).toMatchObject({
        name: 'Bob’s hospital cleaning bid',
        archived: false,
      });
      await expect(client.readResource({ uri: 'bid://pl-bob' })).rejects.toThrow(
        /lacks the scope pipeline:read/,
      );
    });

    it('a key of a plan without API access, an expired key and an unknown id get their sentences', async () => {
      const basic = await callTool(await context().connect(KEYS.basicPlan), 'search_tenders', {
        q: 'cleaning',
      });
      expect(basic.isError).toBe(true);
      expect(basic.text).toContain('has no API access');
      const expired = await callTool(await context().connect(KEYS.aliceExpired), 'list_bids', {});
      expect(expired.isError).toBe(true);
      expect(expired.text).toMatch(/^The service refused the API key: The API key expired/);
      const missing = await callTool(await context().connect(KEYS.aliceAcme), 'get_tender', {
        id: 'ocds-none',
      });
      expect(missing.isError).toBe(true);
      expect(missing.text).toMatch(/^Not found: /);
    });

    it('arguments outside a tool’s schema are refused with what was wrong, before the service is asked', async () => {
      const client = await context().connect(KEYS.aliceAcme);
      const tooMany = await callTool(client, 'search_tenders', { limit: 500 });
      expect(tooMany.isError).toBe(true);
      expect(tooMany.text).toMatch(/<=100 at limit/);
      const badStatus = await callTool(client, 'update_bid', { id: 'pl-bob', status: 'finished' });
      expect(badStatus.isError).toBe(true);
      expect(badStatus.text).toContain('status');
      expect((await service('GET', '/v1/pipelines/pl-bob')).body.data.status).toBe('draft');
    });

    it('a cursor of another list is refused with a sentence', async () => {
      const client = await context().connect(KEYS.aliceAcme);
      const first = await ok(client, 'search_tenders', { q: 'cleaning', limit: 2 });
      expect(first.nextCursor).toEqual(expect.any(String));
      const other = await callTool(client, 'search_tenders', {
        q: 'software',
        limit: 2,
        cursor: first.nextCursor,
      });
      expect(other.isError).toBe(true);
      expect(other.text).toContain('That cursor belongs to another list or to other filters');
      const fromStart = await ok(client, 'search_tenders', { q: 'cleaning', limit: 2, cursor: null });
      expect(fromStart.items).toEqual(first.items);
      const broken = await callTool(client, 'list_bids', { cursor: 'not-a-cursor' });
      expect(broken.isError).toBe(true);
      expect(broken.text).toContain('That cursor is not one this server gave');
    });
  });

  describe('creations retried, paging, other organisations', () => {
    it('a creation retried with the same arguments makes one record; a new key makes a new one', async () => {
      const client = await context().connect(KEYS.carolMemberAcme);
      const entityId = TENDER_B;
      const count = async () =>
        (await service('GET', `/v1/comments?entityType=tender&entityId=${entityId}&limit=1`)).body.pagination
          .total;
      const before = await count();
      const args = { entityType: 'tender', entityId, body: `Retried ${randomUUID()}` };
      const first = await ok(client, 'post_comment', args);
      // The assistant's retry of the same call (over HTTP, a request of its own).
      const again = await ok(client, 'post_comment', args);
      expect(again.comment.id).toBe(first.comment.id);
      expect(await count()).toBe(before + 1);

      const idempotencyKey = randomUUID();
      const bidArgs = { name: `Retried bid ${randomUUID().slice(0, 8)}`, idempotencyKey };
      const bid = await ok(client, 'create_bid', bidArgs);
      expect((await ok(client, 'create_bid', bidArgs)).bid.id).toBe(bid.bid.id);
      const named = (
        await service('GET', `/v1/pipelines?q=${encodeURIComponent(bidArgs.name)}`, KEYS.carolMemberAcme)
      ).body.data;
      expect(named).toHaveLength(1);
      const conflict = await callTool(client, 'create_bid', { name: 'Something else', idempotencyKey });
      expect(conflict.isError).toBe(true);
      expect(conflict.text).toContain('make a new UUID');
      const fresh = await ok(client, 'create_bid', { ...bidArgs, idempotencyKey: randomUUID() });
      expect(fresh.bid.id).not.toBe(bid.bid.id);
    });

    it('the same call after its comment was deleted (or its bid archived) makes a new one, and never says a deleted one was posted', async () => {
      const client = await context().connect(KEYS.carolMemberAcme);
      const args = { entityType: 'tender', entityId: TENDER_B, body: `Said twice ${randomUUID()}` };
      const first = await ok(client, 'post_comment', args);
      await ok(client, 'delete_comment', { id: first.comment.id });
      // Within the retry window, without a key of the assistant's: a new comment, shown.
      const second = await ok(client, 'post_comment', args);
      expect(second.comment.id).not.toBe(first.comment.id);
      expect(second.comment.deletedAt).toBeNull();
      expect(second.comment.body).toBe(args.body);
      // With the assistant's own key of a comment deleted since: said so, nothing posted.
      const idempotencyKey = randomUUID();
      const keyed = await ok(client, 'post_comment', {
        ...args,
        body: `Keyed ${randomUUID()}`,
        idempotencyKey,
      });
      await ok(client, 'delete_comment', { id: keyed.comment.id });
      const replayed = await callTool(client, 'post_comment', {
        ...args,
        body: keyed.comment.body,
        idempotencyKey,
      });
      expect(replayed.text).toContain(
        `That idempotencyKey already made comment ${keyed.comment.id}, deleted since`,
      );
      expect(replayed.text).not.toContain('Posted comment');

      // A bid archived since: the same call starts a new one.
      const bidArgs = { name: `Started twice ${randomUUID().slice(0, 8)}` };
      const bid = await ok(client, 'create_bid', bidArgs);
      const archived = await service('POST', `/v1/pipelines/${bid.bid.id}/archive`, KEYS.carolMemberAcme, {
        archived: true,
      });
      expect(archived.status).toBe(200);
      const again = await ok(client, 'create_bid', bidArgs);
      expect(again.bid.id).not.toBe(bid.bid.id);
      expect(again.bid.archived).toBe(false);
      // With the assistant's own key of a bid archived since: said so, nothing started.
      const keyedArgs = { name: `Keyed bid ${randomUUID().slice(0, 8)}`, idempotencyKey: randomUUID() };
      const keyedBid = await ok(client, 'create_bid', keyedArgs);
      const archivedToo = await service(
        'POST',
        `/v1/pipelines/${keyedBid.bid.id}/archive`,
        KEYS.carolMemberAcme,
        {
          archived: true,
        },
      );
      expect(archivedToo.status).toBe(200);
      const replayedBid = await callTool(client, 'create_bid', keyedArgs);
      expect(replayedBid.text).toContain(
        'No new bid was started: that idempotencyKey already started this bid, archived since.',
      );
      expect(replayedBid.text).not.toContain('Started the bid');
    });

    it('pages to the end of a list with the cursor', async () => {
      const client = await context().connect(KEYS.aliceAcme);
      const saved = await everyItem(client, 'list_saved_searches', { limit: 40 });
      expect(saved.pages).toBe(3);
      expect(saved.items).toHaveLength(100);
      expect(new Set(saved.items.map((item: { id: string }) => item.id)).size).toBe(100);
      const total = (await service('GET', '/v1/tenders?status=open&limit=1')).body.pagination.total;
      expect(total).toBeGreaterThan(5);
      const limit = Math.min(100, Math.ceil(total / 3));
      const tenders = await everyItem(client, 'search_tenders', { status: 'open', limit });
      expect(tenders.items).toHaveLength(total);
      expect(new Set(tenders.items.map((item: { id: string }) => item.id)).size).toBe(total);
      expect(tenders.pages).toBe(Math.ceil(total / limit));
    });

    it('a key of another organisation sees none of this one’s bids or comments', async () => {
      const acme = await context().connect(KEYS.aliceAcme);
      const acmeBid = await ok(acme, 'create_bid', { name: `Acme only ${randomUUID().slice(0, 8)}` });
      await ok(acme, 'post_comment', { entityType: 'tender', entityId: TENDER_A, body: 'Acme’s view' });
      const beta = await context().connect(KEYS.daveBeta);
      const bids = await everyItem(beta, 'list_bids', { archived: 'all', limit: 100 });
      const ids = bids.items.map((item: { id: string }) => item.id);
      expect(ids).toContain('pl-beta');
      for (const acmeId of ['pl-bob', 'pl-carol-private', acmeBid.bid.id]) {
        expect(ids).not.toContain(acmeId);
        const read = await callTool(beta, 'get_bid', { id: acmeId });
        expect(read.isError).toBe(true);
        expect(read.text).toMatch(/^Not found: /);
        await expect(beta.readResource({ uri: `bid://${acmeId}` })).rejects.toThrow(/Not found/);
      }
      const thread = await ok(beta, 'list_comments', {
        entityType: 'tender',
        entityId: TENDER_A,
        limit: 100,
      });
      expect(thread.items.some((item: { body: string }) => item.body === 'Acme’s view')).toBe(false);
    });
  });
}
