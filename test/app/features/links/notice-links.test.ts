import { describe, expect, it } from 'vitest';
import {
  asTenderId,
  LONGEST_TOKEN,
  linksInText,
  noticeRefsInText,
  recogniseNoticeLink,
  UNFURL_DOMAINS,
} from '../../../../src/app/features/links/notice-links.ts';

describe('recogniseNoticeLink', () => {
  it('turns a Contracts Finder notice link (any case, with tracking) into its notice URL as the data spells it', () => {
    const canonical = {
      source: 'Contracts Finder',
      noticeUrl: 'https://www.contractsfinder.service.gov.uk/Notice/5a115892-5c5e-4646-8a8f-150c9708a9dc',
    };
    expect(
      recogniseNoticeLink(
        'https://www.contractsfinder.service.gov.uk/Notice/5a115892-5c5e-4646-8a8f-150c9708a9dc',
      ),
    ).toEqual(canonical);
    expect(
      recogniseNoticeLink(
        'http://contractsfinder.service.gov.uk/notice/5A115892-5C5E-4646-8A8F-150C9708A9DC/?origin=SearchResults&p=1#top',
      ),
    ).toEqual(canonical);
  });

  it('turns a Find a Tender notice link into its URL', () => {
    expect(
      recogniseNoticeLink('https://www.find-tender.service.gov.uk/Notice/004824-2025?origin=SearchResults'),
    ).toEqual({
      source: 'Find a Tender',
      noticeUrl: 'https://www.find-tender.service.gov.uk/Notice/004824-2025',
    });
  });

  it('reads the ocid from the Scottish and Welsh API links and the notice id from their pages', () => {
    expect(
      recogniseNoticeLink('https://api.publiccontractsscotland.gov.uk/v1/Notice?id=ocds-r6ebe6-0000581860'),
    ).toEqual({ source: 'Public Contracts Scotland', tenderId: 'ocds-r6ebe6-0000581860' });
    expect(
      recogniseNoticeLink('https://api.sell2wales.gov.wales/v1?lang=cy/Notice?id=ocds-kuma6s-148440'),
    ).toEqual({
      source: 'Sell2Wales',
      tenderId: 'ocds-kuma6s-148440',
    });
    expect(
      recogniseNoticeLink(
        'https://www.publiccontractsscotland.gov.uk/search/show/search_view.aspx?ID=apr352786',
      ),
    ).toEqual({
      source: 'Public Contracts Scotland',
      noticeUrl: 'https://www.publiccontractsscotland.gov.uk/search/show/search_view.aspx?ID=APR352786',
    });
    expect(
      recogniseNoticeLink('https://www.sell2wales.gov.wales/search/show/search_view.aspx?ID=FEB497923'),
    ).toEqual({
      source: 'Sell2Wales',
      noticeUrl: 'https://www.sell2wales.gov.wales/search/show/search_view.aspx?ID=FEB497923',
    });
  });

  it('makes the ocid from a Buyandsell or CanadaBuys reference number and a CCS agreement number', () => {
    expect(
      recogniseNoticeLink('https://buyandsell.gc.ca/procurement-data/tender-notice/PW-14-00627094'),
    ).toEqual({
      source: 'Buyandsell.gc.ca',
      tenderId: 'ocds-canada-bas-PW-14-00627094',
    });
    expect(
      recogniseNoticeLink(
        'https://canadabuys.canada.ca/en/tender-opportunities/tender-notice/pw-14-00627094',
      ),
    ).toEqual({ source: 'CanadaBuys', tenderId: 'ocds-canada-bas-PW-14-00627094' });
    expect(recogniseNoticeLink('https://www.crowncommercial.gov.uk/agreements/rm1043.6')).toEqual({
      source: 'Crown Commercial Service',
      tenderId: 'ocds-ccs-RM1043.6',
    });
  });

  it('reads the service’s own tender links, on its origin only', () => {
    const origins = ['http://127.0.0.1:4010'];
    expect(recogniseNoticeLink('http://127.0.0.1:4010/v1/tenders/ocds-b5fd17-abc', origins)).toEqual({
      source: 'Tenderbot',
      tenderId: 'ocds-b5fd17-abc',
    });
    expect(recogniseNoticeLink('http://127.0.0.1:4011/v1/tenders/ocds-b5fd17-abc', origins)).toBeNull();
    expect(recogniseNoticeLink('http://127.0.0.1:4010/v1/buyers/x', origins)).toBeNull();
  });

  it('leaves every other link alone, also other pages of known sources and look-alike hosts', () => {
    for (const link of [
      'https://example.com/Notice/5a115892-5c5e-4646-8a8f-150c9708a9dc',
      'https://www.contractsfinder.service.gov.uk/Search',
      'https://www.contractsfinder.service.gov.uk/Notice/not-a-guid',
      'https://contractsfinder.service.gov.uk.evil.example/Notice/5a115892-5c5e-4646-8a8f-150c9708a9dc',
      'https://www.find-tender.service.gov.uk/Search/Results',
      'https://www.gov.uk/government/organisations/department-of-health',
      'ftp://buyandsell.gc.ca/procurement-data/tender-notice/PW-14-00627094',
      'not a url',
      `https://www.find-tender.service.gov.uk/Notice/${'1'.repeat(3000)}`,
    ])
      expect(recogniseNoticeLink(link), link).toBeNull();
  });

  it('declares five unfurl domains at most, each one the recogniser knows', () => {
    expect(UNFURL_DOMAINS.length).toBeLessThanOrEqual(5);
    expect(
      recogniseNoticeLink(`https://www.${UNFURL_DOMAINS[0]}/Notice/5a115892-5c5e-4646-8a8f-150c9708a9dc`),
    ).not.toBeNull();
  });
});

