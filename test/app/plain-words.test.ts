import { describe, expect, it } from 'vitest';
import {
  CONNECTED_SENTENCE,
  connectDoneView,
  connectModal,
  GUEST_LINKED_SENTENCE,
  PERSONAL_LINKED_SENTENCE,
} from '../../src/app/features/connection/views/connect-views.ts';
import { PERSONAL_KEY_REQUIRED_SENTENCE } from '../../src/app/shared/failure-sentences.ts';
import {
  bidsOwnerLine,
  bookmarkButtonsLine,
  bookmarksOwnerLine,
  commentAuthorLine,
  type KeySource,
  keyPhrase,
} from '../../src/app/shared/views/key-identity.ts';
import { USAGE_LINES } from '../../src/app/shared/views/messages.ts';
import { FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import { jargonIn, textsPeopleRead } from '../support/workbench.ts';

// The check test/workbench/walk.test.ts runs over every message, window and Home tab of the walk:
// here it is shown to catch what it must and to leave plain sentences alone.

describe('words a bid lead must never read', () => {
  it('finds scope names, error classes, system error codes and field names', () => {
    const found = jargonIn([
      'Your key lacks the tenders:read scope.',
      'Something failed: ValidationError.',
      'The service said ECONNREFUSED.',
      'UND_ERR_CONNECT_TIMEOUT while searching.',
      'Value at least undefined',
      'q: cleaning, region: North West',
      'valueMin: 100000',
      'Check targetSubmissionDate and try again.',
      'The idempotency_key was reused.',
      'Deadline: [object Object]',
    ]);
    expect(found.map((item) => item.what)).toEqual([
      'a scope name',
      'an error class',
      'a system error code',
      'an HTTP client error code',
      'a value the program failed to fill',
      'the search field name q:',
      'a field name (camelCase)',
      'a field name (camelCase)',
      'a field or code name (snake_case)',
      'a value the program failed to fill',
    ]);
    expect(found.find((item) => item.what === 'a scope name')?.found).toBe('tenders:read');
  });

  it('leaves plain sentences, commands people type, links and emoji alone', () => {
    expect(
      jargonIn([
        'Your organisation’s key cannot read bids. Ask an admin to connect a key that can.',
        'Try `/tender search cleaning region:"North West" value>100k closes<14d status:open cpv:72`.',
        ':white_check_mark: Qualify moved to completed by <@U0MEMBER>',
        'The original notice: <https://example.org/notices?valueMin=1&q=x|Contracts Finder>',
        'See https://www.find-tender.service.gov.uk/Notice/012345-2026?buyerId=2',
        'Closes at 12:00 on 1 Dec 2026 · £1,200,000 · NHS Supply Chain',
        'McDonald’s and iPhone are names, as is a title someone wrote: “eBay resellers”.',
      ]),
    ).toEqual([]);
  });

  it('reads what people see of the app’s messages, windows and Home tabs, never ids or values', () => {
    const slack = new FakeSlack({ signingSecret: 's', botToken: 'xoxb-x' });
    slack.postEphemeralAsApp('U0MEMBER', 'C0BIDS', 'Tenders matching “cleaning”', [
      { type: 'section', block_id: 'b_valueMin', text: { type: 'mrkdwn', text: '*Cleaning* £1,000' } },
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            action_id: 'tender/bookmark',
            value: '{"tenderId":"ocds-1"}',
            text: { type: 'plain_text', text: 'Bookmark' },
          },
        ],
      },
    ]);
    // A person's own words are theirs.
    slack.postAsUser('U0MEMBER', 'C0BIDS', 'my deadlineTo: friday');
    slack.calls.push({
      method: 'views.open',
      args: {
        view: JSON.stringify({
          type: 'modal',
          private_metadata: '{"idempotencyKey":"k"}',
          title: { type: 'plain_text', text: 'Start a bid' },
          blocks: [{ type: 'input', label: { type: 'plain_text', text: 'Bid name' } }],
        }),
      },
    });
    slack.calls.push({ method: 'response_url', args: { text: 'Replaced since', channel: 'C0BIDS' } });
    const texts = textsPeopleRead(slack);
    expect(texts).toEqual([
      'Tenders matching “cleaning”',
      '*Cleaning* £1,000',
      'Bookmark',
      'Start a bid',
      'Bid name',
      'Replaced since',
    ]);
    expect(jargonIn(texts)).toEqual([]);
  });
});

/** Every `text` a view shows (titles, sections, labels, buttons), never its ids or values. */
function shownTexts(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) shownTexts(item, out);
  else if (value && typeof value === 'object')
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'text' && typeof inner === 'string') out.push(inner);
      else shownTexts(inner, out);
    }
  return out;
}

describe('what personal keys say', () => {
  it('every sentence about whose key is used, linking, unlinking and the workspace’s setting is in plain words', () => {
    const sources: KeySource[] = ['personal', 'workspace', 'default'];
    const texts = [
      PERSONAL_KEY_REQUIRED_SENTENCE,
      PERSONAL_LINKED_SENTENCE,
      GUEST_LINKED_SENTENCE,
      CONNECTED_SENTENCE,
      ...USAGE_LINES,
      ...sources.flatMap((source) => [
        keyPhrase(source),
        bookmarksOwnerLine(source),
        bookmarkButtonsLine(source),
        commentAuthorLine(source),
        bidsOwnerLine(source),
      ]),
      ...[connectModal('m', 'https://service.example', undefined, true), connectDoneView(true)].flatMap(
        (view) => shownTexts(view),
      ),
    ];
    expect(jargonIn(texts)).toEqual([]);
  });
});
