import { describe, expect, it } from 'vitest';
import { homeView } from '../../../../../src/app/features/home/views/home-view.ts';
import { welcomeMessage } from '../../../../../src/app/features/links/views/welcome-message.ts';
import { ReachIds } from '../../../../../src/app/shared/ids.ts';
import { blockKitProblems, viewProblems } from '../../../../../src/app/shared/views/block-kit-limits.ts';
import { connectionSentence, THINGS_TO_TRY } from '../../../../../src/app/shared/views/getting-started.ts';
import { helpMessage } from '../../../../../src/app/shared/views/messages.ts';
import { mrkdwn } from '../../../../../src/app/shared/views/mrkdwn.ts';

describe('the welcome', () => {
  it('says what Tenderbot does, three things to try, whether a key is connected, and offers the search builder', () => {
    for (const state of ['workspace', 'default', 'none', 'unreadable'] as const) {
      const message = welcomeMessage(state);
      const text = JSON.stringify(message.blocks);
      expect(text).toContain('public tenders');
      expect(THINGS_TO_TRY).toHaveLength(3);
      for (const line of THINGS_TO_TRY) expect(text).toContain(JSON.stringify(line).slice(1, 40));
      expect(text).toContain(JSON.stringify(connectionSentence(state)).slice(1, -1));
      expect(text).toContain(ReachIds.openSearchBuilder);
      expect(blockKitProblems(message.blocks, 'message')).toEqual([]);
    }
  });

  it('says plainly whether the workspace can search yet, with no scope or internal word', () => {
    expect(connectionSentence('workspace')).toContain('can search now');
    expect(connectionSentence('none')).toContain('/tender connect');
    expect(connectionSentence('unreadable')).toContain('again');
    for (const state of ['workspace', 'default', 'none', 'unreadable'] as const)
      expect(connectionSentence(state)).not.toMatch(/scope|tenders:read|error|null|undefined/i);
  });
});

describe('the Home tab', () => {
  it('shows getting started on the first visit only, with the search builder’s button', () => {
    const first = homeView({ connection: mrkdwn`Connected`, canConnect: false, gettingStarted: 'workspace' });
    const later = homeView({ connection: mrkdwn`Connected`, canConnect: false });
    expect(JSON.stringify(first.blocks)).toContain('Getting started');
    expect(JSON.stringify(later.blocks)).not.toContain('Getting started');
    for (const view of [first, later]) {
      expect(JSON.stringify(view.blocks)).toContain(ReachIds.openSearchBuilder);
      expect(viewProblems(view)).toEqual([]);
    }
  });

  it('keeps Connect for those who may connect, beside Search tenders', () => {
    const view = homeView({ connection: mrkdwn`Not connected`, canConnect: true, gettingStarted: 'none' });
    const text = JSON.stringify(view.blocks);
    expect(text).toContain('Connect an API key');
    expect(text).toContain('Search tenders');
  });
});

describe('the help card', () => {
  it('offers the search builder and says links become cards', () => {
    const text = JSON.stringify(helpMessage().blocks);
    expect(text).toContain(ReachIds.openSearchBuilder);
    expect(text).toContain('Find a Tender');
    expect(blockKitProblems(helpMessage('frobnicate').blocks, 'message')).toEqual([]);
  });
});
