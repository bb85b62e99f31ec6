import { describe, expect, it } from 'vitest';
import { STALE_BUTTON_SENTENCE } from '../../src/app/shared/feature-context.ts';
import { TenderIds } from '../../src/app/shared/ids.ts';
import { eventually } from '../support/bot.ts';
import { botBehindFaults } from '../support/bot-behind-faults.ts';

// Slack sends no response_url with a click in the Home tab or in a modal (and a forged or replayed
// click may carry none): through the real app and the fake Slack, whatever such a click fails with
// is still said to the person who clicked.

const MEMBER = 'U0MEMBER';
const CHANNEL = 'C0BIDS';
const running = botBehindFaults('tenderbot-no-response-url-');

/** One button in an actions block. */
const buttonBlock = (actionId: string, value: string) => ({
  type: 'actions',
  block_id: 'probe',
  elements: [{ type: 'button', action_id: actionId, value, text: { type: 'plain_text', text: 'Open' } }],
});

const said = (value: unknown) => JSON.stringify(value);

/**
 * A Home tab holding one button, clicked by MEMBER (Slack sends no response_url from it): the
 * message in their direct messages after the click that says `expected`.
 */
async function clickInHomeTab(viewId: string, block: ReturnType<typeof buttonBlock>, expected: string) {
  const { slack } = running.bot;
  slack.views.set(viewId, {
    id: viewId,
    userId: MEMBER,
    kind: 'home',
    view: { id: viewId, type: 'home', blocks: [block] },
  });
  const dm = slack.dmOf(MEMBER);
  const before = slack.messagesIn(dm).length;
  const actionId = block.elements[0]?.action_id ?? '';
  expect((await slack.clickInView(MEMBER, viewId, actionId)).status).toBe(200);
  return eventually(
    () =>
      slack
        .messagesIn(dm)
        .slice(before)
        .find((message) => said(message).includes(expected)),
    `“${expected}” in direct messages`,
    20_000,
  );
}

describe('a click Slack sent without a response_url', () => {
  it('in the Home tab, failing because the service is down, is said in the person’s direct messages', async () => {
    running.faults.play([
      { status: 503, body: { status: 503, code: 'internal_error', detail: 'down', requestId: 'r1' } },
    ]);
    // The Home tab holding a button handled like any other (as a probe sent it).
    const told = await clickInHomeTab(
      'V0HOMEPROBE',
      buttonBlock(TenderIds.show, 'ocds-probe-1'),
      'The procurement service failed to answer',
    );
    const reference = /Reference: `([0-9a-f]{8})`/.exec(said(told))?.[1];
    expect(reference).toBeDefined();
    await eventually(
      () => running.bot.logs().includes(`"reference":"${reference}"`),
      'the reference in the log',
    );
    expect(running.bot.logs()).not.toContain('could not tell the user about a failure');
    expect(running.bot.logs()).not.toContain('respond is not a function');
  }, 30_000);

  it('in the Home tab, with a forged value, says the button is out of date in direct messages', async () => {
    const told = await clickInHomeTab(
      'V0HOMEFORGED',
      buttonBlock(TenderIds.bookmark, '{"forged":1}'),
      'out of date',
    );
    expect(told.text).toContain(STALE_BUTTON_SENTENCE);
  });

  it('on a message in a channel (forged: Slack always sends one there) is answered beside it, to the clicker alone', async () => {
    const { slack } = running.bot;
    const card = slack.postAsApp(CHANNEL, 'a card', [buttonBlock(TenderIds.bookmark, 'forged')], null);
    const before = slack.messagesIn(CHANNEL, MEMBER).length;
    const payload = {
      type: 'block_actions',
      user: { id: MEMBER, username: 'member', team_id: slack.teamId },
      api_app_id: 'A0TENDERBOT',
      token: 'fake-verification-token',
      container: { type: 'message', message_ts: card.ts, channel_id: CHANNEL, is_ephemeral: false },
      trigger_id: 'T0NONE',
      team: { id: slack.teamId, domain: 'tender' },
      channel: { id: CHANNEL, name: 'bids' },
      message: { type: 'message', ts: card.ts, text: card.text, blocks: card.blocks, user: card.authorId },
      actions: [
        {
          type: 'button',
          action_id: TenderIds.bookmark,
          block_id: 'probe',
          value: 'forged',
          action_ts: '1',
        },
      ],
      state: { values: {} },
    };
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    expect((await slack.sendRaw(body, 'application/x-www-form-urlencoded')).status).toBe(200);
    const told = await eventually(
      () =>
        slack
          .messagesIn(CHANNEL, MEMBER)
          .slice(before)
          .find((message) => said(message).includes('out of date')),
      'the sentence beside the card',
    );
    expect(told.ephemeralTo).toBe(MEMBER);
    expect(slack.messagesIn(CHANNEL, 'U0ADMIN').map((message) => message.ts)).not.toContain(told.ts);
  });
});
