import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AppSlack } from '../../../../src/app/adapters/app-slack.ts';
import { postBidSummary } from '../../../../src/app/features/workflows/post-bid-summary.ts';
import { startBidFromTender } from '../../../../src/app/features/workflows/start-bid.ts';
import {
  idempotencyKeyOf,
  StepRefusal,
  type StepRun,
} from '../../../../src/app/features/workflows/step-run.ts';
import { ProcurementClient } from '../../../../src/client/procurement-client.ts';
import { KEYS, TENDER_A } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';

let harness: HandlerHarness;
let service: ProcurementClient;

beforeAll(async () => {
  harness = await startHandlerHarness();
  service = new ProcurementClient({ baseUrl: harness.sandbox.baseUrl, apiKey: KEYS.carolMemberAcme });
}, 60_000);

afterAll(async () => {
  await service?.close();
  await harness?.close();
});

function runOf(executionId: string, inputs: Record<string, unknown>): StepRun {
  return {
    teamId: harness.slack.teamId,
    executionId,
    inputs,
    slack: harness.request().slack as unknown as AppSlack,
  };
}

describe('Start a bid from a tender, as two copies of the app would run it', () => {
  it('makes one bid for one execution, whichever copy runs it (the service’s idempotency key)', async () => {
    const name = `Two copies ${Date.now()}`;
    const inputs = { tender: TENDER_A, name, user_context: { id: 'U0MEMBER', secret: 'from-slack' } };
    // No memory between the two calls: only the key derived from the execution id joins them.
    const first = await startBidFromTender(harness.context, runOf('Fx0SAME', inputs));
    const second = await startBidFromTender(harness.context, runOf('Fx0SAME', inputs));
    expect(second.bid_id).toBe(first.bid_id);
    expect(second.bid_reference).toBe(first.bid_reference);
    expect((await service.pipelines.list({ q: name })).data).toHaveLength(1);
    // Another execution of the same workflow is another bid.
    const other = await startBidFromTender(harness.context, runOf('Fx0OTHER', inputs));
    expect(other.bid_id).not.toBe(first.bid_id);
  });

  it('derives a UUID the service takes, the same for one execution and step only', () => {
    const key = idempotencyKeyOf('Fx0SAME', 'start_bid_from_tender');
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(idempotencyKeyOf('Fx0SAME', 'start_bid_from_tender')).toBe(key);
    expect(idempotencyKeyOf('Fx0OTHER', 'start_bid_from_tender')).not.toBe(key);
    expect(idempotencyKeyOf('Fx0SAME', 'another_step')).not.toBe(key);
  });
});

describe('a step set up before the person came from Slack', () => {
  it('takes its old free “Person” input as no one: a step that changes bids says why, and changes nothing', async () => {
    const name = `Old person input ${Date.now()}`;
    // Whoever the author typed is not who runs the workflow: no user context, no key of theirs.
    const refused = startBidFromTender(
      harness.context,
      runOf('Fx0OLD', { tender: TENDER_A, name, user_id: 'U0MEMBER' }),
    );
    await expect(refused).rejects.toThrow(StepRefusal);
    await expect(refused).rejects.toThrow(
      /^To start bids, the step needs the person who runs the workflow, and Slack did not say who that is\. Its “Person” input no longer chooses whose key is used/,
    );
    expect((await service.pipelines.list({ q: name })).data).toHaveLength(0);
  });
});

describe('Post a bid’s summary to a channel, for a guest', () => {
  it('is refused with the sentence their command would get, and posts nothing', async () => {
    const posts = harness.slack.callsOf('chat.postMessage').length;
    const refused = postBidSummary(
      harness.context,
      runOf('Fx0GUEST', {
        bid: 'pl-bob',
        channel_id: 'C0BIDS',
        user_context: { id: 'U0GUEST', secret: 's' },
      }),
    );
    await expect(refused).rejects.toThrow(StepRefusal);
    await expect(refused).rejects.toThrow(
      'Guests can read tenders but cannot post bid cards in a channel. Ask a member of the workspace to run this workflow.',
    );
    expect(harness.slack.callsOf('chat.postMessage')).toHaveLength(posts);
  });
});

describe('a step run again on another copy of the app', () => {
  it('does its work once: the second copy answers the first one’s outcome from the bot’s store', async () => {
    const first = await import('../../../../src/app/features/workflows/step-run.ts');
    // A second copy: the same module loaded afresh (its own memory of runs), the same store.
    vi.resetModules();
    const second = await import('../../../../src/app/features/workflows/step-run.ts');
    expect(second.runStepOnce).not.toBe(first.runStepOnce);
    let worked = 0;
    const work = async () => {
      worked += 1;
      return { message_ts: `1700000000.00000${worked}` };
    };
    const run = runOf('Fx0COPIES', {});
    const one = await first.runStepOnce(harness.context, run, 'post_bid_summary', work);
    const other = await second.runStepOnce(harness.context, run, 'post_bid_summary', work);
    expect(worked).toBe(1);
    expect(other).toEqual(one);
    // Another execution is other work.
    await second.runStepOnce(harness.context, runOf('Fx0COPIES2', {}), 'post_bid_summary', work);
    expect(worked).toBe(2);
  });
});
