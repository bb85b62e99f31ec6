import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLOW_CLICK_SENTENCE, SLOW_SENTENCE, withFailures } from '../../../src/app/shared/feature-context.ts';
import { mrkdwn } from '../../../src/app/shared/views/mrkdwn.ts';
import { type HandlerHarness, startHandlerHarness } from '../../support/handler-context.ts';

let harness: HandlerHarness;
beforeAll(async () => {
  harness = await startHandlerHarness();
}, 60_000);
afterAll(async () => harness?.close());

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('withFailures when the service is slow', () => {
  it('a command: the notice comes first, and the answer takes its place', async () => {
    const request = harness.request({ kind: 'command' });
    await withFailures({ ...harness.context, slowNoticeMs: 20 }, request, 'search', null, async (guarded) => {
      await pause(120);
      await guarded.respond({
        response_type: 'ephemeral',
        replace_original: false,
        text: mrkdwn`Found 3 tenders`,
      });
    });
    expect(request.answers.map((answer) => [answer.text, answer.replace_original])).toEqual([
      [SLOW_SENTENCE, false],
      ['Found 3 tenders', true],
    ]);
  });

  it('a click: the notice (which Slack cannot replace) promises nothing its result will not keep', async () => {
    const request = harness.request({ kind: 'click' });
    await withFailures(
      { ...harness.context, slowNoticeMs: 20 },
      request,
      'bookmark',
      null,
      async (guarded) => {
        await pause(120);
        // The click's own answer redraws the card it came from, as a bookmark does.
        await guarded.respond({
          response_type: 'ephemeral',
          replace_original: true,
          text: mrkdwn`The card, bookmarked`,
        });
      },
    );
    expect(request.answers.map((answer) => [answer.text, answer.replace_original])).toEqual([
      [SLOW_CLICK_SENTENCE, false],
      ['The card, bookmarked', true],
    ]);
    expect(SLOW_CLICK_SENTENCE).not.toMatch(/still trying/);
  });

  it('an answer within the time: no notice at all', async () => {
    const request = harness.request({ kind: 'click' });
    await withFailures(
      { ...harness.context, slowNoticeMs: 200 },
      request,
      'bookmark',
      null,
      async (guarded) => {
        await guarded.respond({ response_type: 'ephemeral', replace_original: true, text: mrkdwn`Done` });
      },
    );
    expect(request.answers.map((answer) => answer.text)).toEqual(['Done']);
  });
});
