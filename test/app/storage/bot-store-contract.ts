import { expect, it } from 'vitest';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';

/**
 * What every BotStore must do, whatever database is behind it. `open(name)` opens a store on the
 * database called `name`: two calls with one name are two stores (two copies of the app) on the
 * same data; a new name is an empty database. Run for SQLite in bot-store.test.ts.
 */
export function botStoreContract(open: (name: string) => BotStore | Promise<BotStore>): void {
  const at = new Date('2026-11-22T12:00:00Z');
  const connection = {
    teamId: 'T1',
    encryptedApiKey: 'v1:abc',
    serviceUrl: null,
    connectedBy: 'U1',
    connectedAt: '2026-11-21T00:00:00Z',
  };

  it('keeps a workspace connection across reopening, replaces it, and removes it', async () => {
    const store = await open('connections');
    await store.saveConnection(connection);
    await store.close();
    const reopened = await open('connections');
    expect(await reopened.getConnection('T1')).toEqual(connection);
    await reopened.saveConnection({
      ...connection,
      encryptedApiKey: 'v1:new',
      serviceUrl: 'https://x.example',
    });
    expect(await reopened.getConnection('T1')).toMatchObject({
      encryptedApiKey: 'v1:new',
      serviceUrl: 'https://x.example',
    });
    expect(await reopened.removeConnection('T1')).toBe(true);
    expect(await reopened.getConnection('T1')).toBeNull();
    expect(await reopened.removeConnection('T1')).toBe(false);
    await reopened.close();
  });

  it('lists stored connections', async () => {
    const store = await open('listed');
    expect(await store.listConnections()).toEqual([]);
    await store.saveConnection({ ...connection, teamId: 'T2' });
    await store.saveConnection({ ...connection, teamId: 'T0' });
    const listed = await store.listConnections();
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.map((each) => each.teamId)).toEqual(['T0', 'T2']);
    await store.close();
  });

  it('remembers a request until it expires, once for every store on the same data', async () => {
    const one = await open('seen');
    const two = await open('seen');
    const until = new Date(at.getTime() + 6 * 60_000);
    expect(await one.rememberRequest('signature:v0=aa', until, at)).toBe(true);
    expect(await one.rememberRequest('signature:v0=aa', until, at)).toBe(false);
    expect(await two.rememberRequest('signature:v0=aa', until, at)).toBe(false);
    expect(await two.rememberRequest('signature:v0=bb', until, at)).toBe(true);
    // Past its expiry the row is pruned, and the same id is new again.
    const later = new Date(until.getTime() + 1);
    expect(await two.rememberRequest('signature:v0=aa', new Date(later.getTime() + 60_000), later)).toBe(
      true,
    );
    // An expired entry counts as unseen at once, whether or not it has been pruned yet.
    const soon = new Date(at.getTime() + 1000);
    expect(await one.rememberRequest('signature:v0=cc', soon, at)).toBe(true);
    const justAfter = new Date(soon.getTime() + 1);
    expect(
      await one.rememberRequest('signature:v0=cc', new Date(justAfter.getTime() + 1000), justAfter),
    ).toBe(true);
    expect(
      await one.rememberRequest('signature:v0=cc', new Date(justAfter.getTime() + 1000), justAfter),
    ).toBe(false);
    await one.close();
    await two.close();
  });

  it('keeps a state under its token until it expires, for every store on the same data', async () => {
    const one = await open('states');
    const two = await open('states');
    const token = '~abcdefghijklmnopqrstuv';
    const until = new Date(at.getTime() + 30 * 86_400_000);
    expect(await one.loadState(token, at)).toBeNull();
    await one.saveState(token, '{"e":"tender","id":"ocds-1"}', until);
    expect(await one.loadState(token, at)).toBe('{"e":"tender","id":"ocds-1"}');
    expect(await two.loadState(token, at)).toBe('{"e":"tender","id":"ocds-1"}');
    expect(await two.loadState(token, until)).toBeNull();
    expect(await two.loadState('~another', at)).toBeNull();
    await one.close();
    await two.close();
  });

  it('records who wrote each comment, per workspace, and keeps the first author', async () => {
    const store = await open('comments');
    expect((await store.commentAuthors('T1', [])).size).toBe(0);
    await store.recordCommentAuthor({ commentId: 'c1', teamId: 'T1', userId: 'UALICE', createdAt: at });
    await store.recordCommentAuthor({ commentId: 'c2', teamId: 'T1', userId: 'UBOB', createdAt: at });
    await store.recordCommentAuthor({ commentId: 'c1', teamId: 'T2', userId: 'UCAROL', createdAt: at });
    // A Slack retry recording the same comment again does not change its author.
    await store.recordCommentAuthor({ commentId: 'c1', teamId: 'T1', userId: 'UMALLORY', createdAt: at });
    const authors = await store.commentAuthors('T1', ['c1', 'c2', 'c3']);
    expect(authors.size).toBeGreaterThan(0);
    expect([...authors.entries()].sort()).toEqual([
      ['c1', 'UALICE'],
      ['c2', 'UBOB'],
    ]);
    expect([...(await store.commentAuthors('T2', ['c1', 'c2'])).entries()]).toEqual([['c1', 'UCAROL']]);
    // Many ids at once (more than one statement's worth).
    const many = Array.from({ length: 450 }, (_, index) => `m${index}`);
    for (const id of many.slice(0, 3)) {
      await store.recordCommentAuthor({ commentId: id, teamId: 'T1', userId: 'UBULK', createdAt: at });
    }
    await store.recordCommentAuthor({ commentId: 'm449', teamId: 'T1', userId: 'ULAST', createdAt: at });
    const bulk = await store.commentAuthors('T1', many);
    expect(bulk.size).toBe(4);
    expect(bulk.get('m449')).toBe('ULAST');
    await store.close();
  });

  it('remembers every message showing a pipeline, and forgets one', async () => {
    const store = await open('pipelines');
    expect(await store.pipelineMessages('T1', 'p1')).toEqual([]);
    await store.rememberPipelineMessage({ pipelineId: 'p1', teamId: 'T1', channelId: 'C1', ts: '1.0001' });
    await store.rememberPipelineMessage({
      pipelineId: 'p1',
      teamId: 'T1',
      channelId: 'C2',
      ts: '2.0001',
      threadTs: '1.5',
    });
    await store.rememberPipelineMessage({ pipelineId: 'p2', teamId: 'T1', channelId: 'C1', ts: '3.0001' });
    await store.rememberPipelineMessage({ pipelineId: 'p1', teamId: 'T2', channelId: 'C9', ts: '4.0001' });
    // The same message remembered twice is one message.
    await store.rememberPipelineMessage({ pipelineId: 'p1', teamId: 'T1', channelId: 'C1', ts: '1.0001' });
    const shown = await store.pipelineMessages('T1', 'p1');
    expect(shown.length).toBeGreaterThan(0);
    expect(shown).toEqual([
      { pipelineId: 'p1', teamId: 'T1', channelId: 'C1', ts: '1.0001' },
      { pipelineId: 'p1', teamId: 'T1', channelId: 'C2', ts: '2.0001', threadTs: '1.5' },
    ]);
    expect(await store.forgetPipelineMessage('T1', 'C1', '1.0001')).toBe(true);
    expect(await store.forgetPipelineMessage('T1', 'C1', '1.0001')).toBe(false);
    expect((await store.pipelineMessages('T1', 'p1')).map((message) => message.channelId)).toEqual(['C2']);
    expect((await store.pipelineMessages('T2', 'p1')).map((message) => message.ts)).toEqual(['4.0001']);
    await store.close();
  });

  it('greets a channel once, for every store on the same data, per workspace', async () => {
    const first = await open('welcomes');
    const second = await open('welcomes');
    expect(await first.markChannelWelcomed('T1', 'C1', at)).toBe(true);
    // Another copy of the app, and the same copy after the app was removed and added again.
    expect(await second.markChannelWelcomed('T1', 'C1', at)).toBe(false);
    expect(await first.markChannelWelcomed('T1', 'C1', at)).toBe(false);
    expect(await second.markChannelWelcomed('T1', 'C2', at)).toBe(true);
    expect(await second.markChannelWelcomed('T2', 'C1', at)).toBe(true);
    await first.close();
    await second.close();
  });
}
