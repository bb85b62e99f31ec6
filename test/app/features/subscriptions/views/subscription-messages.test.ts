import { describe, expect, it } from 'vitest';
import {
  feedMessage,
  subscriptionsListMessage,
} from '../../../../../src/app/features/subscriptions/views/subscription-messages.ts';
import { code, mrkdwn } from '../../../../../src/app/shared/views/mrkdwn.ts';

describe('feedMessage', () => {
  it('says nothing new since when it counts from, not "since the last post" (a first post has none)', () => {
    const message = feedMessage({
      description: mrkdwn`Tenders matching “cleaning”`,
      tenders: [],
      total: 0,
      since: 'Mon 23 Nov, 09:00',
      deliveryId: '00000000-0000-4000-8000-000000000001',
      notes: { lateFor: null, skipped: 0 },
      now: new Date('2026-11-24T09:00:00Z'),
    });
    const shown = JSON.stringify(message.blocks);
    expect(shown).toContain('Nothing new was published since Mon 23 Nov, 09:00.');
    expect(shown).not.toContain('last post');
    expect(message.text).toBe('0 new tenders for Tenders matching “cleaning” since Mon 23 Nov, 09:00');
  });
});

describe('subscriptionsListMessage', () => {
  it('asks before unsubscribing in plain text: the summary without its code marks or entities', () => {
    const message = subscriptionsListMessage(
      [
        {
          subscription: { id: 'sub-1', createdBy: 'U0ADMIN', pausedReason: null },
          what: mrkdwn`new tenders matching ${code('cleaning & <windows>')}`,
          when: 'daily at 09:00',
          next: 'tomorrow',
        },
      ],
      'C0BIDS',
    );
    const confirm = JSON.stringify(message.blocks).match(
      /"confirm":\{"title".*?"text":\{"type":"plain_text","text":"([^"]*)"/,
    );
    expect(confirm?.[1]).toBe('This channel will no longer get new tenders matching cleaning & <windows>.');
  });
});
