import { describe, expect, it } from 'vitest';
import { feedCard } from '../../../../src/app/features/subscriptions/views/subscription-messages.ts';
import { parseCommand } from '../../../../src/app/shared/commands/subcommands.ts';
import { tenderCard, tenderDetail } from '../../../../src/app/shared/views/tender-card.ts';
import { Tender } from '../../../../src/contract/schemas.ts';
import { readerTime } from '../../../support/slack-dates.ts';

// As the service serves a tender imported from a real OCDS file: the id is the ocid, the source's
// own reference (tender.id in the release) is something else.
const tender = Tender.parse({
  id: 'ocds-b5fd17-e3b5f385-0a1b',
  title: 'Cleaning of <schools>',
  description: null,
  status: 'open',
  buyer: { id: '9711454a-f86c-5415-9d6b-f37e32a7b68e', name: 'Leeds City Council' },
  value: { amount: 100000, currency: 'GBP' },
  publishedAt: '2026-11-01T00:00:00Z',
  deadline: '2026-12-01T00:00:00Z',
  awardedAt: null,
  region: 'Yorkshire',
  cpvCodes: [{ code: '90910000', description: 'Cleaning services' }],
  source: { name: 'Contracts Finder', id: 'CF-12345' },
  url: null,
  frameworkId: null,
  suppliers: [],
});

const contextLine = (blocks: ReturnType<typeof tenderCard>) => {
  const context = blocks.find((block) => block.type === 'context');
  if (context?.type !== 'context') throw new Error('no context line');
  const [first] = context.elements;
  return first && 'text' in first ? first.text : '';
};

describe('the tender card', () => {
  it('shows first the id that /tender show takes, then the source and its own reference', () => {
    const line = contextLine(
      tenderCard(tender, {
        bookmarked: false,
        shared: false,
        now: new Date('2026-11-21'),
        context: 'detail',
      }),
    );
    const first = /^`([^`]+)`/.exec(line)?.[1];
    expect(first).toBe(tender.id);
    expect(parseCommand(`show ${first}`)).toEqual({ kind: 'show', rest: tender.id });
    expect(parseCommand(first ?? '')).toEqual({ kind: 'show', rest: tender.id });
    expect(line).toContain('Contracts Finder · CF-12345');
  });

  it('does not repeat the reference when the source uses the same id', () => {
    const same = { ...tender, source: { name: 'Find a Tender', id: tender.id } };
    const line = contextLine(
      tenderCard(same, { bookmarked: false, shared: false, now: new Date('2026-11-21'), context: 'detail' }),
    );
    expect(line.split(tender.id)).toHaveLength(2);
  });
});

describe('the card’s Open original button', () => {
  const urlsOf = (url: string | null) =>
    tenderCard(Tender.parse({ ...tender, url }), {
      bookmarked: false,
      shared: false,
      now: new Date('2026-11-21'),
      context: 'detail',
    }).flatMap((block) =>
      block.type === 'actions'
        ? block.elements.flatMap((element) => ('url' in element && element.url ? [element.url] : []))
        : [],
    );
  const feedUrlsOf = (url: string | null) =>
    feedCard(Tender.parse({ ...tender, url }), new Date('2026-11-21')).flatMap((block) =>
      block.type === 'actions'
        ? block.elements.flatMap((element) => ('url' in element && element.url ? [element.url] : []))
        : [],
    );

  it('opens the notice’s own address, as the publisher wrote it', () => {
    const notice = 'https://www.contractsfinder.service.gov.uk/Notice/5a115892-5c5e-4646?a=1&b=2';
    expect(urlsOf(notice)).toEqual([notice]);
    expect(feedUrlsOf(notice)).toEqual([notice]);
  });

  it('writes a space inside a publisher’s address as a browser sends it', () => {
    expect(urlsOf(' https://x.example/notice 12.pdf ')).toEqual(['https://x.example/notice%2012.pdf']);
  });

  it('is left out for an address a browser would not open as a page, or one too long for Slack', () => {
    for (const url of [
      'javascript:alert(document.domain)//',
      'data:text/html,<script>alert(1)</script>',
      'slack://open',
      'file:///etc/passwd',
      'https://x.example/a\tb',
      'https://x.example/a|<!channel>',
      'https://',
      `https://x.example/${'u'.repeat(3000)}`,
      null,
    ]) {
      expect(urlsOf(url), String(url)).toEqual([]);
      expect(feedUrlsOf(url), String(url)).toEqual([]);
    }
  });
});

describe('the full tender view', () => {
  const full = Tender.parse({
    ...tender,
    description: 'Lot 1: primary schools.\nLot 2: <secondary> & sixth forms.',
    status: 'awarded',
    deadline: '2026-12-01T14:30:00Z',
    awardedAt: '2026-12-20T00:00:00Z',
    url: 'https://www.contractsfinder.service.gov.uk/Notice/5a115892-5c5e-4646?a=1&b=2',
  });
  const text = JSON.stringify(
    tenderDetail(full, { bookmarked: false, shared: false, now: new Date('2026-11-21'), context: 'detail' }),
  );

  it('adds the published date, the deadline to the minute with its zone, and the award date', () => {
    expect(text).toContain('*Published*\\n1 Nov 2026');
    // In each reader's own zone where Slack draws dates, in UTC words where it draws none.
    expect(text).toContain(
      `*Deadline*\\ncloses in 10 days (${readerTime(full.deadline as string, '1 Dec 2026, 14:30 UTC')})`,
    );
    expect(text.match(/\*Deadline\*/g)).toHaveLength(1);
    expect(text).toContain('*Awarded*\\n20 Dec 2026');
  });

  it('keeps the description’s line breaks, escaped, and links the original notice by its source', () => {
    expect(text).toContain('Lot 1: primary schools.\\nLot 2: &lt;secondary&gt; &amp; sixth forms.');
    expect(text).toContain(
      'The original notice, on Contracts Finder: <https://www.contractsfinder.service.gov.uk/Notice/5a115892-5c5e-4646?a=1&amp;b=2|',
    );
  });

  it('leaves out a link that could break out of mrkdwn', () => {
    for (const url of ['javascript:alert(1)', 'https://x.example/a|<!channel>', 'https://x.example/a\nb']) {
      const blocks = tenderDetail(Tender.parse({ ...full, url }), {
        bookmarked: false,
        shared: false,
        now: new Date('2026-11-21'),
        context: 'detail',
      });
      expect(JSON.stringify(blocks), url).not.toContain('The original notice');
    }
  });
});