describe('links and ids in a message', () => {
  it('finds Slack’s bracketed links (with labels and &amp;) and bare ones', () => {
    expect(
      linksInText(
        'see <https://www.sell2wales.gov.wales/search/show/search_view.aspx?ID=FEB497923&amp;x=1|this notice> and https://example.com/a, ok',
      ),
    ).toEqual([
      'https://www.sell2wales.gov.wales/search/show/search_view.aspx?ID=FEB497923&x=1',
      'https://example.com/a',
    ]);
  });

  it('names the notices first, then the typed ids, each once', () => {
    const text =
      'Look at ocds-b5fd17-2c0cffc3-8ce5-4dcf-b9ee-478aa5a4572c and <https://www.find-tender.service.gov.uk/Notice/004824-2025>, also (ocds-b5fd17-2c0cffc3-8ce5-4dcf-b9ee-478aa5a4572c).';
    expect(noticeRefsInText(text)).toEqual([
      { source: 'Find a Tender', noticeUrl: 'https://www.find-tender.service.gov.uk/Notice/004824-2025' },
      { source: 'typed', tenderId: 'ocds-b5fd17-2c0cffc3-8ce5-4dcf-b9ee-478aa5a4572c' },
    ]);
  });

  it('takes an id with the punctuation around it removed, and refuses words', () => {
    expect(asTenderId('`ocds-canada-bas-PW-$$FK-252-12175`,')).toBe('ocds-canada-bas-PW-$$FK-252-12175');
    expect(asTenderId('ocds')).toBeNull();
    expect(asTenderId('cleaning')).toBeNull();
    expect(asTenderId('10-15')).toBeNull();
  });
});

describe('a word too long to be an id or a link', () => {
  it('is not trimmed or read (the trim at the end of thousands of brackets was quadratic)', () => {
    expect(asTenderId(`${'('.repeat(3)}ocds-b5fd17-0001)`)).toBe('ocds-b5fd17-0001');
    expect(asTenderId(`ocds-b5fd17-0001${')'.repeat(LONGEST_TOKEN)}`)).toBeNull();
    expect(linksInText(`see https://example.org/a${','.repeat(3000)}x`)).toEqual([]);
    expect(linksInText('see https://example.org/notice/1, please')).toEqual(['https://example.org/notice/1']);
  });
});
