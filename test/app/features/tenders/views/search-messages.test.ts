import { describe, expect, it } from 'vitest';
import { searchResultsMessage } from '../../../../../src/app/features/tenders/views/search-messages.ts';
import { searchHeading } from '../../../../../src/app/shared/views/describe-search.ts';

describe('searchResultsMessage', () => {
  it('says a page past the last one, with no range from after the end and no buttons to more empty pages', () => {
    const message = searchResultsMessage({
      heading: searchHeading({ q: 'cleaning' }),
      tenders: [],
      total: 444,
      offset: 10_000,
      bookmarked: new Set(),
      state: (offset) => ({ f: { q: 'cleaning' }, o: offset }),
      now: new Date('2027-05-03T08:00:00Z'),
    });
    expect(message.text).toBe(
      'That page is past the last of the 444 tenders matching “cleaning” found now. Run the search again to see them from the start.',
    );
    expect(JSON.stringify(message.blocks)).not.toMatch(/10,?001|"button"/);
  });
});
