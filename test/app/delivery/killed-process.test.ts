import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/bot.ts';
import { duplicates, Harness, type Instance, dueSubscription as makeDueSubscription } from './harness.ts';
import { type BotChild, startBotChild } from './support/bot-child-process.ts';

// Issue 9: exactly once "with a process killed between sending and recording". The faults test
// abandons an in-process copy; here a real OS process on the same SQLite file is killed (SIGKILL)
// while Slack has stored its post and still holds the answer.
const harness = new Harness('2027-01-11T08:00:00Z', mkdtempSync(join(tmpdir(), 'tenderbot-killed-')));
const CHANNEL = 'C0HOLD';
let a: Instance;
let child: BotChild | undefined;

beforeAll(async () => {
  await harness.start();
  a = await harness.instance('A');
  child = await startBotChild(harness.childEnvironment('CHILD'));
}, 60_000);

afterAll(async () => {
  if (child?.alive()) await child.kill();
  await a?.stop();
  await harness.stop();
});

const dueSubscription = (channelId: string) => makeDueSubscription(harness, a.store, channelId);

/** Everything posted in the channel (not ephemeral), whoever posted it. */
const channelPosts = () =>
  harness.slack.messagesIn(CHANNEL).filter((message) => message.ephemeralTo === null);
const historyCalls = () => harness.slack.callsOf('conversations.history').length;

describe('exactly once across a killed process', () => {
  it('a process killed after Slack stored its post and before it recorded it: the post is settled from history, not reposted', async () => {
    const subscription = await dueSubscription(CHANNEL);
    const live = child as BotChild;
    // Slack stores the child's post but holds its answer, so the child is stuck between the two.
    harness.slack.failNext('chat.postMessage', { kind: 'hold' }, { channel: CHANNEL });
    await live.setClock(harness.now);
    await live.startPass();
    await eventually(
      () => harness.slack.heldCount === 1 && channelPosts().length === 1,
      'Slack storing the child’s post and holding its answer',
      15_000,
    );
    const [delivery] = await a.store.subscriptionDeliveries(subscription.id);
    const deliveryId = delivery?.id as string;
    const [stored] = channelPosts();
    expect(stored?.metadata?.event_payload).toMatchObject({ delivery_id: deliveryId, part: 0 });

    expect(await live.kill()).toBe('SIGKILL');
    expect(live.alive()).toBe(false);
    // Sent by the dead copy, never recorded.
    const orphaned = await a.store.getDelivery(deliveryId);
    expect(orphaned).toMatchObject({
      state: 'working',
      leaseOwner: 'CHILD',
      attemptingPart: 0,
      postedTs: [],
    });
    // Slack sees the connection go with the process: the held answer has nobody to reach.
    await eventually(() => harness.slack.heldCount === 0, 'the dead process’s connection closing');

    // Within the dead copy's lease, A leaves the delivery alone.
    const historyBefore = historyCalls();
    harness.now += 30_000;
    await harness.pass(a);
    expect(await a.store.getDelivery(deliveryId)).toEqual(orphaned);
    expect(historyCalls()).toBe(historyBefore);
    expect(channelPosts()).toHaveLength(1);

    // Past it, A takes it over and finds the post in the channel's history: recorded, not reposted.
    harness.now += 31_000;
    await harness.pass(a);
    expect(historyCalls()).toBe(historyBefore + 1);
    expect(channelPosts()).toHaveLength(1);
    const settled = await a.store.getDelivery(deliveryId);
    expect(settled).toMatchObject({ state: 'sent', leaseOwner: 'A', postedTs: [stored?.ts] });

    // Releasing what Slack still holds reaches nobody, and the record stays A's.
    expect(harness.slack.releaseHeld()).toBe(0);
    expect(await a.store.getDelivery(deliveryId)).toEqual(settled);

    // One more pass, a minute later: nothing is due, nothing is posted again.
    harness.now += 60_000;
    await harness.pass(a);
    expect(channelPosts()).toHaveLength(1);
    expect(duplicates(harness.postsOf(CHANNEL, subscription.id))).toEqual([]);
    expect(await a.store.subscriptionDeliveries(subscription.id)).toEqual([settled]);
  });
});
