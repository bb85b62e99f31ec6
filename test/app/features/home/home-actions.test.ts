import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postInChosenChannel } from '../../../../src/app/features/home/home-actions.ts';
import type { FeatureContext } from '../../../../src/app/shared/feature-context.ts';
import { encode } from '../../../../src/app/shared/values/codec.ts';
import type { BotStore } from '../../../../src/app/storage/bot-store.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';
import { subscription } from '../../storage/contract-fixtures.ts';

let harness: HandlerHarness;
beforeAll(async () => {
  harness = await startHandlerHarness();
}, 60_000);
afterAll(async () => harness?.close());

describe('postInChosenChannel (the Home tab’s channel window, submitted)', () => {
  it('Subscribe tells the person of the subscription it added, not of one another subscribe added meanwhile', async () => {
    const { store } = harness.context;
    const teamId = harness.slack.teamId;
    // Someone else's subscribe lands in #bids while this one is decided and stored.
    const meanwhile = {
      ...subscription('s-meanwhile', 'C0BIDS'),
      teamId,
      kind: 'deadlines' as const,
      target: '{"days":14}',
      createdAt: new Date(Date.now() - 60_000),
    };
    const racing: BotStore = {
      ...store,
      subscribeChannel: async (team, channel, decide) => {
        await store.createSubscription(meanwhile);
        return store.subscribeChannel(team, channel, decide);
      },
    };
    const context: FeatureContext = { ...harness.context, store: racing };
    const request = harness.request({ userId: 'U0MEMBER', channelId: 'C0BIDS' });
    const metadata = encode(
      'homeChannel',
      { k: 'saved', id: 'ss-acme-001', s: true, n: 'Acme search 1' },
      'metadata',
    );

    await postInChosenChannel(context, request, metadata, 'daily');

    const inChannel = (await store.channelSubscriptions(teamId, 'C0BIDS')).map((each) => each.kind);
    expect(inChannel).toEqual(['deadlines', 'search']);
    expect(request.said()).toMatch(/^Subscribed <#C0BIDS>: \*.*Acme search 1.*\*\. It said so there/);
    expect(request.said()).not.toContain('Deadline');
  });
});
