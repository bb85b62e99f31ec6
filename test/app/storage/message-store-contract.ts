import { expect, it } from 'vitest';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { at } from './contract-fixtures.ts';

/** What every MessageStore must do (comment authors, bid-card messages, greeted channels); `open` as in botStoreContract. */
export function messageStoreContract(open: (name: string) => BotStore | Promise<BotStore>): void {
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

  it('remembers every shared card of a tender, newest first and as many as asked, and forgets one', async () => {
    const store = await open('shared-cards');
    expect(await store.sharedTenderCards('T1', 't1', 10)).toEqual([]);
    const card = (channelId: string, ts: string, tenderId = 't1', teamId = 'T1') => ({
      tenderId,
      teamId,
      channelId,
      ts,
      sharedBy: 'UALICE',
    });
    await store.rememberSharedTenderCard(card('C1', '1.0001'), new Date(at.getTime()));
    await store.rememberSharedTenderCard(card('C2', '2.0001'), new Date(at.getTime() + 1_000));
    await store.rememberSharedTenderCard(card('C3', '3.0001'), new Date(at.getTime() + 2_000));
    await store.rememberSharedTenderCard(card('C1', '4.0001', 't2'), at);
    await store.rememberSharedTenderCard(card('C9', '5.0001', 't1', 'T2'), at);
    // The same card remembered twice is one card, kept as first remembered.
    await store.rememberSharedTenderCard({ ...card('C1', '1.0001'), sharedBy: 'UBOB' }, at);
    const shown = await store.sharedTenderCards('T1', 't1', 10);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown).toEqual([card('C3', '3.0001'), card('C2', '2.0001'), card('C1', '1.0001')]);
    expect((await store.sharedTenderCards('T1', 't1', 2)).map((each) => each.channelId)).toEqual([
      'C3',
      'C2',
    ]);
    expect(await store.forgetSharedTenderCard('T1', 'C2', '2.0001')).toBe(true);
    expect(await store.forgetSharedTenderCard('T1', 'C2', '2.0001')).toBe(false);
    expect((await store.sharedTenderCards('T1', 't1', 10)).map((each) => each.ts)).toEqual([
      '3.0001',
      '1.0001',
    ]);
    expect((await store.sharedTenderCards('T2', 't1', 10)).map((each) => each.ts)).toEqual(['5.0001']);
    await store.close();
  });

  it('remembers every comment thread posted of a record, newest first and as many as asked, and forgets one', async () => {
    const store = await open('comment-threads');
    const record = { entityType: 'tender', entityId: 't1' };
    expect(await store.commentThreads('T1', record, 10)).toEqual([]);
    const thread = (
      channelId: string,
      ts: string,
      entityId = 't1',
      teamId = 'T1',
      entityType = 'tender',
    ) => ({
      entityType,
      entityId,
      teamId,
      channelId,
      ts,
      postedBy: 'UALICE',
    });
    await store.rememberCommentThread(thread('C1', '1.0001'), new Date(at.getTime()));
    await store.rememberCommentThread(thread('C2', '2.0001'), new Date(at.getTime() + 1_000));
    await store.rememberCommentThread(thread('C3', '3.0001'), new Date(at.getTime() + 2_000));
    // Another record, another kind of record with the same id, another workspace: not this one's.
    await store.rememberCommentThread(thread('C1', '4.0001', 't2'), at);
    await store.rememberCommentThread(thread('C1', '6.0001', 't1', 'T1', 'framework'), at);
    await store.rememberCommentThread(thread('C9', '5.0001', 't1', 'T2'), at);
    // The same message remembered twice is one, kept as first remembered.
    await store.rememberCommentThread({ ...thread('C1', '1.0001'), postedBy: 'UBOB' }, at);
    expect(await store.commentThreads('T1', record, 10)).toEqual([
      thread('C3', '3.0001'),
      thread('C2', '2.0001'),
      thread('C1', '1.0001'),
    ]);
    expect((await store.commentThreads('T1', record, 2)).map((each) => each.channelId)).toEqual(['C3', 'C2']);
    expect(await store.forgetCommentThread('T1', 'C2', '2.0001')).toBe(true);
    expect(await store.forgetCommentThread('T1', 'C2', '2.0001')).toBe(false);
    expect((await store.commentThreads('T1', record, 10)).map((each) => each.ts)).toEqual([
      '3.0001',
      '1.0001',
    ]);
    expect((await store.commentThreads('T2', record, 10)).map((each) => each.ts)).toEqual(['5.0001']);
    expect(
      (await store.commentThreads('T1', { entityType: 'framework', entityId: 't1' }, 10)).map(
        (each) => each.ts,
      ),
    ).toEqual(['6.0001']);
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
