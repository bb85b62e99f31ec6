import { describe, expect, it } from 'vitest';
import { newTendersPhrase } from '../../../../../src/app/features/subscriptions/feed-words.ts';
import {
  feedMessage,
  subscriptionsListMessage,
} from '../../../../../src/app/features/subscriptions/views/subscription-messages.ts';
import { code, mrkdwn } from '../../../../../src/app/shared/views/mrkdwn.ts';

describe('feedMessage', () => {
  it('says nothing new since when it counts from, not "since the last post" (a first post has none)', () => {
    const message = feedMessage({
      heading: newTendersPhrase(mrkdwn`“cleaning”`, { q: 'cleaning' }, 0),
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
    expect(message.text).toBe('0 new tenders for “cleaning” since Mon 23 Nov, 09:00');
  });
});

describe('newTendersPhrase (a feed post’s heading, counted)', () => {
  it('says “for” only before words or a saved search’s name; a status reads as an adjective', () => {
    expect(newTendersPhrase(mrkdwn`worth CA$2,000,000 or more`, { valueMin: 2_000_000 }, 0)).toBe(
      '0 new tenders worth CA$2,000,000 or more',
    );
    expect(newTendersPhrase(mrkdwn`in Wales`, { region: 'Wales' }, 1)).toBe('1 new tender in Wales');
    expect(newTendersPhrase(mrkdwn`open, closing within 7 days`, { status: 'open' }, 3)).toBe(
      '3 new open tenders closing within 7 days',
    );
    expect(newTendersPhrase(mrkdwn`Council roads`, {}, 2, true)).toBe('2 new tenders for Council roads');
    expect(newTendersPhrase(mrkdwn`everything`, {}, 4)).toBe('4 new tenders');
    // Without a count: the feed's title.
    expect(newTendersPhrase(mrkdwn`in Wales`, { region: 'Wales' })).toBe('New tenders in Wales');
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
