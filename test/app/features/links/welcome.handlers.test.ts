import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { welcomeChannel } from '../../../../src/app/features/links/welcome.ts';
import { ReachIds } from '../../../../src/app/shared/ids.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';

let harness: HandlerHarness;

beforeAll(async () => {
  harness = await startHandlerHarness();
});
afterAll(async () => {
  await harness?.close();
});

const botPostsIn = (channel: string) =>
  harness.slack.messagesIn(channel).filter((message) => message.authorId === 'U0BOT');

describe('welcomeChannel', () => {
  it('posts one welcome with the search button the first time Tenderbot is in a channel', async () => {
    const { slack } = harness.request();
    const posted = await welcomeChannel(harness.context, slack, {
      teamId: harness.slack.teamId,
      channelId: 'C0GENERAL',
    });
    expect(posted).toBe(true);
    const [welcome, ...more] = botPostsIn('C0GENERAL');
    expect(more).toEqual([]);
    expect(welcome?.text).toContain('Hello, I’m Tenderbot');
    expect(JSON.stringify(welcome?.blocks)).toContain('Three things to try');
    expect(JSON.stringify(welcome?.blocks)).toContain(ReachIds.openSearchBuilder);
  });

  it('posts nothing the second time, nor after a post the channel refused', async () => {
    const { slack } = harness.request();
    const again = await welcomeChannel(harness.context, slack, {
      teamId: harness.slack.teamId,
      channelId: 'C0GENERAL',
    });
    expect(again).toBe(false);
    expect(botPostsIn('C0GENERAL')).toHaveLength(1);

    // Removed before the welcome could go out: not posted, and marked, so a retried event posts nothing.
    await harness.slack.removeApp('C0BIDS');
    const refused = await welcomeChannel(harness.context, slack, {
      teamId: harness.slack.teamId,
      channelId: 'C0BIDS',
    });
    expect(refused).toBe(false);
    await harness.slack.addApp('C0BIDS');
    const retried = await welcomeChannel(harness.context, slack, {
      teamId: harness.slack.teamId,
      channelId: 'C0BIDS',
    });
    expect(retried).toBe(false);
    expect(botPostsIn('C0BIDS')).toEqual([]);
  });
});
