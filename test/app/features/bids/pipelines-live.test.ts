import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { redrawEverywhere } from '../../../../src/app/features/bids/pipeline-live.ts';
import type { FeatureContext } from '../../../../src/app/shared/feature-context.ts';
import { mrkdwn, text } from '../../../../src/app/shared/views/mrkdwn.ts';
import type { PipelineMessage } from '../../../../src/app/storage/bot-store.ts';
import type { Pipeline } from '../../../../src/contract/schemas.ts';

/**
 * The ordering of redraws, with the service's answers timed by the test (the end-to-end proof over
 * real HTTP is in pipelines.test.ts; here an older, slower answer is made to arrive last on purpose).
 */
function version(name: string, updatedAt: string): Pipeline {
  return {
    id: 'pl-1',
    name,
    summary: null,
    status: 'bidding',
    targetSubmissionDate: null,
    tenderId: null,
    owner: { id: 'u', name: 'U' },
    archived: false,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt,
    stages: [],
  };
}

function harness(answers: { pipeline: Pipeline; delayMs: number }[], places: PipelineMessage[]) {
  const updates: { ts: string; text: string }[] = [];
  const forgotten: string[] = [];
  let call = 0;
  const context = {
    clients: {
      forTeam: async () => ({
        client: {
          pipelines: {
            get: async () => {
              const answer = answers[Math.min(call++, answers.length - 1)] as (typeof answers)[number];
              await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
              return answer.pipeline;
            },
          },
        },
      }),
    },
    store: {
      saveState: async () => undefined,
      loadState: async () => null,
      pipelineMessages: async () => places,
      bidStarters: async () => new Map(),
      bidReferenceNumbers: async (_team: string, ids: string[]) => new Map(ids.map((id) => [id, 7])),
      forgetPipelineMessage: async (_team: string, _channel: string, ts: string) => {
        forgotten.push(ts);
        return true;
      },
    },
    clock: () => new Date('2026-06-01T00:00:00Z'),
    logger: pino({ level: 'silent' }),
  } as unknown as FeatureContext;
  const lines: { channel: string; thread_ts: string; text: string }[] = [];
  const slack = {
    chat: {
      postMessage: async (args: { channel: string; thread_ts: string; text: string }) => {
        lines.push({ channel: args.channel, thread_ts: args.thread_ts, text: args.text });
        return { ok: true, ts: '9.9' };
      },
      update: async (args: { ts: string; text: string }) => {
        if (args.ts === 'gone')
          throw Object.assign(new Error('gone'), { data: { error: 'message_not_found' } });
        updates.push({ ts: args.ts, text: args.text });
        return { ok: true };
      },
    },
  } as never;
  return { context, slack, updates, forgotten, lines };
}

const place = (ts: string): PipelineMessage => ({ pipelineId: 'pl-1', teamId: 'T1', channelId: 'C1', ts });

describe('redrawing every card of a pipeline', () => {
  it('a slower, older read never lands after a newer one: redraws of a pipeline run in turn', async () => {
    const { context, slack, updates } = harness(
      [
        { pipeline: version('Older', '2026-01-01T00:00:01Z'), delayMs: 150 },
        { pipeline: version('Newer', '2026-01-01T00:00:02Z'), delayMs: 0 },
      ],
      [place('1.1')],
    );
    await Promise.all([
      redrawEverywhere(context, slack, 'T1', 'pl-1'),
      redrawEverywhere(context, slack, 'T1', 'pl-1'),
    ]);
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.at(-1)?.text).toContain('Newer');
  });

  it('an answer older than the one already drawn is not drawn', async () => {
    const { context, slack, updates } = harness(
      [
        { pipeline: version('Fresh', '2026-01-01T00:00:09Z'), delayMs: 0 },
        { pipeline: version('Stale copy', '2026-01-01T00:00:05Z'), delayMs: 0 },
      ],
      [place('2.1')],
    );
    // A pipeline id of its own so the first test's drawing does not count here.
    await redrawEverywhere(context, slack, 'T2', 'pl-1');
    const drawn = await redrawEverywhere(context, slack, 'T2', 'pl-1');
    expect(updates.length).toBe(1);
    expect(updates[0]?.text).toContain('Fresh');
    expect(drawn?.copies).toBe(0);
  });

  it('forgets a message Slack says is gone and redraws the others', async () => {
    const { context, slack, updates, forgotten } = harness(
      [{ pipeline: version('Live', '2026-01-01T00:00:01Z'), delayMs: 0 }],
      [place('gone'), place('3.1')],
    );
    const drawn = await redrawEverywhere(context, slack, 'T3', 'pl-1');
    expect(forgotten).toEqual(['gone']);
    expect(updates.map((update) => update.ts)).toEqual(['3.1']);
    expect(drawn?.copies).toBe(1);
  });

  it('tells a change once under each card still there, in the thread a card sits in', async () => {
    const inThread: PipelineMessage = { ...place('4.2'), channelId: 'C2', threadTs: '4.0' };
    const { context, slack, lines } = harness(
      [{ pipeline: version('Told', '2026-01-01T00:00:01Z'), delayMs: 0 }],
      [place('gone'), place('4.1'), inThread],
    );
    await redrawEverywhere(
      context,
      slack,
      'T4',
      'pl-1',
      undefined,
      (pipeline) => mrkdwn`<@U1> renamed it ${text(pipeline.name)}`,
    );
    expect(lines).toEqual([
      { channel: 'C1', thread_ts: '4.1', text: '<@U1> renamed it Told' },
      { channel: 'C2', thread_ts: '4.0', text: '<@U1> renamed it Told' },
    ]);
  });
});
