import { describe, expect, it } from 'vitest';
import { ControlRouter, controlFor } from '../../../../src/app/shared/controls/control-registry.ts';
import { ErrorIds, SearchIds } from '../../../../src/app/shared/ids.ts';
import { SuggestionIds } from '../../../../src/app/shared/views/suggestions.ts';

describe('controls answered by another control’s listener', () => {
  it('route the Did you mean buttons to the listeners that do the same (a search page, a command run)', () => {
    expect(controlFor('action', SuggestionIds.searchMeant)?.answeredBy).toBe(SearchIds.next);
    expect(controlFor('action', SuggestionIds.commandMeant)?.answeredBy).toBe(ErrorIds.tryAgain);
    const router = new ControlRouter();
    const next = async () => {};
    router.action(SearchIds.next, next);
    expect(router.find('action', SuggestionIds.searchMeant)).toBe(next);
    expect(router.find('action', SuggestionIds.commandMeant)).toBeUndefined();
  });

  it('refuse a listener of their own: one meaning, one listener', () => {
    const router = new ControlRouter();
    expect(() => router.action(SuggestionIds.searchMeant as never, async () => {})).toThrow(
      'is answered by search/next',
    );
  });
});
